import Foundation
import Shiplane

/// `shiplane changelog [--from REF] [--to REF] [--unreleased] [--all] [--write FILE] [--json] [--template FILE]`.
struct ChangelogLane: Lane, BuiltInLane {
    static let name = "changelog"
    static let summary = "Release notes from the conventional commits since the last release tag"

    @Option(help: "Start of the range (exclusive), a tag or any revision")
    var from: String?

    @Option(help: "End of the range (inclusive)")
    var to: String?

    @Flag(help: "Only the commits after the last release tag")
    var unreleased = false

    @Flag(help: "The whole history, split into releases by tags")
    var all = false

    @Option(help: "Keep this file (e.g. CHANGELOG.md): insert the section, keep every other byte")
    var write: String?

    @Flag(help: "Print the releases, groups and commits as JSON")
    var json = false

    @Option(help: "Render with this Mustache template file")
    var template: String?

    @Option(help: "Heading for unreleased work, e.g. the version about to be released")
    var version: String?

    @Option(help: "Glob of release tag names (default: SemVer names, v optional), e.g. 'app-v*'")
    var tagPattern: String?

    @Flag(help: "Do not count prerelease tags (v2.0.0-rc.1) as releases")
    var skipPrereleases = false

    @Option(help: "Merge commits: exclude, include or only (default: include_merges of .shiplane.yml, else exclude)")
    var merges: MergeCommits?

    @Flag(help: "Drop commits that are not conventional (default: list them under Other)")
    var dropNonConventional = false

    @Option(help: "A package of the monorepo (.shiplane.yml `packages`): its tags and the commits touching its folder")
    var package: String?

    /// The project's `.shiplane.yml` (or the defaults) with this command's flags over it.
    func settings(root: String) throws -> (configuration: ChangelogConfiguration, releaseTags: ReleaseTags) {
        var settings = try ProjectSettings.load(root: root)
        if dropNonConventional { settings.changelog.nonConventional = .drop }
        if let tagPattern { settings.releaseTags.pattern = tagPattern }
        if skipPrereleases { settings.releaseTags.includePrereleases = false }
        return (settings.changelog, settings.releaseTags)
    }

    func validate() throws {
        let ranges = [from != nil || to != nil, unreleased, all].filter { $0 }.count
        if ranges > 1 { throw ValidationError("choose one of --from/--to, --unreleased and --all") }
        if write != nil && (json || template != nil) { throw ValidationError("--write keeps Markdown: drop --json and --template") }
        if write != nil && all { throw ValidationError("--write adds one release at a time; --all would rewrite the whole file") }
        if json && template != nil { throw ValidationError("choose --json or --template") }
    }

    var range: ChangelogRange {
        if all { return .all }
        if unreleased { return .unreleased }
        if from != nil || to != nil { return .range(from: from, to: to ?? "HEAD") }
        return .lastTag
    }

    func format(root: String) throws -> ChangelogFormat {
        if json { return .json }
        guard let template else { return .markdown }
        let path = template.hasPrefix("/") ? template : root + "/" + template
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read the template \(template)", suggestion: "give the path of a Mustache template file")
        }
        return .template(String(decoding: data, as: UTF8.self))
    }

    func run(_ whole: LaneContext) async throws {
        let lane = try package.map { try whole.package($0) } ?? whole
        let settings = try settings(root: lane.workingDirectory)
        try lane.writeChangelog(
            write ?? "CHANGELOG.md", since: range, version: version, configuration: settings.configuration,
            releaseTags: settings.releaseTags, merges: merges
        )
    }
}

enum ChangelogCommand {
    /// Prints the changelog `options` ask for, or with `--write` runs the changelog lane (a step,
    /// dry run and rollback like any lane); `arguments` are the command's words, for its record.
    static func run(_ options: ChangelogLane, arguments: [String], root: String, session: CommandSession) async throws -> Int32 {
        if options.write != nil {
            return await LaneHost.runLane(options, arguments: arguments, hooks: [], root: root, session: session)
        }
        var context = LaneContext(.init(workingDirectory: root, environment: session.laneEnvironment, reporter: RecordingReporter()))
        if let package = options.package { context = try context.package(package) }
        let settings = try options.settings(root: root)
        if options.range == .all, options.template == nil {
            // Written as it is made, a release at a time: memory stays that of one release.
            var ended = true
            try context.streamWholeChangelog(
                json: options.json, configuration: settings.configuration, releaseTags: settings.releaseTags, merges: options.merges
            ) { piece in
                session.out.write(piece)
                ended = piece.hasSuffix("\n")
            }
            if !ended { session.out.write("\n") }
            return ShiplaneExitCode.success.rawValue
        }
        let text = try context.changelog(
            since: options.range, version: options.version, format: try options.format(root: root),
            configuration: settings.configuration, releaseTags: settings.releaseTags, merges: options.merges
        )
        session.out.write(text.hasSuffix("\n") ? text : text + "\n")
        return ShiplaneExitCode.success.rawValue
    }
}
