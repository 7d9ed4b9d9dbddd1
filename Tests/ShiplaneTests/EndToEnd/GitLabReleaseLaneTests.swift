import Foundation
import Testing

/// A lane that publishes v1.4.0 with the forge-neutral `release`: on a gitlab.com origin, GitLab.
private let forgeNeutralLane = #"""
import Shiplane
struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.release(tag: "v1.4.0", notes: "notes of 1.4.0", assets: [".build/release/app.tar.gz"])
    }
}
"""#

/// The releasable repository of the release lane tests, its origin on gitlab.com (pushing to the local bare repository).
private func gitLabRepository(lane: String = forgeNeutralLane, host: String = "gitlab.com") throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
    let (repo, origin) = try releasableRepository(lane: lane)
    let url = "https://\(host)/acme/rocket.git"
    try repo.git("remote", "set-url", "origin", url)
    try repo.git("config", "url.\(origin.path).insteadOf", url)
    return (repo, origin)
}

@Suite("GitLab releases from a lane: release picks GitLab, the built shiplane against the GitLab stand-in", .serialized, .offThePool)
struct GitLabReleaseLaneTests {
    private func environment(_ gitlab: FakeGitLab) -> [String: String] {
        ["CI_SERVER_URL": gitlab.baseURL, "GITLAB_TOKEN": gitlab.token]
    }

    private func started() async throws -> FakeGitLab {
        let gitlab = FakeGitLab()
        try await gitlab.start()
        gitlab.addTag("v1.4.0")
        return gitlab
    }

    @Test func releasePublishesOnGitLabFromAGitLabOrigin() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository()
        let result = try await repo.shiplaneAsync(["publish", "--verbose"], environment: environment(gitlab))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("releasing on GitLab (from the origin remote's host gitlab.com)"), "\(result.all)")
        let release = try #require(gitlab.allReleases.first)
        #expect(release.tag == "v1.4.0" && release.description == "notes of 1.4.0")
        #expect(release.links.map(\.name) == ["app.tar.gz"])
        #expect(release.links.first?.url.hasSuffix("/projects/acme%2Frocket/packages/generic/rocket/v1.4.0/app.tar.gz") == true)
        #expect(gitlab.allFiles.map { String(decoding: $0.bytes, as: UTF8.self) } == ["pretend archive bytes"])
        #expect(!result.all.contains(gitlab.token))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))

        // The same command again finds everything in place: nothing is sent but reads.
        let before = gitlab.log.count
        let again = try await repo.shiplaneAsync(["publish"], environment: environment(gitlab))
        #expect(again.status == 0, "\(again.all)")
        #expect(gitlab.log[before...].allSatisfy { $0.hasPrefix("GET ") }, "\(gitlab.log[before...])")
        #expect(gitlab.allReleases.count == 1 && gitlab.allFiles.count == 1)
    }

    @Test func aDryRunNamesTheForgeAndChangesNothing() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository()
        let result = try await repo.shiplaneAsync(["publish", "--dry-run"], environment: environment(gitlab))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would publish v1.4.0 in GitLab project acme/rocket with 1 asset"), "\(result.all)")
        #expect(gitlab.log.allSatisfy { $0.hasPrefix("GET ") })
        #expect(gitlab.allReleases.isEmpty && gitlab.allFiles.isEmpty)
    }

    @Test func aMissingTokenIsNamedAndNothingIsSent() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository()
        let result = try await repo.shiplaneAsync(["publish"], environment: ["CI_SERVER_URL": gitlab.baseURL])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("GITLAB_TOKEN") && result.stderr.contains("CI_JOB_TOKEN"), "\(result.all)")
        #expect(gitlab.log.isEmpty)
    }

    /// GitLab refuses the release after the file went to the package registry: the run takes
    /// back the point of no return it passed and its rollback deletes the file; with
    /// `--no-rollback` the file stays until `shiplane rollback` deletes it through the same undo.
    @Test(arguments: [false, true])
    func aRefusedReleaseLeavesNoPackageFile(rollbackLater: Bool) async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        gitlab.failNext(1, method: "POST", path: "/releases", status: 403, body: #"{"message":"403 Forbidden"}"#, contentType: "application/json")
        let (repo, _) = try gitLabRepository()
        let failed = try await repo.shiplaneAsync(["publish"] + (rollbackLater ? ["--no-rollback"] : []), environment: environment(gitlab))
        #expect(failed.status == 1, "\(failed.all)")
        #expect(failed.stderr.contains("not allowed to create the release v1.4.0"), "\(failed.all)")
        #expect(gitlab.allReleases.isEmpty)
        if rollbackLater {
            #expect(gitlab.allFiles.count == 1, "kept by --no-rollback")
            let record = String(decoding: FileManager.default.contents(atPath: repo.path + "/.git/shiplane/run.json") ?? Data(), as: UTF8.self)
            #expect(record.contains("gitlab.package-file") && !record.contains(gitlab.token), "\(record)")
            let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment(gitlab))
            #expect(rollback.status == 0, "\(rollback.all)")
            #expect(!rollback.all.contains(gitlab.token))
        }
        #expect(gitlab.allFiles.isEmpty, "the package file was deleted: \(gitlab.log)")
        #expect(gitlab.log.contains { $0.hasPrefix("DELETE /api/v4/projects/acme/rocket/packages/") })
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(!failed.all.contains(gitlab.token))
    }

    /// The lane program killed while GitLab has stored the file but not yet answered: the record
    /// holds the upload without ids, so the supervisor finds the file by its name and digest and
    /// deletes it.
    @Test func aFileWhoseAnswerNeverCameIsFoundAndDeletedAfterAKill() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        gitlab.inject(.init(method: "PUT", pathContains: "/packages/generic/", remaining: 1, action: .answerLate(seconds: 60)))
        let (repo, _) = try gitLabRepository()
        var environment = repo.environment
        for (key, value) in self.environment(gitlab) { environment[key] = value }
        let run = try SupervisedRun(["publish"], in: repo.path, environment: environment)
        run.wait { !gitlab.allFiles.isEmpty }
        #expect(gitlab.allFiles.count == 1, "the upload landed: \(gitlab.log)")
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        #expect(gitlab.allFiles.isEmpty, "found by name and digest and deleted: \(gitlab.log)")
        #expect(gitlab.allReleases.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(all)")
        #expect(!all.contains(gitlab.token))
    }

    /// Killed while GitLab makes the release (it is public as soon as it exists): the run is
    /// past its point of no return, so nothing is undone, and the same command finishes it —
    /// one release, one file, one link.
    @Test func aReleaseCutShortByAKillIsFinishedByTheSameCommand() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        gitlab.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .answerLate(seconds: 60)))
        let (repo, _) = try gitLabRepository()
        var environment = repo.environment
        for (key, value) in self.environment(gitlab) { environment[key] = value }
        let run = try SupervisedRun(["publish"], in: repo.path, environment: environment)
        run.wait { !gitlab.allReleases.isEmpty }
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 75, "\(all)")
        #expect(gitlab.allReleases.count == 1 && gitlab.allFiles.count == 1, "nothing public was undone")
        let again = try await repo.shiplaneAsync(["publish"], environment: self.environment(gitlab))
        #expect(again.status == 0, "\(again.all)")
        #expect(gitlab.allReleases.map(\.tag) == ["v1.4.0"])
        #expect(gitlab.allReleases.first?.links.map(\.name) == ["app.tar.gz"])
        #expect(gitlab.allFiles.count == 1, "not uploaded twice")
        #expect(gitlab.log.filter { $0 == "POST /api/v4/projects/acme/rocket/releases" }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
    }

    /// In GitLab CI the project and API come from the CI's variables and the job token is sent as
    /// JOB-TOKEN, whatever the origin says.
    @Test func inGitLabCITheJobTokenAndProjectIDAreUsed() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository(host: "git.internal.example")
        let result = try await repo.shiplaneAsync(["publish"], environment: [
            "GITLAB_CI": "true", "CI": "true", "CI_API_V4_URL": gitlab.apiURL, "CI_PROJECT_ID": "42", "CI_JOB_TOKEN": gitlab.jobToken,
            "CI_COMMIT_TAG": "v1.4.0",
        ])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("releasing on GitLab (from GITLAB_CI)"), "\(result.all)")
        #expect(gitlab.allReleases.map(\.tag) == ["v1.4.0"])
        #expect(gitlab.log.contains("POST /api/v4/projects/42/releases"))
        #expect(gitlab.requestHeaders.allSatisfy { $0["job-token"] == gitlab.jobToken && $0["private-token"] == nil })
        #expect(!result.all.contains(gitlab.jobToken))
    }

    /// The same release made in GitLab CI (the project is the numeric CI_PROJECT_ID), then again
    /// from a checkout: one generic package, named after the project both times, and the second
    /// run finds the file unchanged instead of uploading it into a package of its own.
    @Test func aReleaseMadeInCIAndThenFromACheckoutUsesOnePackage() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository()
        let inCI = try await repo.shiplaneAsync(["publish"], environment: [
            "GITLAB_CI": "true", "CI": "true", "CI_API_V4_URL": gitlab.apiURL, "CI_PROJECT_ID": "42", "CI_PROJECT_PATH": "acme/rocket",
            "CI_PROJECT_NAME": "rocket", "CI_JOB_TOKEN": gitlab.jobToken, "CI_COMMIT_TAG": "v1.4.0",
        ])
        #expect(inCI.status == 0, "\(inCI.all)")
        #expect(gitlab.log.contains { $0.hasPrefix("PUT /api/v4/projects/42/packages/generic/rocket/v1.4.0/app.tar.gz") }, "\(gitlab.log)")
        let fromCheckout = try await repo.shiplaneAsync(["publish", "--verbose"], environment: environment(gitlab))
        #expect(fromCheckout.status == 0, "\(fromCheckout.all)")
        #expect(fromCheckout.all.contains("unchanged app.tar.gz"), "\(fromCheckout.all)")
        #expect(gitlab.allFiles.count == 1 && Set(gitlab.allFiles.map(\.packageID)).count == 1, "one file in one package")
        #expect(gitlab.allReleases.count == 1)
    }

    /// The same lane on a github.com origin releases on GitHub: moving forge changes no lane.
    @Test func theSameLaneReleasesOnGitHubFromAGitHubOrigin() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, _) = try releasableRepository(lane: forgeNeutralLane)
        let result = try await repo.shiplaneAsync(["publish"], environment: ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("releasing on GitHub (from the origin remote's host github.com)"), "\(result.all)")
        #expect(github.allReleases.map(\.tag) == ["v1.4.0"] && github.allReleases.allSatisfy { !$0.draft })
        #expect(github.allAssets.map(\.name) == ["app.tar.gz"])
    }

    /// A self-hosted host nothing names is a usage error that says how to declare it; declared in
    /// `.shiplane.yml`, the same lane releases there.
    @Test func anUnknownHostMustBeDeclared() async throws {
        let gitlab = try await started()
        defer { gitlab.stop() }
        let (repo, _) = try gitLabRepository(host: "git.internal.example")
        let refused = try await repo.shiplaneAsync(["publish"], environment: environment(gitlab))
        #expect(refused.status == 2, "\(refused.all)")
        #expect(refused.stderr.contains("cannot tell which forge git.internal.example runs"), "\(refused.all)")
        #expect(refused.stderr.contains("git.internal.example: gitlab"), "\(refused.all)")
        #expect(gitlab.log.isEmpty)
        try repo.write(".shiplane.yml", "forge:\n  hosts:\n    git.internal.example: gitlab\n")
        let released = try await repo.shiplaneAsync(["publish"], environment: environment(gitlab))
        #expect(released.status == 0, "\(released.all)")
        #expect(gitlab.allReleases.map(\.tag) == ["v1.4.0"])
    }
}

@Suite("The release lane on GitLab killed after every step, then run again", .serialized, .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct GitLabReleaseLaneFaultTests {
    /// DESIGN.md's release lane with `release` instead of `githubRelease`, on a gitlab.com origin:
    /// the lane program's process group gets SIGKILL after each step, `shiplane` settles the run
    /// (rolled back before the push, left unfinished after it), and the same command again ends in
    /// exactly one release: one tag here and on origin, one GitLab release with one link, one
    /// package file, one message. The lane is `quickReleaseLane`'s (its build a short child command,
    /// its asset made by an `archive` step: no `swift build` of the package in each repository).
    @Test func killedAfterEveryStepTheSameCommandMakesExactlyOneGitLabRelease() async throws {
        let lane = quickReleaseLane.replacingOccurrences(of: "lane.githubRelease(", with: "lane.release(")
        var fired = 0
        for step in 1...15 {
            let gitlab = FakeGitLab()
            let slack = FakeSlack()
            try await gitlab.start()
            try await slack.start()
            defer { gitlab.stop(); slack.stop() }
            let (repo, origin) = try gitLabRepository(lane: lane)
            // GitLab knows the tags pushed to it: the bare repository the lane pushes to.
            let bare = origin.path, environmentOfGit = origin.environment
            gitlab.pushedTags = { tag in
                (try? runProgram("/usr/bin/git", ["--git-dir", bare, "rev-parse", "--verify", "-q", "refs/tags/" + tag], in: bare,
                                 environment: environmentOfGit).status) == 0
            }
            let start = try repo.git("rev-parse", "HEAD")
            let environment = ["CI_SERVER_URL": gitlab.baseURL, "GITLAB_TOKEN": gitlab.token, "SLACK_WEBHOOK_URL": slack.webhookURL]
            let killed = try await repo.shiplaneAsync(["release"], environment: environment.merging(["SHIPLANE_FAULT": "after-step:\(step)"]) { $1 })
            if killed.status == 0 { break }
            fired += 1
            #expect(killed.status == 130 || killed.status == 75, "after step \(step): \(killed.all)")
            if killed.status == 130 {
                #expect(try repo.git("rev-parse", "HEAD") == start, "after step \(step): \(killed.all)")
                #expect(gitlab.allReleases.isEmpty && gitlab.allFiles.isEmpty && slack.payloads.isEmpty, "after step \(step)")
            }
            let again = try await repo.shiplaneAsync(["release"], environment: environment)
            #expect(again.status == 0, "after step \(step): \(again.all)")
            #expect(try repo.git("tag", "--list") == "v1.4.0\nv1.5.0", "after step \(step)")
            #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.5.0", "after step \(step)")
            #expect(gitlab.allReleases.map(\.tag) == ["v1.5.0"], "after step \(step)")
            #expect(gitlab.allReleases.first?.links.map(\.name) == ["app.tar.gz"], "after step \(step)")
            #expect(gitlab.allFiles.count == 1, "after step \(step): \(gitlab.allFiles.count) package files")
            #expect(gitlab.allReleases.first?.description.contains("a new feature") == true, "after step \(step)")
            #expect(slack.payloads.count == 1, "after step \(step): \(slack.payloads.count) messages")
            #expect(!again.all.contains(gitlab.token) && !killed.all.contains(gitlab.token))
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "after step \(step)")
        }
        #expect(fired >= 8, "the fault fired after each of the lane's steps")
    }
}
