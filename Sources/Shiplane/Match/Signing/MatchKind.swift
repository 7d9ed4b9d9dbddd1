import Foundation

/// The type of signing match keeps — `lane.match(type: .appStore, …)`; the raw value is match's
/// own word (`appstore`, `adhoc`, `development`, `enterprise`, `developer_id`), as a Matchfile
/// writes it and the store's folders are named.
///
/// Everything the type decides (the certificate types App Store Connect lists and creates, the
/// profile type per platform, the store's folders and file names, the profile's name at Apple)
/// follows fastlane's `match/lib/match/runner.rb`, `generator.rb` and `spaceship_ensure.rb`.
public enum MatchKind: String, CaseIterable, Codable, Sendable {
    /// App Store distribution (match's `appstore`).
    case appStore = "appstore"
    /// Ad hoc distribution to registered devices (match's `adhoc`).
    case adHoc = "adhoc"
    /// Development signing, on registered devices (match's `development`).
    case development
    /// In-house distribution of an enterprise team (match's `enterprise`).
    case enterprise
    /// Developer ID, for macOS apps outside the Mac App Store (match's `developer_id`).
    case developerID = "developer_id"

    /// Reads match's spelling (`appstore`, `adhoc`, `development`, `enterprise`,
    /// `developer_id`; `developer-id` too, and the Swift names).
    package init?(matchName: String) {
        let lowered = matchName.lowercased().replacingOccurrences(of: "-", with: "_")
        if let kind = MatchKind(rawValue: lowered) { self = kind; return }
        switch lowered {
        case "app_store", "appstore_": self = .appStore
        case "ad_hoc": self = .adHoc
        case "developerid": self = .developerID
        default: return nil
        }
    }

    /// The folder under `certs/`.
    package var certificateFolder: String {
        switch self {
        case .appStore, .adHoc: "distribution"
        case .development: "development"
        case .enterprise: "enterprise"
        case .developerID: "developer_id_application"
        }
    }

    /// The profile's type word (`Match::Generator.profile_type_name`): the file name's start.
    package var profileTypeName: String {
        switch self {
        case .appStore: "AppStore"
        case .adHoc: "AdHoc"
        case .development: "Development"
        case .enterprise: "InHouse"
        case .developerID: "Direct"
        }
    }

    /// Whether its profiles list devices (development and ad hoc).
    package var includesDevices: Bool { self == .development || self == .adHoc }

    /// The certificate types that count as this type's (newest kind first); the first is created.
    package func certificateTypes(for platform: MatchPlatform) -> [String] {
        switch (self, platform) {
        case (.development, .macOS): ["DEVELOPMENT", "MAC_APP_DEVELOPMENT"]
        case (.development, _): ["DEVELOPMENT", "IOS_DEVELOPMENT"]
        case (.appStore, .macOS): ["DISTRIBUTION", "MAC_APP_DISTRIBUTION"]
        case (.appStore, _), (.adHoc, _), (.enterprise, _): ["DISTRIBUTION", "IOS_DISTRIBUTION"]
        case (.developerID, _): ["DEVELOPER_ID_APPLICATION_G2", "DEVELOPER_ID_APPLICATION"]
        }
    }

    /// The profile type App Store Connect names; nil when the platform has none of this type.
    package func profileType(for platform: MatchPlatform) -> String? {
        switch (self, platform) {
        case (.appStore, .iOS): "IOS_APP_STORE"
        case (.adHoc, .iOS): "IOS_APP_ADHOC"
        case (.development, .iOS): "IOS_APP_DEVELOPMENT"
        case (.enterprise, .iOS): "IOS_APP_INHOUSE"
        case (.appStore, .tvOS): "TVOS_APP_STORE"
        case (.adHoc, .tvOS): "TVOS_APP_ADHOC"
        case (.development, .tvOS): "TVOS_APP_DEVELOPMENT"
        case (.enterprise, .tvOS): "TVOS_APP_INHOUSE"
        case (.appStore, .macOS): "MAC_APP_STORE"
        case (.development, .macOS): "MAC_APP_DEVELOPMENT"
        case (.developerID, .macOS): "MAC_APP_DIRECT"
        case (.adHoc, .macOS), (.enterprise, .macOS), (.developerID, .iOS), (.developerID, .tvOS): nil
        }
    }

    /// The store path of a profile: `profiles/<type>/<Type>_<bundle id>[_<platform>].mobileprovision`
    /// (`.provisionprofile` on macOS).
    package func profilePath(bundleID: String, platform: MatchPlatform) -> String {
        let suffix = platform == .iOS ? "" : "_" + platform.rawValue
        let ext = platform == .macOS ? "provisionprofile" : "mobileprovision"
        return "profiles/\(rawValue)/\(profileTypeName)_\(bundleID)\(suffix).\(ext)"
    }

    /// The profile's name at Apple, as match names it: `match AppStore com.example.app` (with the
    /// platform after it for tvOS and macOS).
    package func profileName(bundleID: String, platform: MatchPlatform) -> String {
        "match \(profileTypeName) \(bundleID)" + (platform == .iOS ? "" : " \(platform.rawValue)")
    }
}

/// The platforms match signs for.
package enum MatchPlatform: String, CaseIterable, Codable, Sendable {
    case iOS = "ios"
    case tvOS = "tvos"
    case macOS = "macos"

    /// App Store Connect's `BundleIdPlatform` for bundle IDs and devices.
    package var bundleIDPlatform: String { self == .macOS ? "MAC_OS" : "IOS" }

    /// The device classes a profile of this platform lists.
    package var deviceClasses: Set<String> {
        switch self {
        case .iOS: ["IPHONE", "IPAD", "IPOD", "APPLE_WATCH", "APPLE_VISION_PRO"]
        case .tvOS: ["APPLE_TV"]
        case .macOS: ["MAC"]
        }
    }
}
