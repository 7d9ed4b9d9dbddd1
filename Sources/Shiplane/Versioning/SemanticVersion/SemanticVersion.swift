import Foundation

/// A version number that follows Semantic Versioning 2.0.0 strictly: MAJOR.MINOR.PATCH, an
/// optional prerelease (`-beta.2`) and optional build metadata (`+exp.sha.5114f85`).
///
/// Parsing (`init(parsing:)`) rejects everything SemVer 2.0.0 rejects and says why. One leniency:
/// a single leading `v` or `V` (`v1.2.3`, as in git tags) is accepted and dropped; `description`
/// never has it.
///
/// Equality and ordering:
/// - `==` and hashing compare every field, build metadata included, so `1.0.0+a != 1.0.0+b`
///   and a value equals what its `description` parses back to.
/// - `<` orders by SemVer §11 precedence (see `comparePrecedence(to:)`, which ignores build
///   metadata). Only when two versions have equal precedence does `<` look at build metadata
///   (none first, then by ASCII order of the metadata text), so that `Comparable` stays a strict
///   total order consistent with `==`. Use `hasSamePrecedence(as:)` to ask the SemVer question.
///
/// Written here rather than taken from mxcl/Version: that parser accepts what SemVer 2.0.0
/// forbids (leading zeros, for one) and does not say where text goes wrong, and release tools live
/// on telling a user exactly why `1.02.0` or `1.2` is not a version.
///
/// Prerelease numeric identifiers are kept as text and compared numerically at any length, so
/// `1.0.0-rc.99999999999999999999` is valid; MAJOR, MINOR and PATCH must fit in `Int`.
public struct SemanticVersion: Sendable, Hashable {
    /// The MAJOR number: incompatible API changes.
    public let major: Int
    /// The MINOR number: backwards-compatible features.
    public let minor: Int
    /// The PATCH number: backwards-compatible fixes.
    public let patch: Int
    /// The dot-separated prerelease identifiers (`["beta", "2"]` for `-beta.2`); empty for a release.
    public let prerelease: [String]
    /// The dot-separated build metadata identifiers (`["build", "5"]` for `+build.5`).
    public let buildMetadata: [String]

    /// Creates a version from its parts, checking each identifier against SemVer 2.0.0.
    /// - Throws: `SemanticVersionParseError` when a number is negative or an identifier is invalid.
    public init(
        major: Int,
        minor: Int,
        patch: Int,
        prerelease: [String] = [],
        buildMetadata: [String] = []
    ) throws {
        let text = SemanticVersion.render(major, minor, patch, prerelease, buildMetadata)
        guard major >= 0, minor >= 0, patch >= 0 else {
            throw SemanticVersionParseError(input: text, reason: .negativeNumber)
        }
        // Validating the rendered text checks identifiers exactly as parsing would.
        self = try SemanticVersionParser.parse(text)
    }

    /// Creates a version from parts already known to be valid (internal use by the parser and
    /// operations, which check their inputs).
    init(unchecked major: Int, _ minor: Int, _ patch: Int, prerelease: [String] = [], buildMetadata: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.buildMetadata = buildMetadata
    }

    /// Parses `text` strictly as SemVer 2.0.0, accepting one leading `v` or `V`.
    /// - Throws: `SemanticVersionParseError` explaining what is wrong and, where it can, the
    ///   nearest valid version.
    public init(parsing text: String) throws {
        self = try SemanticVersionParser.parse(text)
    }

    /// True when the version has prerelease identifiers (`1.0.0-rc.1`).
    public var isPrerelease: Bool { !prerelease.isEmpty }

    /// The same version without prerelease and build metadata.
    public var core: SemanticVersion { SemanticVersion(unchecked: major, minor, patch) }

    /// The same version without build metadata.
    public var withoutBuildMetadata: SemanticVersion {
        SemanticVersion(unchecked: major, minor, patch, prerelease: prerelease)
    }

    static func render(_ major: Int, _ minor: Int, _ patch: Int, _ prerelease: [String], _ build: [String]) -> String {
        var text = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { text += "-" + prerelease.joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }
}

// MARK: - Text

extension SemanticVersion: LosslessStringConvertible {
    /// Parses `description` strictly; `nil` when it is not a semantic version.
    public init?(_ description: String) {
        guard let version = try? SemanticVersionParser.parse(description) else { return nil }
        self = version
    }

    /// The canonical SemVer text, without a leading `v`: `1.2.3-beta.1+build.5`.
    public var description: String {
        SemanticVersion.render(major, minor, patch, prerelease, buildMetadata)
    }
}

// MARK: - Codable

extension SemanticVersion: Codable {
    /// Decodes a version from its string form, parsed strictly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try SemanticVersionParser.parse(text)
        } catch let error as SemanticVersionParseError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the version as its `description` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Replayed on resume from the run's record.
extension SemanticVersion: ReplayableOutput {}
