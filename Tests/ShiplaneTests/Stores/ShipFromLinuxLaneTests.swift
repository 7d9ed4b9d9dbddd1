import Foundation
import Testing
import Crypto

/// The seed lane of README.md's "Shipping an iOS app from Linux", taken from the README itself.
func readmeSeedLane() throws -> String {
    let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
    guard let start = readme.range(of: "```swift\n// Lanes/Beta.swift\n"),
          let end = readme.range(of: "\n```", range: start.upperBound..<readme.endIndex) else {
        throw TestFailure("README.md has no Lanes/Beta.swift block")
    }
    return String(readme[start.upperBound..<end.lowerBound]) + "\n"
}

@Suite("Stores: the README's ship-from-Linux lane through the CLI", .serialized, .offThePool)
struct StoresShipFromLinuxLaneTests {
    @Test func theSeedLaneShipsToTestFlightThenReleasesAndTells() async throws {
        let apple = try FakeAppStoreConnect()
        let github = FakeGitHub()
        let slack = FakeSlack()
        try await apple.start()
        try await github.start()
        try await slack.start()
        defer { apple.stop(); github.stop(); slack.stop() }
        let (repo, origin) = try releasableRepository(lane: try readmeSeedLane())
        try repo.write(".gitignore", ".build/\nbuild/\n")
        try repo.git("add", "-A")
        try repo.git("commit", "-q", "-m", "chore: the beta lane")
        try StoreFixtures.makeIPA(at: repo.path + "/build/App.ipa", version: "1.5.0", build: "8")
        var environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        environment["GITHUB_API_URL"] = github.baseURL
        environment["GITHUB_TOKEN"] = github.token
        environment["SLACK_WEBHOOK_URL"] = slack.webhookURL
        environment["SHIPLANE_POLL_INTERVAL"] = "0.01"

        let dry = try await repo.shiplaneAsync(["beta", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.stdout.contains("would upload com.acme.rocket 1.5.0 (8)"), "\(dry.stdout)")
        #expect(apple.log.allSatisfy { $0.hasPrefix("GET ") })
        #expect(apple.allUploads.isEmpty)

        let result = try await repo.shiplaneAsync(["beta"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        let build = try #require(apple.allBuilds.values.first)
        #expect(build.shortVersion == "1.5.0" && build.version == "8")
        #expect(build.groups == ["group-qa"])
        #expect(build.whatsNew["en-US"]?.contains("a new feature") == true)
        // Plain text for testers: no Markdown heading, bullets as •, no links; the dry run
        // rendered the same notes (the release being made, not [Unreleased]).
        let whatsNew = build.whatsNew["en-US"] ?? ""
        #expect(!whatsNew.contains("##") && !whatsNew.contains("](") && whatsNew.contains("• "), "\(whatsNew)")
        func notesNote(_ output: String) -> String? {
            output.range(of: #"en-US: \d+ characters"#, options: .regularExpression).map { String(output[$0]) }
        }
        #expect(notesNote(dry.stdout) != nil && notesNote(dry.stdout) == notesNote(result.stdout), "\(dry.stdout)\n\(result.stdout)")
        #expect(notesNote(result.stdout) == "en-US: \(whatsNew.count) characters")
        #expect(github.allReleases.first?.tag == "v1.5.0")
        #expect((slack.payloads.first?["text"] as? String)?.contains("1.5.0 (8)") == true)
        let remoteTags = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteTags == "v1.4.0\nv1.5.0\n")
        let keyBody = StoreFixtures.appleKey.pemRepresentation.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
        #expect(keyBody.allSatisfy { !result.all.contains($0) && !dry.all.contains($0) })
        #expect(!result.all.contains("eyJ"))
    }

    @Test func aStaleIPAStopsTheLaneBeforeAnythingIsUploadedOrPushed() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let (repo, origin) = try releasableRepository(lane: try readmeSeedLane())
        try repo.write(".gitignore", ".build/\nbuild/\n")
        try repo.git("add", "-A")
        try repo.git("commit", "-q", "-m", "chore: the beta lane")
        let head = try repo.git("rev-parse", "HEAD")
        try StoreFixtures.makeIPA(at: repo.path + "/build/App.ipa", version: "1.4.0", build: "7")
        var environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        environment["GITHUB_TOKEN"] = "ghp_NotUsedBecauseTheLaneStopsEarlier123"
        let result = try await repo.shiplaneAsync(["beta"], environment: environment)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.all.contains("the IPA is version 1.4.0, not 1.5.0"))
        #expect(apple.allUploads.isEmpty)
        #expect(try repo.git("rev-parse", "HEAD") == head, "the bump commit was rolled back")
        let remoteTags = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteTags == "v1.4.0\n")
    }
}
