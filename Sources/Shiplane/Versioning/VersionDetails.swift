import Foundation
internal import Git

/// What `shiplane version` shows: the agreed version, where it was read, and the last release tag.
public struct VersionDetails: Codable, Sendable, Equatable {
    public struct Source: Codable, Sendable, Equatable {
        public var path: String
        public var format: String
        /// The version the file holds, or `$(VARIABLE)` when it takes it from build settings.
        public var version: String
        public var build: String?
    }

    public var version: String
    public var build: String?
    public var sources: [Source]
    public var lastReleaseTag: String?
    public var lastReleaseCommit: String?
}

extension LaneContext {
    /// The version files, the version they agree on, and the last release tag reachable from HEAD.
    /// - Throws: `VersionFileError` when no file is found (naming what was looked for) or they disagree.
    public func versionDetails(files: [VersionFileReference]? = nil) throws -> VersionDetails {
        let agreed = try readVersion(files)
        let sources = agreed.sources.map { source in
            VersionDetails.Source(
                path: source.file.displayPath, format: source.file.format.name,
                version: Self.text(source.reading.version), build: source.reading.build.map(Self.text)
            )
        }
        var tag: Tag?
        if let repository = try? repository(), (try? repository.head()).map({ if case .unborn = $0 { false } else { true } }) == true {
            tag = try lastReleaseTag()
        }
        return VersionDetails(
            version: agreed.version.description, build: agreed.build, sources: sources,
            lastReleaseTag: tag?.name, lastReleaseCommit: tag?.target.short
        )
    }

    private static func text<Value>(_ field: VersionField<Value>) -> String {
        switch field {
        case .literal(let value): "\(value)"
        case .delegated(let variable): "$(\(variable))"
        }
    }
}
