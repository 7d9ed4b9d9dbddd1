import Foundation
import Shiplane

/// The options of `shiplane version`.
struct VersionOptions: ParsableArguments {
    static let summary = "The current version: where it was read from, and the last release tag"

    @Flag(help: "Print the details as JSON")
    var json = false

    @Option(help: "A package of the monorepo (.shiplane.yml `packages`): its folder's version files, or its tags")
    var package: String?

    @Flag(help: "Every package of the monorepo with its version")
    var all = false

    @Flag(help: "The packages of the monorepo to release now: changed since their last release tag (conventional commits touching their folders) and those that depend on them, in dependency order")
    var changed = false

    @Option(help: ArgumentHelp(
        "With --changed: json (default), github (strategy.matrix JSON of one wave, see --wave), gitlab (child-pipeline YAML) or buildkite (pipeline upload YAML)",
        valueName: "FORMAT"))
    var format: String?

    @Option(help: "With --changed --format github: the wave whose packages the matrix lists (from 1)")
    var wave: Int?

    func validate() throws {
        if all && package != nil { throw ValidationError("choose --all or --package") }
        if changed && (all || package != nil) { throw ValidationError("--changed plans every package: pass it without --all or --package") }
        if (format != nil || wave != nil) && !changed { throw ValidationError("--format and --wave go with --changed") }
        if let format, !PackagesMatrix.formats.contains(format) {
            throw ValidationError("--format takes \(PackagesMatrix.formats.joined(separator: ", ")), not \(format)")
        }
        if let wave, wave < 1 { throw ValidationError("--wave counts from 1") }
    }
}

/// `shiplane version [--json]`: the current version, each file it was read from (or the release
/// tag, when no version file exists), the last release tag.
enum VersionCommand {
    static func run(session: CommandSession, options: VersionOptions) throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        if options.changed {
            let plan = try PackagePlan.make(root: root)
            let matrix = PackagesMatrix(plan: plan)
            let format = options.format ?? (options.json ? "json" : "text")
            session.out.line(try matrix.rendered(as: format, wave: options.wave))
            return ShiplaneExitCode.success.rawValue
        }
        var context = LaneContext(.init(workingDirectory: root, environment: session.laneEnvironment, reporter: RecordingReporter()))
        if options.all { return try all(context, root: root, json: options.json, session: session) }
        let details: VersionDetails
        if let package = options.package {
            context = try context.package(package)
            details = try context.versionDetails()
        } else {
            // At a monorepo's root, which has no version of its own, `version` lists the packages.
            // The version files are read once: what they say is shown, or their error thrown.
            do {
                details = try context.versionDetails()
            } catch let error where error is MonorepoRootError {
                return try all(context, root: root, json: options.json, session: session)
            }
        }
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            session.out.line(String(decoding: try encoder.encode(details), as: UTF8.self))
            return ShiplaneExitCode.success.rawValue
        }
        session.out.line(details.version + (details.build.map { " (build \($0))" } ?? ""))
        var rows = details.sources.map { source in
            (source.path, "\(source.version)" + (source.build.map { ", build \($0)" } ?? "") + "  (\(source.format))")
        }
        if details.origin == "tags" {
            rows.append(("from tags", details.versionTag.map { "\($0): no version file, so the version is the highest release tag reachable from HEAD" }
                ?? "no version file and no release tag yet, so the version starts at 0.0.0"))
            let shown = details.ignoredTags.prefix(5)
            for ignored in shown { rows.append(("ignored tag", "\(ignored.name) (\(ignored.reason))")) }
            if details.ignoredTags.count > shown.count {
                rows.append(("ignored tags", "\(details.ignoredTags.count - shown.count) more (see --json)"))
            }
        }
        for target in details.leftAlone ?? [] { rows.append(("left alone", target)) }
        for follower in details.outOfStep ?? [] { rows.append(("out of step", follower)) }
        for file in details.ignored ?? [] { rows.append(("ignored", file)) }
        if let package = context.package { rows.insert(("package", "\(package.name) (\(package.path)/, tags \(package.tagPrefix)X.Y.Z)"), at: 0) }
        rows.append(("last release tag", details.lastReleaseTag.map { "\($0) (\(details.lastReleaseCommit ?? "?"))" } ?? "none"))
        let width = rows.map(\.0.count).max() ?? 0
        for (key, value) in rows {
            session.out.line("  " + key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
        return ShiplaneExitCode.success.rawValue
    }

    /// `--all`: one line per package — name, version, where it was read, last release tag.
    private static func all(_ context: LaneContext, root: String, json: Bool, session: CommandSession) throws -> Int32 {
        let packages = try ProjectSettings.load(root: root).packages
        guard !packages.isEmpty else {
            throw UsageError("--all lists the packages of a monorepo, and \(ProjectSettings.fileName) declares none",
                             suggestion: "declare them: `packages: [{ name: core, path: packages/core }]`, or run `shiplane version`")
        }
        var rows: [(name: String, details: VersionDetails)] = []
        for package in packages {
            rows.append((package.name, try context.package(package.name).versionDetails()))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let payload = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0.details) })
            session.out.line(String(decoding: try encoder.encode(["packages": payload]), as: UTF8.self))
            return ShiplaneExitCode.success.rawValue
        }
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let versionWidth = rows.map(\.details.version.count).max() ?? 0
        for (name, details) in rows {
            let source = details.origin == "tags" ? "from tags" : details.sources.map(\.path).joined(separator: ", ")
            session.out.line(name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                + details.version.padding(toLength: versionWidth, withPad: " ", startingAt: 0) + "  "
                + source + "  (last release tag: \(details.lastReleaseTag ?? "none"))")
        }
        return ShiplaneExitCode.success.rawValue
    }
}
