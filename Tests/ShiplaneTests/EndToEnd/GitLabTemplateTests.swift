import Foundation
import Testing
import Yams

/// The include-able GitLab CI template (`ci/gitlab/shiplane.gitlab-ci.yml`): its hidden job, and
/// its scripts run by bash the way a GitLab runner runs them — a detached checkout, GitLab's
/// variables, the template's variables expanded as GitLab expands them.
@Suite("ci/gitlab: the GitLab CI template", .offThePool)
struct GitLabTemplateTests {
    static func job() throws -> [String: Any] {
        let text = try String(contentsOfFile: packageRoot + "/ci/gitlab/shiplane.gitlab-ci.yml", encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        return try #require(document[".shiplane"] as? [String: Any])
    }

    /// before_script and script as one bash program, the way the runner concatenates them.
    static func program() throws -> String {
        let job = try job()
        let before = try #require(job["before_script"] as? [String])
        let script = try #require(job["script"] as? [String])
        return (before + script).joined(separator: "\n")
    }

    /// The template's variables with `$CI_PROJECT_DIR` expanded, then `extra`.
    static func variables(projectDir: String, extra: [String: String]) throws -> [String: String] {
        let declared = try #require(try job()["variables"] as? [String: Any])
        var variables: [String: String] = [:]
        for (name, value) in declared {
            variables[name] = "\(value)".replacingOccurrences(of: "$CI_PROJECT_DIR", with: projectDir)
        }
        for (name, value) in extra { variables[name] = value }
        return variables
    }

    @Test func itIsAHiddenJobWithHistoryReportsAndCaches() throws {
        let job = try Self.job()
        let variables = try #require(job["variables"] as? [String: Any])
        #expect("\(variables["GIT_DEPTH"] ?? "")" == "0", "tags and history")
        #expect(variables["SHIPLANE_CACHE_DIR"] as? String == "$CI_PROJECT_DIR/.shiplane/lanes")
        let reports = try #require((job["artifacts"] as? [String: Any])?["reports"] as? [String: Any])
        #expect(reports["junit"] as? String == "shiplane-junit.xml")
        #expect((job["artifacts"] as? [String: Any])?["when"] as? String == "always")
        let caches = try #require(job["cache"] as? [[String: Any]])
        #expect(caches.compactMap { $0["paths"] as? [String] }.flatMap { $0 } == [".shiplane/install/", ".shiplane/lanes/"])
        #expect(job["resource_group"] as? String == "shiplane-release", "one release at a time")
    }

    /// A branch pipeline: GitLab checks out a detached HEAD; the release commit goes to
    /// CI_COMMIT_BRANCH, GitLab's sections fold the steps, and both reports are written.
    @Test func aBranchPipelineReleasesFromTheDetachedCheckout() throws {
        let (repo, origin) = try bumpableWithOrigin()
        try repo.git("checkout", "-q", "--detach")
        var environment = isolatedEnvironment(home: repo.root + "/home", extra: try Self.variables(projectDir: repo.path, extra: [
            "GITLAB_CI": "true", "CI": "true", "CI_COMMIT_BRANCH": "main", "CI_PROJECT_DIR": repo.path,
            "SHIPLANE_LANE": "bump", "SHIPLANE_ARGUMENTS": "minor  --commit --tag --push $(touch injected)",
        ]))
        environment["PATH"] = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        let injected = try runProgram("/bin/bash", ["-c", try Self.program()], in: repo.path, environment: environment)
        #expect(injected.status == 2, "arguments are never evaluated: \(injected.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/injected"))

        environment["SHIPLANE_ARGUMENTS"] = "minor  --commit --tag --push"
        let run = try runProgram("/bin/bash", ["-c", try Self.program()], in: repo.path, environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("shiplane: using "), "\(run.all)")
        #expect(run.stdout.contains("section_start:"), "GitLab sections: \(run.stdout)")
        #expect(try origin.git("rev-parse", "refs/heads/main") == (try repo.git("rev-parse", "HEAD")), "origin's main has the release commit")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        let junit = (try? String(contentsOfFile: repo.path + "/shiplane-junit.xml", encoding: .utf8)) ?? ""
        #expect(junit.contains("<testsuite") && junit.contains("bumpVersion"), "\(junit)")
        let report = (try? String(contentsOfFile: repo.path + "/shiplane-report.json", encoding: .utf8)) ?? ""
        #expect(report.contains("\"outcome\""), "\(report)")
        #expect(try repo.git("status", "--porcelain").isEmpty, "the reports and caches stay out of git's status")
    }

    /// No shiplane on PATH or in the cache, and no repository to install it from: a clear error
    /// before anything is cloned or downloaded.
    @Test func withoutShiplaneOrARepositoryItSaysWhatToSet() throws {
        let (repo, _) = try bumpableWithOrigin()
        let environment = isolatedEnvironment(home: repo.root + "/home", extra: try Self.variables(projectDir: repo.path, extra: [
            "GITLAB_CI": "true", "CI_PROJECT_DIR": repo.path, "PATH": "/usr/local/bin:/usr/bin:/bin",
            "SHIPLANE_REPOSITORY": "", "SHIPLANE_GIT_URL": "",
        ]))
        let run = try runProgram("/bin/bash", ["-c", try Self.program()], in: repo.path, environment: environment)
        #expect(run.status == 4, "\(run.all)")
        #expect(run.stderr.contains("SHIPLANE_REPOSITORY and SHIPLANE_GIT_URL are empty: set SHIPLANE_REPOSITORY to Shiplane's GitHub repository"), "\(run.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.shiplane/install"))
    }

    /// In a Swift image (no curl, no wget, no sudo): the job clones Shiplane's repository at the
    /// release's tag for its installer, downloads the bundle with what the image has, checks it
    /// against SHA256SUMS, caches it, and runs the lane with it; the next job takes it from the cache.
    @Test func itInstallsTheBundleInAnImageWithoutCurl() async throws {
        let (repo, _) = try bumpableWithOrigin()
        let shiplaneSource = try ActionBundleInstallTests.shiplaneSource()
        let releases = ActionBundleInstallTests.Releases(files: try ActionBundleInstallTests.linuxFiles(repo.root))
        let server = try await TestServer.start { request, _ in releases.handle(request) }
        defer { server.stop() }
        let image = try ActionBundleInstallTests.imagePath(in: repo.root, downloader: "python3", more: ["git", "grep"])
        let environment = isolatedEnvironment(home: repo.root + "/home", extra: try Self.variables(projectDir: repo.path, extra: [
            "GITLAB_CI": "true", "CI": "true", "CI_COMMIT_BRANCH": "main", "CI_PROJECT_DIR": repo.path, "PATH": image,
            "SHIPLANE_VERSION": ActionBundleInstallTests.version, "SHIPLANE_REPOSITORY": "owner/shiplane",
            "SHIPLANE_GIT_URL": shiplaneSource.path, "SHIPLANE_RELEASES_URL": server.baseURL + "/owner/shiplane/releases/download",
            "SHIPLANE_RELEASE_KEYRING": ActionBundleInstallTests.keyring(repo.root), "SHIPLANE_LANE": "lanes",
        ]))
        let run = try await runProgramAsync("/bin/bash", ["-c", try Self.program()], in: repo.path, environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stderr.contains("Shiplane 9.1.0 installed in \(repo.path)/.shiplane/install from shiplane-9.1.0-linux-x86_64.tar.gz"), "\(run.all)")
        #expect(run.stderr.contains("downloaded with python3"), "\(run.all)")
        #expect(run.stdout.contains("shiplane 9.1.0 from the bundle"), "the lane ran with the installed bundle: \(run.all)")
        #expect(releases.requests.contains("/owner/shiplane/releases/download/v9.1.0/shiplane-9.1.0-linux-x86_64.tar.gz"), "\(releases.requests)")
        #expect(try repo.git("status", "--porcelain").isEmpty, "the installed bundle stays out of git's status")
        // The next job of the same version: from the cache, nothing downloaded.
        let before = releases.requests.count
        let again = try await runProgramAsync("/bin/bash", ["-c", try Self.program()], in: repo.path, environment: environment, timeout: 120)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stdout.contains("shiplane: 9.1.0 from the cache"), "\(again.all)")
        #expect(releases.requests.count == before)
    }

    /// A repository at 1.2.3 (VERSION, tag v1.2.3) whose origin is a bare repository holding main.
    func bumpableWithOrigin() throws -> (TemporaryRepository, TemporaryRepository) {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        return (repo, origin)
    }
}
