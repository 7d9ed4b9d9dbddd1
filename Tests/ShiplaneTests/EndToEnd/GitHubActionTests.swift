import Foundation
import Testing
import Yams

/// The composite action (`action.yml`): its interface, and its run step executed by bash the way
/// the runner executes it, with the variables GitHub sets.
@Suite("action.yml: the composite GitHub Action")
struct GitHubActionTests {
    static func action() throws -> [String: Any] {
        let text = try String(contentsOfFile: packageRoot + "/action.yml", encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    @Test func itDeclaresItsInputsOutputsAndACompositeRun() throws {
        let action = try Self.action()
        let inputs = try #require(action["inputs"] as? [String: Any])
        #expect(Set(inputs.keys) == ["lane", "arguments", "working-directory", "dry-run"])
        let outputs = try #require(action["outputs"] as? [String: [String: Any]])
        #expect(outputs["version"]?["value"] as? String == "${{ steps.run.outputs.version }}")
        #expect(Set(outputs.keys) == ["version", "tag", "release_url"])
        let runs = try #require(action["runs"] as? [String: Any])
        #expect(runs["using"] as? String == "composite")
        let steps = try #require(runs["steps"] as? [[String: Any]])
        #expect(steps.contains { ($0["uses"] as? String)?.hasPrefix("actions/cache@") == true && ($0["with"] as? [String: Any])?["path"] as? String == "${{ runner.temp }}/shiplane-lanes" },
                "the lane cache is kept between jobs")
    }

    @Test func theRunStepBumpsAndWritesTheOutputsGitHubReads() throws {
        let action = try Self.action()
        let steps = try #require((action["runs"] as? [String: Any])?["steps"] as? [[String: Any]])
        let run = try #require(steps.first { $0["id"] as? String == "run" })
        let script = try #require(run["run"] as? String)
        let repo = try versionedRepository()
        let output = repo.root + "/github_output", summary = repo.root + "/step_summary"
        var environment = isolatedEnvironment(home: repo.root + "/home", extra: [
            "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": output, "GITHUB_STEP_SUMMARY": summary,
            "INPUT_LANE": "bump", "INPUT_ARGUMENTS": "minor --commit  --tag", "INPUT_DRY_RUN": "false",
        ])
        environment["PATH"] = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        let result = try runProgram("/bin/bash", ["-c", script], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("::group::bumpVersion bump=minor"), "GitHub output was asked for: \(result.stdout)")
        #expect(String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self) == "version=1.3.0\ntag=v1.3.0\n")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "v1.3.0")

        // Arguments are split on whitespace, never evaluated: a `$(…)` stays a word.
        environment["INPUT_ARGUMENTS"] = "patch $(touch injected)"
        let injected = try runProgram("/bin/bash", ["-c", script], in: repo.path, environment: environment)
        #expect(injected.status == 2, "\(injected.stdout)\(injected.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/injected"))
    }
}
