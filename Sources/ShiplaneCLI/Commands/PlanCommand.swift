import Foundation
import Shiplane

extension ShiplaneCommand {
    /// `shiplane plan LANE`: the parts of the lane's release (`lane.part`) as a CI matrix. The
    /// lane runs as a dry run that stops once its parts are known: steps before them only read,
    /// no part is built, nothing is written, pushed or sent.
    ///
    /// `shiplane plan` without a lane, in a monorepo (`.shiplane.yml` `packages`): the packages to
    /// release now as the parts of the matrix, in dependency waves (`PackagePlan`), one job per
    /// package running its `shiplane bump LEVEL --package NAME …`; GitHub's rows have the lane
    /// parts' keys (`part`, `runs-on`, `command`), so one workflow runs either.
    struct Plan: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Print the parts of a lane's release (lane.part), or a monorepo's packages to release, as a CI matrix: GitHub Actions, GitLab or Buildkite",
            discussion: "Standard output is the matrix alone; the dry run's steps go to standard error. Each part's job runs `shiplane LANE --part NAME`; the last job runs `shiplane LANE --fan-in`. Without a lane, in a monorepo: one job per changed package (and its dependents), wave by wave; --wave picks the wave a GitHub matrix lists."
        )
        @Option(help: ArgumentHelp(
            "github (strategy.matrix JSON for fromJSON), gitlab (child-pipeline YAML), buildkite (pipeline upload YAML) or json; detected from GITHUB_ACTIONS, GITLAB_CI or BUILDKITE, else json",
            valueName: "FORMAT"), completion: .list(PartsMatrix.formats))
        var format: String?
        @Option(help: "Without a lane, with --format github: the wave of packages the matrix lists (from 1)")
        var wave: Int?
        @Argument(help: "The lane whose parts to plan; without it, the monorepo's packages to release (.shiplane.yml packages)")
        var lane: String?
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
            guard let lane else { return try packages(invocation, format: chosen, laneArguments: laneArguments) }
            if wave != nil { throw UsageError("--wave is for a monorepo's packages: a lane's parts are one wave", suggestion: "run `shiplane plan \(lane)` without --wave") }
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

        /// The monorepo's packages to release now as the matrix (`PackagesMatrix`).
        private func packages(_ invocation: Invocation, format: String, laneArguments: [String]) throws -> Int32 {
            let session = invocation.session
            guard laneArguments.isEmpty, session.globals.part == nil, !session.globals.fanIn else {
                throw UsageError("plan without a lane plans the monorepo's packages and takes only --format and --wave", suggestion: "run `shiplane plan --format FORMAT`")
            }
            guard PartsMatrix.formats.contains(format) else {
                throw UsageError("plan --format takes \(PartsMatrix.formats.joined(separator: ", ")), not \(format)", suggestion: "write --format github, gitlab, buildkite or json")
            }
            if let wave, wave < 1 { throw UsageError("--wave counts from 1", suggestion: "write --wave 1 for the first wave") }
            let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
            guard !(try ProjectSettings.load(root: root).packages.isEmpty) else {
                throw UsageError("plan needs a lane's name, or a monorepo whose .shiplane.yml declares packages", suggestion: "run `shiplane plan LANE` (see `shiplane lanes`)")
            }
            session.out.line(try PackagesMatrix(plan: PackagePlan.make(root: root)).rendered(as: format, wave: wave))
            return ShiplaneExitCode.success.rawValue
        }
    }
}
