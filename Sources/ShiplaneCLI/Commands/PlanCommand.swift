import Foundation
import Shiplane

extension ShiplaneCommand {
    /// `shiplane plan LANE`: the parts of the lane's release (`lane.part`) as a CI matrix. The
    /// lane runs as a dry run that stops once its parts are known: steps before them only read,
    /// no part is built, nothing is written, pushed or sent.
    struct Plan: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Print the parts of a lane's release (lane.part) as a CI matrix: GitHub Actions, GitLab or Buildkite",
            discussion: "Standard output is the matrix alone; the dry run's steps go to standard error. Each part's job runs `shiplane LANE --part NAME`; the last job runs `shiplane LANE --fan-in`."
        )
        @Option(help: ArgumentHelp(
            "github (strategy.matrix JSON for fromJSON), gitlab (child-pipeline YAML), buildkite (pipeline upload YAML) or json; detected from GITHUB_ACTIONS, GITLAB_CI or BUILDKITE, else json",
            valueName: "FORMAT"), completion: .list(PartsMatrix.formats))
        var format: String?
        @Argument(help: "The lane whose parts to plan")
        var lane: String
        @Argument(parsing: .captureForPassthrough, help: "The lane's options, as its jobs will pass them")
        var laneArguments: [String] = []

        func run(_ invocation: Invocation) async throws -> Int32 {
            // `--format` after the lane's name is plan's too (`shiplane plan release --format github`).
            var laneArguments = laneArguments
            var given = format
            if given == nil, let index = laneArguments.firstIndex(where: { $0 == "--format" || $0.hasPrefix("--format=") }) {
                if laneArguments[index] == "--format" {
                    guard index + 1 < laneArguments.count else { throw UsageError("plan --format needs a value", suggestion: "write --format github, gitlab, buildkite or json") }
                    given = laneArguments[index + 1]
                    laneArguments.removeSubrange(index...(index + 1))
                } else {
                    given = String(laneArguments[index].dropFirst("--format=".count))
                    laneArguments.remove(at: index)
                }
            }
            let chosen = given ?? PartsMatrix.detectedFormat(environment: invocation.environment)
            guard PartsMatrix.formats.contains(chosen) else {
                throw UsageError("plan --format takes \(PartsMatrix.formats.joined(separator: ", ")), not \(chosen)", suggestion: "write --format github, gitlab, buildkite or json")
            }
            if invocation.session.globals.part != nil || invocation.session.globals.fanIn {
                throw UsageError("plan lists every part: --part and --fan-in are for the jobs it plans", suggestion: "run `shiplane plan \(lane)` without them")
            }
            var globals = invocation.session.globals
            globals.plan = chosen
            globals.dryRun = true
            let session = try CommandSession(
                globals: globals, rest: [lane] + laneArguments, environment: invocation.environment, currentDirectory: invocation.session.currentDirectory)
            return try await ShiplaneCommandLine.runLanes(session: session, environment: invocation.environment, executable: invocation.executable)
        }
    }
}
