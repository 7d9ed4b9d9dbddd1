/// The store a build number goes to: Apple's (`CFBundleVersion`, `CURRENT_PROJECT_VERSION`,
/// Expo's `ios.buildNumber`) or Google Play's (`versionCode`).
///
/// A cross-platform project may keep one series for both (Flutter's `+N`, or the same number
/// everywhere) or one per platform (a React Native app at `versionCode 1` and
/// `CFBundleVersion 1703279999`): the numbers of one platform must agree, the platforms need not.
package enum BuildSeries: String, Sendable, Hashable, CaseIterable, Comparable {
    /// App Store Connect's build number: digits in dot-separated groups.
    case apple = "ios"
    /// Google Play's `versionCode`: a whole number that must grow.
    case android

    /// "iOS" or "Android", as messages name the platform.
    package var label: String {
        switch self {
        case .apple: "iOS"
        case .android: "Android"
        }
    }

    /// Apple's first.
    package static func < (lhs: BuildSeries, rhs: BuildSeries) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// `iOS 1703279999, Android 1`: each platform's number, Apple's first.
    package static func describe(_ builds: [BuildSeries: String]) -> String {
        builds.sorted { $0.key < $1.key }.map { "\($0.key.label) \($0.value)" }.joined(separator: ", ")
    }
}

extension Set where Element == BuildSeries {
    /// The one platform of a file that holds one platform's build number; nil for a file of both.
    package var only: BuildSeries? { count == 1 ? first : nil }
}
