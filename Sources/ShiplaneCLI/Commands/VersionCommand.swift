import Foundation
import Shiplane

/// The options of `shiplane version`.
struct VersionOptions: ParsableArguments {
    static let summary = "The current version: where it was read from, and the last release tag"

    @Flag(help: "Print the details as JSON")
    var json = false
}

/// `shiplane version [--json]`: the current version, each file it was read from (or the release
/// tag, when no version file exists), the last release tag.
enum VersionCommand {
    static func run(session: CommandSession, arguments: [String]) throws -> Int32 {
        let options: VersionOptions
        do {
            options = try VersionOptions.parse(arguments)
        } catch {
            if VersionOptions.exitCode(for: error) == .success {
                session.out.line("shiplane version — \(VersionOptions.summary)")
                session.out.line("")
                session.out.line(commandHelp(VersionOptions.helpMessage(), commandLine: "shiplane version"))
                return ShiplaneExitCode.success.rawValue
            }
            throw UsageError("version: \(VersionOptions.message(for: error))", suggestion: "run `shiplane version --help`")
        }
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let context = LaneContext(.init(workingDirectory: root, environment: session.laneEnvironment, reporter: RecordingReporter()))
        let details = try context.versionDetails()
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
        rows.append(("last release tag", details.lastReleaseTag.map { "\($0) (\(details.lastReleaseCommit ?? "?"))" } ?? "none"))
        let width = rows.map(\.0.count).max() ?? 0
        for (key, value) in rows {
            session.out.line("  " + key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
        return ShiplaneExitCode.success.rawValue
    }
}
