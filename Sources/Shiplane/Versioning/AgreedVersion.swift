import Foundation

/// The version a project's version files agree on, with what each file holds.
package struct AgreedVersion: Sendable {
    /// What one file holds.
    package struct Source: Sendable {
        /// The file.
        package let file: VersionFile
        /// The file's bytes as they were read, so a rewrite starts from exactly what was agreed on.
        package let bytes: Data
        /// The version and build number read from the bytes.
        package let reading: VersionReading

        /// What reading `bytes` found, kept so that rewriting them does not parse them again;
        /// nil for a format that keeps nothing (it parses again).
        let parsed: ParsedVersionFile?

        /// Creates the record of what one file holds.
        package init(file: VersionFile, bytes: Data, reading: VersionReading) {
            self.file = file
            self.bytes = bytes
            self.reading = reading
            self.parsed = nil
        }

        /// Reads `bytes` of `file` once, keeping what the rewrite needs.
        /// - Throws: `VersionFileError` naming the file.
        init(file: VersionFile, bytes: Data) throws {
            let parsed = try file.parse(bytes)
            self.file = file
            self.bytes = bytes
            self.reading = parsed.reading
            self.parsed = parsed
        }

        /// The bytes with a new version and build number (`nil` leaves a value alone), from the
        /// parse made when they were read.
        /// - Throws: `VersionFileError` naming the file.
        package func rewritten(version: SemanticVersion?, build: String?) throws -> Data {
            guard let parsed else { return try file.rewritten(bytes, version: version, build: build) }
            return try file.naming { try parsed.rewrite(version, build) }
        }
    }

    /// The version every file with a literal version holds.
    package let version: SemanticVersion
    /// The build number every file with a literal build number holds, if any does.
    package let build: String?
    /// Every file read, in the order given.
    package let sources: [Source]
    /// Set when no version file exists and the version comes from release tags.
    package let tagOrigin: TagOrigin?
    /// Xcode targets with a version of their own that a release leaves alone, each named with
    /// its version and why (a macOS helper app, a test bundle).
    package var leftAlone: [String] = []
    /// Files that look like version files but are not the app's, each named with why: an
    /// Info.plist no target uses, a companion module at a placeholder version.
    package var ignored: [String] = []
    /// App extensions, widgets and watch apps whose version differs from the app's, each as
    /// "file where: value": a version bump brings them in step.
    package var outOfStep: [String] = []
    /// Those whose build number differs from the app's: a build-number change brings them in
    /// step, a version bump leaves them (and does not say it moved them).
    package var outOfStepBuilds: [String] = []

    /// The version as the files write it: `1.0` when every file with a version of its own
    /// writes the Apple marketing version `1.0`; otherwise the SemVer text.
    package var shown: String {
        let texts = Set(sources.compactMap { $0.reading.version.literal == nil ? nil : $0.reading.text })
        return texts.count == 1 ? texts.first ?? version.description : version.description
    }

    /// `next` as the files will write it: in the shape of the version they hold now (`1.0`
    /// bumped minor shows as `1.1`).
    package func shown(_ next: SemanticVersion) -> String {
        let shape: VersionShape = sources.contains { $0.file.format is InfoPlistVersionFormat || $0.file.format is XcodeProjectVersionFormat || $0.file.format is XcconfigVersionFormat } ? .apple : .android
        return shape.text(for: next, replacing: shown)
    }

    /// Where a tag-only project's version comes from: the highest SemVer release tag reachable
    /// from HEAD, or none (then the version is 0.0.0).
    package struct TagOrigin: Sendable, Equatable {
        /// The tag the version was read from; nil before the first release tag.
        package let tag: String?
        /// Tags that were not taken as releases, each with the reason.
        package let ignored: [(name: String, reason: String)]

        /// Creates the origin: the tag read, and the tags passed over with why.
        package init(tag: String?, ignored: [(name: String, reason: String)]) {
            self.tag = tag
            self.ignored = ignored
        }

        /// Equal when the tags and every ignored tag's name and reason are.
        package static func == (lhs: TagOrigin, rhs: TagOrigin) -> Bool {
            lhs.tag == rhs.tag && lhs.ignored.map(\.name) == rhs.ignored.map(\.name) && lhs.ignored.map(\.reason) == rhs.ignored.map(\.reason)
        }
    }

    /// Creates an agreed version; `tagOrigin` is set for a project whose version lives in tags.
    package init(version: SemanticVersion, build: String?, sources: [Source], tagOrigin: TagOrigin? = nil) {
        self.version = version
        self.build = build
        self.sources = sources
        self.tagOrigin = tagOrigin
    }

    /// Files whose version is delegated to build settings (`$(MARKETING_VERSION)`).
    package var delegated: [VersionFile] {
        sources.filter { !$0.reading.holdsVersion && !$0.reading.holdsBuildOnly }.map(\.file)
    }

    /// Reads every file and checks that they agree on the version and on the build number.
    ///
    /// Delegated values are not compared. Every file is read before failing, so one error
    /// reports every unreadable file, or every file with the value it holds.
    /// - Parameter files: files whose `displayPath` is relative to the project root, as
    ///   `VersionFileDetector.detect(in:)` makes them.
    /// - Throws: `VersionFileError` of kind `.disagreement` listing each file and its values,
    ///   or one wrapping every read error.
    package static func read(_ files: [VersionFile]) throws -> AgreedVersion {
        try read(files) { try $0.contents() }
    }

    /// Reads every file's bytes through `contents` (a lane's file system, so a dry run reads
    /// what earlier steps would have written), then agrees as `read(_:)` does.
    package static func read(_ files: [VersionFile], contents: (VersionFile) throws -> Data) throws -> AgreedVersion {
        var sources: [Source] = []
        var failures: [any Error] = []
        for file in files {
            do {
                let bytes = try contents(file)
                sources.append(try Source(file: file, bytes: bytes))
            } catch {
                failures.append(error)
            }
        }
        return try agree(sources, failures: failures)
    }

    /// Checks that files already read agree on the version and the build number.
    /// - Throws: as `read(_:)`; `failures` are the files that could not be read.
    package static func agree(_ sources: [Source], failures: [any Error] = []) throws -> AgreedVersion {
        guard failures.isEmpty else {
            throw VersionFileError(
                .disagreement,
                failures.count == 1 ? "A version file cannot be read" : "\(failures.count) version files cannot be read",
                underlying: failures
            )
        }
        let leaders = sources.contains { !$0.file.followsApp } ? sources.filter { !$0.file.followsApp } : sources
        let versions = Set(leaders.compactMap { $0.reading.version.literal })
        let builds = Set(leaders.compactMap { $0.reading.build?.literal })
        guard versions.count <= 1, builds.count <= 1 else {
            let subject = versions.count > 1 ? "version" : "build number"
            throw VersionFileError(
                .disagreement,
                "The version files disagree on the \(subject)",
                details: leaders.map { (key: $0.file.displayPath, value: describe($0.reading)) },
                suggestion: "Set the same version in every file (or delegate it to build settings), then run again"
            )
        }
        guard let version = versions.first else {
            throw VersionFileError(
                .missingVersion,
                "No version file holds a version of its own: every one delegates to build settings",
                details: sources.map { (key: $0.file.displayPath, value: describe($0.reading)) },
                suggestion: "Add the file that defines the build setting (an .xcconfig or project.pbxproj)"
            )
        }
        var agreed = AgreedVersion(version: version, build: builds.first, sources: sources)
        for source in sources {
            for (place, text) in source.reading.followerVersions.sorted(by: { $0.key < $1.key })
            where (try? source.reading.versionShape.parse(text)) != agreed.version {
                agreed.outOfStep.append("\(source.file.displayPath) \(place): \(text)")
            }
            for (place, text) in source.reading.followerBuilds.sorted(by: { $0.key < $1.key }) where text != agreed.build {
                agreed.outOfStepBuilds.append("\(source.file.displayPath) \(place): \(text)")
            }
        }
        for source in sources where source.file.followsApp {
            if let version = source.reading.version.literal, version != agreed.version {
                agreed.outOfStep.append("\(source.file.displayPath): version " + (source.reading.text ?? "\(version)"))
            }
            if let build = source.reading.build?.literal, build != agreed.build {
                agreed.outOfStepBuilds.append("\(source.file.displayPath): build \(build)")
            }
        }
        return agreed
    }

    private static func describe(_ reading: VersionReading) -> String {
        var text = "version " + (reading.version.literal != nil ? reading.text ?? "\(reading.version)" : "\(reading.version)")
        if let build = reading.build { text += ", build \(build)" }
        return text
    }
}
