import Foundation

/// How a user asks the version to change: `major`, `minor`, `patch`, `auto`, `release`,
/// `pre:NAME` or an exact version.
public enum VersionBump: Hashable, Sendable {
    /// The major number goes up; minor and patch go to 0.
    case major
    /// The minor number goes up; patch goes to 0.
    case minor
    /// The patch number goes up.
    case patch
    /// Let the commits since the last release decide the level.
    case auto
    /// Drop the prerelease: 1.3.0-rc.2 → 1.3.0.
    case release
    /// Start or advance the named prerelease (see `SemanticVersion.prerelease(_:base:)`).
    case prerelease(String)
    /// Use exactly this version.
    case exact(SemanticVersion)

    /// Parses a command-line argument; `nil` when it is not a bump (use `init(parsing:)` for why).
    public init?(argument: String) {
        guard let bump = try? VersionBump(parsing: argument) else { return nil }
        self = bump
    }

    /// Parses `major`, `minor`, `patch`, `auto`, `release` (any case), `pre:NAME`,
    /// `prerelease:NAME` or `pre NAME`, or a version such as `2.0.0` or `v2.0.0-rc.1`.
    /// - Throws: `VersionBumpParseError`, wrapping the SemVer error when the text looks like a version.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "major": self = .major; return
        case "minor": self = .minor; return
        case "patch": self = .patch; return
        case "auto": self = .auto; return
        case "release": self = .release; return
        default: break
        }
        for prefix in ["prerelease:", "pre:", "prerelease ", "pre "] where trimmed.lowercased().hasPrefix(prefix) {
            let name = String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            guard SemanticVersionParser.isIdentifier(name), !SemanticVersion.isNumeric(name) else {
                throw VersionBumpParseError(argument: text, underlying: VersionOperationError(.invalidPrereleaseName(name)))
            }
            self = .prerelease(name)
            return
        }
        let looksLikeVersion = trimmed.drop { $0 == "v" || $0 == "V" }.first?.isASCIIDigit ?? false
        guard looksLikeVersion else { throw VersionBumpParseError(argument: text, underlying: nil) }
        do {
            self = .exact(try SemanticVersion(parsing: trimmed))
        } catch {
            throw VersionBumpParseError(argument: text, underlying: error)
        }
    }

    /// The version this bump gives from `current`.
    /// - Parameters:
    ///   - current: the version before the bump.
    ///   - automaticLevel: the level the commits call for; evaluated only for `.auto`, and
    ///     for `.prerelease` from a release version.
    /// - Throws: `VersionOperationError`, or what `automaticLevel` throws.
    public func apply(
        to current: SemanticVersion,
        automaticLevel: () throws -> BumpLevel
    ) throws -> SemanticVersion {
        switch self {
        case .major: return try current.bumped(.major)
        case .minor: return try current.bumped(.minor)
        case .patch: return try current.bumped(.patch)
        case .auto: return try current.bumped(try automaticLevel())
        case .release: return try current.released()
        case .prerelease(let name):
            // From a release, the level comes from the commits, as for `auto`: `pre beta` after
            // a feat is the next minor's beta.0. With nothing releasable it is a patch's.
            guard !current.isPrerelease else { return try current.prerelease(name) }
            let level: BumpLevel
            do { level = try automaticLevel() } catch is NothingToRelease { level = .patch }
            return try current.prerelease(name, base: level)
        case .exact(let version):
            guard version > current else {
                throw VersionOperationError(.exactVersionNotHigher(current: current, proposed: version))
            }
            return version
        }
    }
}

extension VersionBump: CustomStringConvertible {
    /// The argument form that parses back to this bump (`pre:beta`, `2.0.0`).
    public var description: String {
        switch self {
        case .major: "major"
        case .minor: "minor"
        case .patch: "patch"
        case .auto: "auto"
        case .release: "release"
        case .prerelease(let name): "pre:\(name)"
        case .exact(let version): version.description
        }
    }
}

/// Why a command-line argument is not a version bump.
public struct VersionBumpParseError: ReportableError {
    /// The argument as given.
    public let argument: String
    /// The SemVer or prerelease-name error, when the text looked like a version or a prerelease.
    public let underlyingErrors: [any Error]

    init(argument: String, underlying: (any Error)?) {
        self.argument = argument
        self.underlyingErrors = underlying.map { [$0] } ?? []
    }

    /// A usage mistake.
    public var category: ErrorCategory { .usage }

    /// Says that the argument is not a bump and, when known, why.
    public var message: String {
        if let cause = underlyingErrors.first as? any ReportableError {
            return "'\(argument)' is not a valid version bump: \(cause.message)"
        }
        return "'\(argument)' is not a version bump"
    }

    /// The cause's suggestion, else the forms a bump can take.
    public var suggestion: String? {
        if let cause = underlyingErrors.first as? any ReportableError, let suggestion = cause.suggestion {
            return suggestion
        }
        return "Use major, minor, patch, auto, release, pre:NAME (for example pre:beta) or a version such as 1.2.0"
    }
}
