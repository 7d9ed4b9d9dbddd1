import Foundation
import Shiplane

/// `shiplane version [--json]`: the current version, each file it was read from, the last release tag.
enum VersionCommand {
    static func run(session: CommandSession, arguments: [String]) throws -> Int32 {
        let unknown = arguments.filter { $0 != "--json" }
        guard unknown.isEmpty else {
            throw UsageError("shiplane version takes only --json, not \(unknown.joined(separator: " "))")
        }
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let context = LaneContext(.init(workingDirectory: root, environment: session.laneEnvironment, reporter: RecordingReporter()))
        let details = try context.versionDetails()
        if arguments.contains("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            session.out.line(String(decoding: try encoder.encode(details), as: UTF8.self))
            return ShiplaneExitCode.success.rawValue
        }
        session.out.line(details.version + (details.build.map { " (build \($0))" } ?? ""))
        let width = max(details.sources.map(\.path.count).max() ?? 0, "last release tag".count)
        for source in details.sources {
            let build = source.build.map { ", build \($0)" } ?? ""
            session.out.line("  " + source.path.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(source.version)\(build)  (\(source.format))")
        }
        let tag = details.lastReleaseTag.map { "\($0) (\(details.lastReleaseCommit ?? "?"))" } ?? "none"
        session.out.line("  " + "last release tag".padding(toLength: width, withPad: " ", startingAt: 0) + "  \(tag)")
        return ShiplaneExitCode.success.rawValue
    }
}
