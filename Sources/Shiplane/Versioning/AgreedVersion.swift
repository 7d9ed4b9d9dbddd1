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
            try rewritten(version: version, builds: BuildNumbers(build))
        }

        /// The bytes with a new version and each platform's build number: a file of one
        /// platform takes that platform's number, a file naming each value's platform (Expo)
        /// each its own.
        /// - Throws: `VersionFileError` naming the file.
        package func rewritten(version: SemanticVersion?, builds: BuildNumbers) throws -> Data {
            var builds = builds
            if let platform = file.format.buildSeries.only { builds = BuildNumbers(builds.value(for: platform)) }
            guard let parsed else { return try file.rewritten(bytes, version: version, build: builds.all) }
            return try file.naming { try parsed.rewrite(version, builds) }
        }

        /// Each platform's build number this file holds: the platforms its values name, or
        /// the platforms its format's build number is for.
        package var builds: [BuildSeries: String] {
            if !reading.seriesBuilds.isEmpty { return reading.seriesBuilds }
            guard let build = reading.build?.literal else { return [:] }
            return Dictionary(uniqueKeysWithValues: file.format.buildSeries.map { ($0, build) })
        }
    }

    /// The version every file with a literal version holds.
    package let version: SemanticVersion
    /// The build number every file with a literal build number holds, if any does; nil where
    /// iOS and Android keep build numbers of their own that differ (see `builds`).
    package let build: String?
    /// Each platform's build number: the same for both where the project keeps one series,
    /// each its own where it keeps them apart (React Native at `versionCode 1` beside
    /// `CFBundleVersion 1703279999`). Empty when no file holds one.
    package let builds: [BuildSeries: String]
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
        // A version read from a tag of two numbers (`v1.2`) is shown as the tag writes it.
        if sources.isEmpty, let tag = tagOrigin?.tag, let style = ReleaseTagStyle(tag: tag) {
            return style.text(for: version, shown: version.description)
        }
        // An extension's file out of step (a widget's Info.plist at 0.98) follows the app: it never
        // decides how the version is written, as it never decides the version.
        let leaders = sources.contains { !$0.file.followsApp } ? sources.filter { !$0.file.followsApp } : sources
        let texts = Set(leaders.compactMap { $0.reading.version.literal == nil ? nil : $0.reading.text })
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
        self.builds = build.map { build in Dictionary(uniqueKeysWithValues: BuildSeries.allCases.map { ($0, build) }) } ?? [:]
        self.sources = sources
        self.tagOrigin = tagOrigin
    }

    /// Creates an agreed version with each platform's build number.
    package init(version: SemanticVersion, builds: [BuildSeries: String], sources: [Source]) {
        self.version = version
        self.build = Set(builds.values).count == 1 ? builds.values.first : nil
        self.builds = builds
        self.sources = sources
        self.tagOrigin = nil
    }

    /// True where iOS and Android keep build numbers of their own that differ now.
    package var separateBuildSeries: Bool { Set(builds.values).count > 1 }

    /// The build number as `version` shows it: `42`, or `iOS 1703279999, Android 1` where the
    /// platforms keep their own.
    package var shownBuild: String? {
        build ?? (builds.isEmpty ? nil : BuildSeries.describe(builds))
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
        // Build numbers are each platform's: the files of one platform must agree (and a file
        // both read, Flutter's pubspec.yaml, with both), iOS and Android need not.
        var seriesBuilds: [BuildSeries: Set<String>] = [:]
        for leader in leaders {
            for (platform, build) in leader.builds { seriesBuilds[platform, default: []].insert(build) }
        }
        let split = seriesBuilds.first { $0.value.count > 1 }
        guard versions.count <= 1, split == nil else {
            let subject = versions.count > 1 ? "version" : seriesBuilds.count > 1 ? "\(split?.key.label ?? "") build number" : "build number"
            throw VersionFileError(
                .disagreement,
                "The version files disagree on the \(subject)",
                details: leaders.map { (key: $0.file.displayPath, value: describe($0.reading)) },
                suggestion: (versions.count > 1 || seriesBuilds.count < 2
                    ? "Set the same version in every file (or delegate it to build settings), then run again"
                    : "Set the same \(split?.key.label ?? "") build number in every file that holds one (iOS and Android may each keep their own), then run again")
                    + independentHint(leaders)
            )
        }
        let builds = seriesBuilds.compactMapValues(\.first)
        guard let version = versions.first else {
            throw VersionFileError(
                .missingVersion,
                "No version file holds a version of its own: every one delegates to build settings",
                details: sources.map { (key: $0.file.displayPath, value: describe($0.reading)) },
                suggestion: "Add the file that defines the build setting (an .xcconfig or project.pbxproj)"
            )
        }
        var agreed = AgreedVersion(version: version, builds: builds, sources: sources)
        for source in sources {
            let appBuild = source.file.format.buildSeries.only.flatMap { builds[$0] } ?? agreed.build
            for (place, text) in source.reading.followerVersions.sorted(by: { $0.key < $1.key })
            where (try? source.reading.versionShape.parse(text)) != agreed.version {
                agreed.outOfStep.append("\(source.file.displayPath) \(place): \(text)")
            }
            for (place, text) in source.reading.followerBuilds.sorted(by: { $0.key < $1.key }) where text != appBuild {
                agreed.outOfStepBuilds.append("\(source.file.displayPath) \(place): \(text)")
            }
        }
        for source in sources where source.file.followsApp {
            if let version = source.reading.version.literal, version != agreed.version {
                agreed.outOfStep.append("\(source.file.displayPath): version " + (source.reading.text ?? "\(version)"))
            }
            if let build = source.reading.build?.literal, build != (source.file.format.buildSeries.only.flatMap { builds[$0] } ?? agreed.build) {
                agreed.outOfStepBuilds.append("\(source.file.displayPath): build \(build)")
            }
        }
        return agreed
    }

    /// Where two Gradle modules hold different versions, how to name the one with a release
    /// train of its own (a second app such as nowinandroid's app-nia-catalog): its folder in
    /// `versions.independent`.
    private static func independentHint(_ leaders: [Source]) -> String {
        let modules = leaders.filter { $0.file.format is GradleVersionFormat && $0.reading.version.literal != nil }
        let counts = Dictionary(grouping: modules) { $0.reading.version.literal }
        guard counts.count > 1, let main = counts.max(by: { $0.value.count < $1.value.count || ($0.value.count == $1.value.count && ($0.key.map { "\($0)" } ?? "") < ($1.key.map { "\($0)" } ?? "")) })?.key else { return "" }
        let others = modules.filter { $0.reading.version.literal != main }
            .map { ($0.file.displayPath as NSString).deletingLastPathComponent }.filter { !$0.isEmpty }
        guard !others.isEmpty else { return "" }
        return "; or, for a module with a release train of its own, name its folder in .shiplane.yml (versions: { independent: [\(others.joined(separator: ", "))] })"
    }

    private static func describe(_ reading: VersionReading) -> String {
        var text = "version " + (reading.version.literal != nil ? reading.text ?? "\(reading.version)" : "\(reading.version)")
        if let build = reading.build { text += ", build \(build)" } else if !reading.seriesBuilds.isEmpty { text += ", build " + BuildSeries.describe(reading.seriesBuilds) }
        return text
    }
}
