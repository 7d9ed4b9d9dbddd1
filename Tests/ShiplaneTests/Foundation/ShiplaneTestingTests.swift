import Foundation
import ShiplaneTesting
import Testing

/// What a user's own lane test looks like with ShiplaneTesting.
struct DeployLane: Lane {
    @Option var target = "staging"
    func run(_ lane: LaneContext) async throws {
        try lane.ensureGitBranch(matching: "main")
        let version = try lane.bumpVersion(.minor)
        try await lane.sh("deploy", "--target", target, "--version", version.description)
    }
}

@Suite("ShiplaneTesting: lanes tested with recorded commands and fixture repositories")
struct ShiplaneTestingTests {
    @Test func aLaneRunsAgainstAFixtureWithRecordedCommands() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path)
        let result = try await test.run(DeployLane.self) { $0.target = "production" }
        #expect(result.succeeded)
        #expect(test.processes.commandLines == ["deploy --target production --version 1.1.0"])
        #expect(try String(contentsOfFile: fixture.path + "/VERSION", encoding: .utf8) == "1.1.0\n")
    }

    @Test func aScriptedFailureRollsBackTheBump() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path)
        test.processes.script(["deploy"], result: ProcessResult(exitCode: 3, lastLines: ["no such target"]))
        let result = try await test.run(DeployLane.self)
        #expect(result.failure?.failingStep?.step == "sh")
        #expect(try String(contentsOfFile: fixture.path + "/VERSION", encoding: .utf8) == "1.0.0\n")
    }

    @Test func aDryRunRunsNoCommandAndWritesNothing() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path, dryRun: true)
        let result = try await test.run(DeployLane.self, arguments: ["--target", "qa"])
        #expect(result.succeeded)
        #expect(test.processes.invocations.isEmpty)
        #expect(result.plannedWrites == ["VERSION"])
    }
}
