import Foundation
import Testing
import ShiplaneCLI

@Suite("CI-native output: GitHub Actions groups, annotations, step summary and outputs; GitLab sections", .offThePool)
struct CIOutputTests {
    private func githubEnvironment(_ repo: TemporaryRepository) -> [String: String] {
        ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": repo.root + "/summary.md", "GITHUB_OUTPUT": repo.root + "/output.txt"]
    }

    private func read(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    @Test func aBumpUnderGitHubActionsWritesGroupsTheSummaryAndItsOutputs() throws {
        let repo = try versionedRepository()
        try Data("earlier=1\n".utf8).write(to: URL(fileURLWithPath: repo.root + "/output.txt"))
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag"], environment: githubEnvironment(repo))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("::group::bumpVersion bump=minor\n"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "::endgroup::\n").count - 1 == 3, "one group per step: \(result.stdout)")
        #expect(read(repo.root + "/output.txt") == "earlier=1\nversion=1.3.0\ntag=v1.3.0\n", "appended, in GitHub's name=value format")
        let summary = read(repo.root + "/summary.md")
        #expect(summary.hasPrefix("### shiplane bump succeeded ✅\n"), "\(summary)")
        #expect(summary.contains("| # | step | called at | time | result |"))
        #expect(summary.contains("| 1 | bumpVersion |"), "\(summary)")
        #expect(summary.contains("Outputs: `version` = `1.3.0`, `tag` = `v1.3.0`"), "\(summary)")
    }

    /// A usage error ends the command before any step: the job's page still says why, in an
    /// annotation and the step summary (bad global options too, before any session exists).
    @Test func aUsageErrorIsAnnotatedAndSummarised() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", "--nonsense"], environment: githubEnvironment(repo))
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stdout.contains("::error title=lane bump failed::"), "\(result.stdout)")
        let summary = read(repo.root + "/summary.md")
        #expect(summary.hasPrefix("### shiplane bump failed ❌\n"), "\(summary)")
        #expect(summary.contains("Exit code 2") && summary.contains("say how to bump"), "\(summary)")
        let global = try repo.shiplane(["--report-json"], environment: githubEnvironment(repo))
        #expect(global.status == 2, "\(global.all)")
        #expect(read(repo.root + "/summary.md").components(separatedBy: "### shiplane").count - 1 == 2, "appended: \(read(repo.root + "/summary.md"))")
    }

    @Test func aFailingLaneIsAnnotatedAtItsLine() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Ship.swift", """
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                lane.setOutput("channel", "beta")
                try await lane.sh("sh", "-c", "echo 'upload failed: 50%, retry later' >&2; exit 7")
            }
        }
        """)
        let result = try repo.shiplane(["ship"], environment: githubEnvironment(repo))
        #expect(result.status == 1, "\(result.all)")
        let annotation = result.stdout.split(separator: "\n").first { $0.hasPrefix("::error ") }.map(String.init) ?? ""
        #expect(annotation.hasPrefix("::error file=Lanes/Ship.swift,line=5,title=lane ship failed::"), "\(result.stdout)")
        #expect(annotation.contains("exited with code 7"), "\(annotation)")
        // A failed run's outputs are not written: a later step must not act on them.
        #expect(!FileManager.default.fileExists(atPath: repo.root + "/output.txt"), "\(read(repo.root + "/output.txt"))")
        let summary = read(repo.root + "/summary.md")
        #expect(summary.hasPrefix("### shiplane ship failed ❌\n"), "\(summary)")
        #expect(!summary.contains("Outputs:") && !summary.contains("beta"), "\(summary)")
        #expect(summary.contains("<details open><summary>Error</summary>") && summary.contains("sh failed at Lanes/Ship.swift:5"), "\(summary)")
    }

    /// A bump that fails after it wrote the version (the tag exists) is rolled back: GITHUB_OUTPUT
    /// gets no `version=1.3.0` for a later step to publish, and the summary lists no outputs.
    @Test func aFailedRolledBackRunWritesNoOutputs() throws {
        let repo = try versionedRepository()
        try repo.git("tag", "v1.3.0")
        try Data("earlier=1\n".utf8).write(to: URL(fileURLWithPath: repo.root + "/output.txt"))
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag"], environment: githubEnvironment(repo))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("tag v1.3.0 exists"), "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n", "rolled back")
        #expect(read(repo.root + "/output.txt") == "earlier=1\n", "nothing appended: \(read(repo.root + "/output.txt"))")
        let summary = read(repo.root + "/summary.md")
        #expect(summary.hasPrefix("### shiplane bump failed ❌\n") && !summary.contains("Outputs:"), "\(summary)")
    }

    @Test func anUnwritableStepSummaryIsAWarningAndTheReleaseStands() throws {
        let repo = try versionedRepository()
        var environment = githubEnvironment(repo)
        environment["GITHUB_STEP_SUMMARY"] = repo.root + "/no-such-folder/summary.md"
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stderr.components(separatedBy: "warning: could not write GITHUB_STEP_SUMMARY").count - 1 == 1, "said once: \(result.stderr)")
        #expect(read(repo.root + "/output.txt") == "version=1.3.0\ntag=v1.3.0\n", "the outputs are still written")
        #expect(repo.read("VERSION") == "1.3.0\n")
        #expect(try repo.git("tag", "--list", "v1.3.0") == "v1.3.0")
    }

    /// CI reads the reports whatever the exit code: usage errors (2), compile errors (3), and
    /// global options that cannot be parsed write them too.
    @Test(arguments: [
        (["bump", "sideways"], Int32(2), "usage-error"),
        (["bump", "patch", "--bogus"], Int32(2), "usage-error"),
        (["broken"], Int32(3), "compile-error"),
        (["--ci", "travis", "lanes"], Int32(2), "usage-error"),
    ])
    func errorsBeforeAnyStepStillWriteTheReports(arguments: [String], code: Int32, outcome: String) throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Broken.swift", "import Shiplane\nstruct Broken: Lane {\n    func run(_ lane: LaneContext) async throws { lane.nope() }\n}\n")
        let result = try repo.shiplane(["--report-json", "report.json", "--junit", "junit.xml"] + arguments)
        #expect(result.status == code, "\(result.all)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(read(repo.path + "/report.json").utf8)) as? [String: Any], "\(result.all)")
        #expect(report["outcome"] as? String == outcome)
        #expect((report["exitCode"] as? NSNumber)?.int32Value == code)
        #expect(((report["error"] as? [String: Any])?["message"] as? String)?.isEmpty == false)
        let junit = read(repo.path + "/junit.xml")
        #expect(junit.contains(#"tests="1" failures="1""#) && junit.contains("<failure message="), "\(junit)")
    }

    @Test func workflowCommandsAreEscaped() {
        #expect(CIPlatformEscaping.data("50% done\nnext") == "50%25 done%0Anext")
        #expect(CIPlatformEscaping.property("Lanes/a,b:c") == "Lanes/a%2Cb%3Ac")
    }

    @Test func gitLabGetsCollapsibleSectionsAndNoneGetsNothing() throws {
        let repo = try versionedRepository()
        let gitlab = try repo.shiplane(["bump", "patch"], environment: ["GITLAB_CI": "true"])
        #expect(gitlab.status == 0, "\(gitlab.all)")
        #expect(gitlab.stdout.contains("section_start:") && gitlab.stdout.contains(":step_1[collapsed=true]\r\u{1B}[0KbumpVersion"), "\(gitlab.stdout)")
        #expect(gitlab.stdout.contains("section_end:") && gitlab.stdout.contains(":step_1\r\u{1B}[0K"))
        let off = try repo.shiplane(["bump", "patch", "--ci", "none"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(off.status == 0 && !off.stdout.contains("::group::"), "\(off.stdout)")
        let wrong = try repo.shiplane(["bump", "patch", "--ci", "jenkins"])
        #expect(wrong.status == 2 && wrong.stderr.contains("--ci takes github, gitlab or none"), "\(wrong.all)")
    }
}

@Suite("JUnit for GitLab and Jenkins", .offThePool)
struct JUnitFileLineTests {
    @Test func stepsAreNamedByWhatRanAndWhereWithFileAndLine() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Loop.swift", """
        import Shiplane
        struct Loop: Lane {
            func run(_ lane: LaneContext) async throws {
                for _ in 0..<2 { try await lane.sh("true") }
                try await lane.sh("false")
            }
        }
        """)
        let junit = repo.root + "/junit.xml"
        let result = try repo.shiplane(["loop", "--junit", junit])
        #expect(result.status == 1, "\(result.all)")
        let xml = String(decoding: FileManager.default.contents(atPath: junit) ?? Data(), as: UTF8.self)
        #expect(xml.contains(#"<testcase classname="loop" name="sh (Lanes/Loop.swift:4)" file="Lanes/Loop.swift" line="4" time=""#), "\(xml)")
        #expect(xml.contains(#"name="sh (Lanes/Loop.swift:4) #2" file="Lanes/Loop.swift" line="4""#), "\(xml)")
        #expect(xml.contains(#"name="sh (Lanes/Loop.swift:5)" file="Lanes/Loop.swift" line="5""#), "\(xml)")
        #expect(xml.contains(#"<failure message="`false` exited with code 1">"#), "\(xml)")
    }
}
