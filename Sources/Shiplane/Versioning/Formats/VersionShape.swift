/// The shape of the versions a format holds, so a version keeps its ecosystem's form.
///
/// Apple's `CFBundleShortVersionString` and `MARKETING_VERSION` are one to three integers
/// (`1.0` is valid and common); Android's `versionName` is free text, most often `1.2` or
/// `1.2.3`. Such a version is read as its SemVer equivalent (`1.0` as 1.0.0) so that files
/// agree and bumps work, and written back in the shape it had: `1.0` bumped minor is `1.1`,
/// bumped patch `1.0.1`.
package enum VersionShape: Sendable, Equatable {
    /// SemVer 2.0.0, strictly.
    case semantic
    /// One to three integers, no prerelease (App Store marketing versions).
    case apple
    /// SemVer, or one to three integers (Android `versionName`).
    case android

    /// "a semantic version", for messages.
    var article: String {
        switch self {
        case .semantic: "a semantic version"
        case .apple: "a marketing version (one to three integers, such as 1.0 or 2.3.1)"
        case .android: "a version (1.2, 1.2.3 or a semantic version)"
        }
    }

    /// What a valid value looks like, as a suggestion.
    var expected: String {
        switch self {
        case .semantic: "Write a version such as 1.2.3"
        case .apple: "The App Store takes one to three integers separated by dots, such as 1.0 or 2.3.1"
        case .android: "Write a version such as 1.2 or 1.2.3"
        }
    }

    /// Reads `text` in this shape.
    /// - Throws: `SemanticVersionParseError` when it is not a version at all,
    ///   `VersionFileError.invalidValue` when it is SemVer the App Store refuses (`1.2.0-beta.1`).
    func parse(_ text: String) throws -> SemanticVersion {
        if self != .semantic, let numbers = Self.integers(text) {
            return SemanticVersion(unchecked: numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
        }
        let version = try SemanticVersion(parsing: text)
        if self == .apple {
            throw VersionFileError(.invalidValue, "'\(text)' is not \(article)", suggestion: expected)
        }
        return version
    }

    /// Refuses a version this shape cannot hold (an App Store version has no prerelease).
    /// - Throws: `VersionFileError.invalidValue`.
    func check(_ version: SemanticVersion, format: String) throws {
        guard self == .apple, version.isPrerelease || !version.buildMetadata.isEmpty else { return }
        throw VersionFileError(
            .invalidValue,
            "\(version) cannot be written to \(format): App Store marketing versions are one to three integers",
            suggestion: "Bump to a release version (major, minor, patch or an exact 1.2.3); mark betas with the build number instead"
        )
    }

    /// `version` written in the shape of `original`: as many integers as `original` has, or
    /// more when the version needs them (`1.0` → `1.1`, `1.0.1`; `1` → `2`, `1.1`), each as wide
    /// as the part it replaces when that part is zero-padded (CalVer's `26.07.5` → `26.07.6`,
    /// `26.08.0`; element-x-ios writes its months so).
    func text(for version: SemanticVersion, replacing original: String) -> String {
        guard self != .semantic, let parts = Self.integerTexts(original),
              !version.isPrerelease, version.buildMetadata.isEmpty else {
            return version.description
        }
        let needed = version.patch != 0 ? 3 : version.minor != 0 ? 2 : 1
        let numbers = [version.major, version.minor, version.patch].prefix(max(parts.count, needed))
        return numbers.enumerated().map { index, number in
            Self.padded(number, like: index < parts.count ? parts[index] : nil)
        }.joined(separator: ".")
    }

    /// `number` with leading zeros to the width of `part` when `part` has them (`07`), else as it is.
    static func padded(_ number: Int, like part: Substring?) -> String {
        let text = String(number)
        guard let part, part.count > 1, part.first == "0", text.count < part.count else { return text }
        return String(repeating: "0", count: part.count - text.count) + text
    }

    /// The dot-separated parts of `1`, `1.2` or `1.2.3` as written (`07` keeps its zero), or nil.
    static func integerTexts(_ text: String) -> [Substring]? {
        guard integers(text) != nil else { return nil }
        return text.split(separator: ".", omittingEmptySubsequences: false)
    }

    /// The integers of `1`, `1.2` or `1.2.3` (digits only, each fitting `Int`), or nil.
    static func integers(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        return numbers.count == parts.count ? numbers : nil
    }
}
