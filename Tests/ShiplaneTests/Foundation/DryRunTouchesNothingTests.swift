import Foundation
import ShiplaneTesting
import Testing

/// Calls every built-in action, in the order a release uses them.
struct EveryAction: Lane {
    @Option var origin = ""
    @Option var outside = ""

    func run(_ lane: LaneContext) async throws {
        try lane.ensureGitBranch(matching: "main")
        try lane.ensureGitStatusClean(ignoring: ["NOTES.md"])
        _ = try lane.version()
        let version = try lane.bumpVersion(.minor)
        _ = try await lane.updateLockFiles(version)
        _ = try lane.updateDependencyRequirements()
        let build = try lane.incrementBuildNumber()
        _ = try lane.changelog()
        _ = try lane.storeNotes(for: .googlePlay)
        let notes = try lane.writeChangelog(version: version.description)
        let archive = try lane.archive(["Sources", "VERSION"], to: "dist/app-\(version).tar.gz")
        let sums = try lane.checksums([archive], to: "dist/SHA256SUMS")
        _ = try lane.artifact("VERSION", kind: .other)
        try lane.commitVersionBump(version, build, notes, allowOtherChanges: true)
        try lane.gitCommit(paths: ["NOTES.md"], message: "docs: release notes")
        try lane.addGitTag("v\(version)")
        _ = try lane.gitTagExists("v\(version)")
        _ = try lane.lastGitTag()
        _ = try lane.numberOfCommits()
        try await lane.push(tags: ["v\(version)"])
        try lane.copyToDirectory([archive, sums], directory: outside + "/releases/\(version)")
        try await lane.githubRelease(tag: "v\(version)", notes: notes.section, assets: [archive, sums], repository: "acme/rocket")
        try await lane.release(tag: "v\(version)", notes: notes.section, assets: [archive, sums], forge: .github(repository: "acme/rocket"))
        try await lane.gitlabRelease(tag: "v\(version)", notes: notes.section, assets: [archive, sums], project: "acme/rocket",
                                     server: "https://gitlab.example.com")
        try await lane.giteaRelease(tag: "v\(version)", notes: notes.section, assets: [archive, sums], repository: "acme/rocket",
                                    server: "https://code.example.org")
        try await lane.upload([archive], to: "https://files.example.com/app/{version}/{name}", version: version.description)
        _ = try await lane.ensureTool("git", version: ">= 2.0")
        _ = try await lane.sh("make", "release")
        try await lane.slack("Released \(version)")
        try await lane.webhook("https://hooks.example.com/released", template: #"{"text": "{{v}}"}"#, values: ["v": version.description])
        let announcement = Announcement(title: "Released \(version)", text: notes.section, version: version.description)
        try await lane.discord(announcement)
        try await lane.teams(announcement)
        try await lane.mattermost(announcement)
        try await lane.announce(announcement, to: [.googleChat()])
        try await lane.email(to: ["team@example.com"], subject: "Released \(version)", text: notes.section)
    }
}

@Suite("A dry run of every built-in action touches nothing", .offThePool)
struct DryRunTouchesNothingTests {
    /// Every file and folder under `root`: its path, kind, mode and the hash of its bytes.
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let manager = FileManager.default
        for relative in manager.subpaths(atPath: root) ?? [] {
            let path = root + "/" + relative
            let attributes = try manager.attributesOfItem(atPath: path)
            let kind = (attributes[.type] as? FileAttributeType)?.rawValue ?? "?"
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            var entry = "\(kind) \(String(mode, radix: 8))"
            if (attributes[.type] as? FileAttributeType) == .typeRegular, let data = manager.contents(atPath: path) {
                entry += " " + SHA256.hex(of: data)
            }
            result[relative] = entry
        }
        return result
    }

