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

@Suite("ShiplaneTesting: lanes tested with recorded commands and fixture repositories", .offThePool)
struct ShiplaneTestingTests {
    @Test func aLaneRunsAgainstAFixtureWithRecordedCommands() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path)
        test.processes.script(["deploy"], result: ProcessResult(exitCode: 0))
        let result = try await test.run(DeployLane.self) { $0.target = "production" }
        #expect(result.succeeded)
        #expect(test.processes.commandLines == ["deploy --target production --version 1.1.0"])
        #expect(try String(contentsOfFile: fixture.path + "/VERSION", encoding: .utf8) == "1.1.0\n")
    }

    /// A command no script answers fails the test (a known issue here) and the lane's step,
    /// naming the command; it never succeeds quietly, and the bump before it is rolled back.
    @Test func anUnscriptedCommandFailsTheTestNamingIt() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path)
        var result: LaneRunResult?
        try await withKnownIssue("the lane ran a command no script answers") {
            result = try await test.run(DeployLane.self)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("deploy --target staging --version 1.1.0") }
        }
        #expect(result?.succeeded == false)
        #expect(test.processes.unscriptedCommands.map(\.commandLine) == ["deploy --target staging --version 1.1.0"])
        #expect(result?.failure?.failingStep?.step == "sh")
        #expect(try String(contentsOfFile: fixture.path + "/VERSION", encoding: .utf8) == "1.0.0\n")
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

/// A release lane as a user writes one; its test asserts what GitHub would receive.
struct PublishLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = try lane.bumpVersion(.minor)
        try lane.commitVersionBump(version)
        try lane.addGitTag("v\(version)")
        try await lane.githubRelease(tag: "v\(version)", notes: "Wings", assets: ["VERSION"], repository: "acme/rocket")
    }
}

/// Calls a webhook that a test may leave unscripted.
struct WebhookLane: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.webhook("https://hooks.example.com/released", template: #"{"text": "released"}"#, values: [:])
    }
}

@Suite("ShiplaneTesting: recorded HTTP", .offThePool)
struct RecordingHTTPTests {
    @Test func aLaneTestSeesTheReleaseItWouldCreateWithoutAServer() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path, environment: ["GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"])
        test.http.respondLikeGitHub(repository: "acme/rocket")
        let result = try await test.run(PublishLane.self)
        #expect(result.succeeded, "\(String(describing: result.failure))")
        let release = try #require(test.http.githubReleases.first)
        #expect(test.http.githubReleases.count == 1)
        #expect(release.tagName == "v1.1.0" && release.body == "Wings" && !release.draft)
        #expect(release.assets?.map(\.name) == ["VERSION"])
        #expect(release.assets?.first?.size == 6)
        let upload = try #require(test.http.requests.first { $0.url.contains("/assets?name=VERSION") })
        #expect(upload.text == "1.1.0\n")
        #expect(upload.header("Authorization") == "Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyz")
        #expect(try fixture.git("log", "-1", "--format=%s") == "chore(release): 1.1.0")
    }

    /// A request no rule answers fails the test (a known issue here) and the lane's step, naming
    /// the request; it is never answered with a quiet 404.
    @Test func anUnscriptedRequestFailsTheTestNamingIt() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path)
        var result: LaneRunResult?
        try await withKnownIssue("the lane sent a request no rule answers") {
            result = try await test.run(WebhookLane.self)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("POST https://hooks.example.com/released") }
        }
        #expect(result?.succeeded == false)
        #expect(test.http.unscriptedRequests.map { "\($0.method) \($0.url)" } == ["POST https://hooks.example.com/released"])
        #expect(result?.failure?.failingStep?.step == "webhook")
    }

    @Test func aFailedUploadRollsBackTheReleaseItCreated() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path, environment: ["GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"])
        test.http.respondLikeGitHub(repository: "acme/rocket")
        test.http.respond { request in
            request.url.contains("/assets?name=") ? HTTPResponse(status: 422, body: Array(#"{"message": "bad"}"#.utf8)) : nil
        }
        let result = try await test.run(PublishLane.self)
        #expect(!result.succeeded)
        #expect(test.http.githubReleases.isEmpty, "the draft this run created was deleted")
        #expect(try String(contentsOfFile: fixture.path + "/VERSION", encoding: .utf8) == "1.0.0\n")
        #expect(try fixture.git("tag", "--list").isEmpty)
    }
}
