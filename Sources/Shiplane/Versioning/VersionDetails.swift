import Foundation
internal import Git

/// What `shiplane version` shows: the agreed version, where it was read, and the last release tag.
public struct VersionDetails: Codable, Sendable, Equatable {
    /// One version file and what it holds.
    public struct Source: Codable, Sendable, Equatable {
        /// The file, relative to the project root.
        public var path: String
        /// The file's format (`package.json`, `Info.plist`).
        public var format: String
        /// The version the file holds, or `$(VARIABLE)` when it takes it from build settings.
        public var version: String
        /// The build number the file holds, when it holds one (or `$(VARIABLE)`).
        public var build: String?
    }

    /// The version the files agree on, as they write it (`1.0` for an Apple marketing version).
    public var version: String
    /// The build number they agree on, when any file holds one; where iOS and Android keep
    /// their own, both (`iOS 1703279999, Android 1`).
    public var build: String?
    /// Where iOS and Android keep build numbers of their own: each, by `"ios"` and `"android"`.
    /// Absent where there is one.
    public var builds: [String: String]?
    /// Every version file read.
    public var sources: [Source]
    /// The last release tag reachable from HEAD, or nil.
    public var lastReleaseTag: String?
    /// The commit of that tag, abbreviated.
    public var lastReleaseCommit: String?
    /// `files`, or `tags` when no version file exists and the version is the highest release tag
    /// reachable from HEAD (`0.0.0` before the first).
    public var origin: String
    /// With `origin == "tags"`: the tag the version was read from (nil before the first release).
    public var versionTag: String?
    /// With `origin == "tags"`: tags not taken as releases, and why.
    public var ignoredTags: [IgnoredTag]
    /// Xcode targets with a version of their own that a bump leaves alone, each named with it.
    /// Absent when there is none.
    public var leftAlone: [String]?
    /// App extensions, widgets and watch apps whose version or build number differs from the
    /// app's, each saying what brings it in step (a version bump, or a build-number change).
    /// Absent when there is none.
    public var outOfStep: [String]?
    /// Files that look like version files but were not read, each named with why (an
    /// Info.plist no target uses, a companion module at a placeholder version). Absent when
    /// there is none.
    public var ignored: [String]?

    /// A tag that was not taken as a release.
    public struct IgnoredTag: Codable, Sendable, Equatable {
        /// The tag's name.
        public var name: String
        /// Why it was not taken.
        public var reason: String
    }
}

extension LaneContext {
    /// The version files, the version they agree on, and the last release tag reachable from HEAD.
    /// - Throws: `VersionFileError` when no file is found (naming what was looked for) or they disagree.
    public func versionDetails(files: [VersionFileReference]? = nil) throws -> VersionDetails {
        let agreed = try readVersion(files)
        let sources = agreed.sources.map { source in
            VersionDetails.Source(
                path: source.file.displayPath, format: source.file.format.name,
                version: source.reading.version.literal == nil
                    ? (source.reading.holdsBuildOnly ? "no version" : source.reading.followerVersions.isEmpty ? Self.text(source.reading.version) : "follows the app")
                    : source.reading.text ?? Self.text(source.reading.version),
                build: source.reading.build.map(Self.text) ?? (source.reading.seriesBuilds.isEmpty ? nil : BuildSeries.describe(source.reading.seriesBuilds))
            )
        }
        var tag: Tag?
        if let repository = try? repository(), (try? git { try repository.head() }).map({ if case .unborn = $0 { false } else { true } }) == true {
            tag = try lastReleaseTag()
        }
        return VersionDetails(
            version: agreed.shown, build: agreed.shownBuild,
            builds: agreed.separateBuildSeries ? Dictionary(uniqueKeysWithValues: agreed.builds.map { ($0.key.rawValue, $0.value) }) : nil,
            sources: sources,
            lastReleaseTag: tag?.name, lastReleaseCommit: tag?.target.short,
            origin: agreed.tagOrigin == nil ? "files" : "tags", versionTag: agreed.tagOrigin?.tag,
            ignoredTags: (agreed.tagOrigin?.ignored ?? []).map { VersionDetails.IgnoredTag(name: $0.name, reason: $0.reason) },
            leftAlone: agreed.leftAlone.isEmpty ? nil : agreed.leftAlone,
            outOfStep: agreed.outOfStep.isEmpty && agreed.outOfStepBuilds.isEmpty ? nil
                : agreed.outOfStep.map { $0 + " (extensions carry the app's version: a bump brings it in step)" }
                + agreed.outOfStepBuilds.map { $0 + " (extensions carry the app's build number: the next build-number change, bump --build, brings it in step)" },
            ignored: agreed.ignored.isEmpty ? nil : agreed.ignored
        )
    }

    private static func text<Value>(_ field: VersionField<Value>) -> String {
        switch field {
        case .literal(let value): "\(value)"
        case .delegated(let variable): "$(\(variable))"
        }
    }
}

/// Replayed on resume from the run's record.
extension VersionDetails: ReplayableOutput {}