    @Test func everyActionInADryRunLeavesTheTreeAndItsSurroundingsByteIdentical() async throws {
        let root = NSTemporaryDirectory() + "shiplane-dry-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = root + "/repo", origin = root + "/origin.git", outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        #expect(try runTool(["git", "init", "-q", "--bare", "-b", "main", origin]).status == 0)
        let fixture = try FixtureRepository(files: [
            "VERSION": "1.4.0\n", "App.xcconfig": "MARKETING_VERSION = 1.4.0\nCURRENT_PROJECT_VERSION = 41\n",
            "Sources/main.swift": "print(1)\n",
        ])
        try FileManager.default.moveItem(atPath: fixture.path, toPath: repo)
        defer { try? FileManager.default.moveItem(atPath: repo, toPath: fixture.path) }
        for arguments in [["tag", "-a", "v1.4.0", "-m", "1.4.0"], ["commit", "-q", "--allow-empty", "-m", "feat: wings"],
                          ["remote", "add", "origin", origin], ["push", "-q", "origin", "main"]] {
            #expect(try runTool(["git", "-C", repo] + arguments).status == 0)
        }
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: repo + "/NOTES.md"))   // for gitCommit: a real change
        let before = try Self.snapshot(root)

        let test = TestLaneContext(
            workingDirectory: repo,
            environment: ["GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz", "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/x",
                          "GITLAB_TOKEN": "glpat-0123456789abcdefghij", "GITEA_TOKEN": "0123456789abcdef0123456789abcdef01234567",
                          "DISCORD_WEBHOOK_URL": "https://discord.com/api/webhooks/123/abc", "TEAMS_WEBHOOK_URL": "https://example.webhook.office.com/workflows/x",
                          "MATTERMOST_WEBHOOK_URL": "https://chat.example.com/hooks/xyz",
                          "GOOGLE_CHAT_WEBHOOK_URL": "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=k&token=t", "SMTP_HOST": "smtp.example.com", "SMTP_FROM": "releases@example.com",
                          "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
            dryRun: true
        )
        test.http.respondLikeGitHub(repository: "acme/rocket")
        // GitLab and Gitea: the project and repository exist, no release or tag yet (the dry run's
        // tag is not pushed). Every read is scripted: an unscripted request fails the test.
        test.http.respond(.get, "https://gitlab.example.com/api/v4/projects/acme%2Frocket/releases?per_page=1", json: "[]")
        test.http.respond(.get, "https://gitlab.example.com/api/v4/projects/acme%2Frocket/releases/v1.5.0", status: 404,
                          json: #"{"message": "404 Not Found"}"#)
        test.http.respond(.get, "https://gitlab.example.com/api/v4/projects/acme%2Frocket/repository/tags/v1.5.0", status: 404,
                          json: #"{"message": "404 Tag Not Found"}"#)
        test.http.respond(.get, "https://gitlab.example.com/api/v4/projects/acme%2Frocket/packages?", json: "[]")
        test.http.respond(.get, "https://code.example.org/api/v1/repos/acme/rocket", json: #"{"id": 1, "full_name": "acme/rocket"}"#)
        test.http.respond(.get, "https://code.example.org/api/v1/repos/acme/rocket/releases/tags/", status: 404, json: #"{"message": "not found"}"#)
        test.http.respond(.get, "https://code.example.org/api/v1/repos/acme/rocket/tags/", status: 404, json: #"{"message": "not found"}"#)
        test.http.respond(.get, "https://code.example.org/api/v1/repos/acme/rocket/releases?", json: "[]")
        test.processes.script(["git", "--version"], result: ProcessResult(exitCode: 0, standardOutput: "git version 2.39.5\n"))
        let result = try await test.run(EveryAction.self, arguments: ["--origin", origin, "--outside", outside]) {
            _ = $0
        }
        #expect(result.succeeded, "\(String(describing: result.failure))")
        let ran = Set(result.steps.map(\.name))
        // The store uploads need a store to talk to: their dry runs are tested against the loopback
        // App Store Connect and Google Play stand-ins (TestFlightUploadTests, PlayStoreUploadTests).
        // releaseFromTag publishes a tag at HEAD, which this release's history has not: its dry run
        // is checked on a tag pipeline's checkout below (`releaseFromTagInADryRunTouchesNothing`).
        // sbom, provenance, sign, uploadToS3 and homebrewFormula need lock files, a signing key, an
        // S3 server or a tap: their dry runs are checked in SBOMActionTests, ReproducibleAttestationTests,
        // ArtifactSignatureTests, S3UploadTests and HomebrewTapTests (not yet in this lane).
        // pushImage needs a registry: its dry run is checked against docker-registry in ImagePushTests.
        // publishToSwiftRegistry and pushPodspec need a package registry or trunk: their dry runs are
        // checked in SwiftRegistryTests and CocoaPodsTrunkTests. bitbucketRelease needs the Bitbucket
        // stand-in and an origin that names bitbucket.org: its dry run is checked in BitbucketReleaseTests.
        // part is a lane's structure: its dry run is `shiplane plan`, which FanOutReleaseTests
        // (planPrintsTheMatrixOfEachCI) checks leaves the tree as it was.
        let checkedElsewhere: Set<String> = ["releaseFromTag", "sbom", "provenance", "sign", "uploadToS3", "homebrewFormula", "pushImage",
                                             "publishToSwiftRegistry", "pushPodspec", "bitbucketRelease", "part"]
        let missing = ActionCatalog.all.filter { $0.domain != "Stores" && !checkedElsewhere.contains($0.name) }.map(\.name).filter { !ran.contains($0) }
        #expect(missing.isEmpty, "the lane must call every built-in action; it missed \(missing)")

        #expect(try Self.snapshot(root) == before, "a dry run wrote, created or removed something")
        let writes = test.http.requests.filter { $0.method != "GET" && $0.method != "HEAD" }
        #expect(writes.isEmpty, "a dry run sent \(writes.map { "\($0.method) \($0.url)" })")
        #expect(test.http.unscriptedRequests.isEmpty, "every read the dry run makes is one the test expects")
        #expect(test.processes.commandLines == ["git --version"], "only read-only commands run")
        #expect(result.plannedWrites.contains("VERSION") && result.plannedWrites.contains("CHANGELOG.md"))
    }

    /// A tag pipeline's checkout: the release tag at HEAD. The dry run finds the tag, its version
    /// and the previous tag, and leaves the tree byte-identical.
    @Test func releaseFromTagInADryRunTouchesNothing() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.4.0\n"])
        for arguments in [["tag", "-a", "v1.3.0", "-m", "1.3.0"], ["commit", "-q", "--allow-empty", "-m", "feat: wings"],
                          ["tag", "-a", "v1.4.0", "-m", "1.4.0"]] {
            #expect(try runTool(["git", "-C", fixture.path] + arguments).status == 0)
        }
        let before = try Self.snapshot(fixture.path)
        let release = try TestLaneContext(workingDirectory: fixture.path, dryRun: true).context.releaseFromTag()
        #expect(release.tag == "v1.4.0" && release.previousTag == "v1.3.0", "\(release)")
        #expect(try Self.snapshot(fixture.path) == before, "a dry run wrote, created or removed something")
    }
}
