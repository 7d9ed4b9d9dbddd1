import Foundation

/// One file a release step changed, by the SHA-256 of its bytes before and after: the run's
/// record keeps these, never the bytes (the saved copy of the old bytes is the file effect's).
/// Steps make them as they write (`StepContext`'s file writes return one); lanes read them.
public struct FileChange: Sendable, Equatable, Codable {
    /// The file's absolute path.
    public let path: String
    /// How messages name it: relative to the repository root when inside it.
    public let displayPath: String
    /// The SHA-256 (hex) of the bytes before the step, or nil when the step created the file.
    public let beforeDigest: String?
    /// The SHA-256 (hex) of the bytes the step wrote.
    public let afterDigest: String

    /// Creates the record of one changed file from its bytes before and after.
    package init(path: String, displayPath: String, before: Data?, after: Data) {
        self.path = path
        self.displayPath = displayPath
        beforeDigest = before.map { SHA256.hex(of: $0) }
        afterDigest = SHA256.hex(of: after)
    }

    /// Creates the record of one changed file from the digests already taken of its bytes.
    package init(path: String, displayPath: String, beforeDigest: String?, afterDigest: String) {
        self.path = path
        self.displayPath = displayPath
        self.beforeDigest = beforeDigest
        self.afterDigest = afterDigest
    }
}

/// What a release step changed in the work tree, handed to the step that commits it.
///
/// `bumpVersion`, `incrementBuildNumber` and `writeChangelog` return one;
/// `commitVersionBump(_:)` takes them and commits exactly their files.
public protocol ReleaseChanges: Sendable {
    /// The files changed, in the order they were written.
    var fileChanges: [FileChange] { get }
}

/// What `bumpVersion` did: the version before and after, and each file it rewrote.
///
/// Reads as the new version wherever a version is expected in text (`"v\(bump)"`), and gives
/// the new version's parts directly (`bump.major`, `bump.isPrerelease`).
@dynamicMemberLookup
public struct VersionBumpResult: ReleaseChanges, CustomStringConvertible, Equatable, Codable {
    /// The version before the bump.
    public let previous: SemanticVersion
    /// The version after the bump.
    public let version: SemanticVersion
    /// Each version file rewritten, in the order written; empty when the version lives in tags.
    public let fileChanges: [FileChange]
    /// True when the project has no version file: the version lives in release tags, so the
    /// release is made by tagging, and no file was written.
    public let versionInTags: Bool
    /// The new version as the files write it (`7.77` where they hold two numbers), when it differs
    /// from the SemVer text; tags and commit messages made from this result use it.
    package var shown: String?

    /// Creates the result of a bump.
    public init(previous: SemanticVersion, version: SemanticVersion, fileChanges: [FileChange], versionInTags: Bool = false) {
        self.previous = previous
        self.version = version
        self.fileChanges = fileChanges
        self.versionInTags = versionInTags
    }

    private enum CodingKeys: String, CodingKey { case previous, version, fileChanges, versionInTags, shown }

    /// Decodes a result; a record without `versionInTags` (written before it existed) reads as false.
    /// - Throws: `DecodingError` when a field is missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        previous = try container.decode(SemanticVersion.self, forKey: .previous)
        version = try container.decode(SemanticVersion.self, forKey: .version)
        fileChanges = try container.decode([FileChange].self, forKey: .fileChanges)
        versionInTags = try container.decodeIfPresent(Bool.self, forKey: .versionInTags) ?? false
        shown = try container.decodeIfPresent(String.self, forKey: .shown)
    }

    /// The new version as the files write it: `7.77` for a two-number version, else `1.2.3`.
    public var description: String { shown ?? version.description }

    /// The new version's property at `keyPath` (`bump.major`, `bump.isPrerelease`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<SemanticVersion, Value>) -> Value {
        version[keyPath: keyPath]
    }
}

/// What `incrementBuildNumber` did: the build number before and after, and each file it rewrote.
///
/// Reads as the new build number in text (`"build \(build)"`).
public struct BuildNumberResult: ReleaseChanges, CustomStringConvertible, Equatable, Codable {
    /// The build number before, or nil when the files held none.
    public let previous: String?
    /// The new build number; where iOS and Android keep their own, both (`iOS 1703280000, Android 2`).
    public let build: String
    /// Where iOS and Android keep build numbers of their own: each platform's new number, by
    /// `"ios"` and `"android"` (for an upload of one platform); nil where there is one.
    public let builds: [String: String]?
    /// Each file rewritten, in the order written.
    public let fileChanges: [FileChange]

    /// Creates the result of a build-number change.
    public init(previous: String?, build: String, fileChanges: [FileChange]) {
        self.init(previous: previous, build: build, builds: nil, fileChanges: fileChanges)
    }

    init(previous: String?, build: String, builds: [String: String]?, fileChanges: [FileChange]) {
        self.previous = previous
        self.build = build
        self.builds = builds
        self.fileChanges = fileChanges
    }

    /// The new build number.
    public var description: String { build }
}

/// What `writeChangelog` did: the section it added and the file it changed.
///
/// Reads as the section's Markdown in text.
public struct ChangelogWriteResult: ReleaseChanges, CustomStringConvertible, Equatable, Codable {
    /// The section's Markdown, as added (or, in a dry run, as it would be).
    public let section: String
    /// The changelog file, when it changed.
    public let fileChanges: [FileChange]

    /// Creates the result of a changelog write.
    public init(section: String, fileChanges: [FileChange]) {
        self.section = section
        self.fileChanges = fileChanges
    }

    /// The section's Markdown.
    public var description: String { section }
}

/// Replayed on resume from the run's record.
extension VersionBumpResult: ReplayableOutput {}

/// Replayed on resume from the run's record.
extension BuildNumberResult: ReplayableOutput {}

/// Replayed on resume from the run's record.
extension ChangelogWriteResult: ReplayableOutput {}
