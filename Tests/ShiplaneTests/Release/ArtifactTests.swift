import Foundation
import Shiplane
import ShiplaneTesting
import Testing

/// Artifacts are values the run keeps: `archive`, `checksums` and `artifact` return them with
/// their SHA-256 (checked with `sha256sum` as the oracle), `lane.artifacts` lists them, the
/// publishing steps take them beside plain paths, and a file changed after it was made is
/// refused before anything uses it.
@Suite("Artifacts: kind, path, SHA-256, kept by the run", .offThePool)
struct ArtifactTests {
    private func oracle(_ path: String) throws -> String? {
        try runTool(["sha256sum", path]).output.split(separator: " ").first.map(String.init)
    }

    @Test func archiveChecksumsAndABuildAreTheRunsArtifactsInOrder() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n", "build/app": "#!/bin/sh\necho app\n"])
        let lane = TestLaneContext(workingDirectory: fixture.path).context
        let archive = try lane.archive("VERSION", to: "dist/app.tar.gz")
        let binary = try lane.artifact("build/app", kind: .binary, os: "linux", arch: "x86_64")
        let sums = try lane.checksums([archive, binary, "VERSION"], to: "dist/SHA256SUMS")
        #expect(lane.artifacts == [archive, binary, sums])
        #expect(lane.artifacts.map(\.kind) == [.archive, .binary, .checksums])
        #expect(lane.artifacts.map(\.path) == ["dist/app.tar.gz", "build/app", "dist/SHA256SUMS"], "relative to the repository")
        #expect(binary.os == "linux" && binary.arch == "x86_64" && binary.name == "app")
        for artifact in lane.artifacts {
            #expect(artifact.sha256 == (try oracle(fixture.path + "/" + artifact.path)), "\(artifact.path)")
        }
        #expect("\(archive)" == "dist/app.tar.gz", "an artifact reads as its path")
        let listed = try String(contentsOfFile: fixture.path + "/dist/SHA256SUMS", encoding: .utf8)
        #expect(listed.contains("\(archive.sha256)  app.tar.gz") && listed.contains("\(binary.sha256)  app"))
    }

    @Test func aKindIsGuessedFromTheNameWhenNotGiven() throws {
        let fixture = try FixtureRepository(files: [
            "dist/app.sig": "s", "dist/app.spdx.json": "{}", "dist/app.intoto.jsonl": "{}", "dist/app.zip": "z", "dist/notes.txt": "n",
        ])
        let lane = TestLaneContext(workingDirectory: fixture.path).context
        let kinds = try ["dist/app.sig", "dist/app.spdx.json", "dist/app.intoto.jsonl", "dist/app.zip", "dist/notes.txt"].map { try lane.artifact($0).kind }
        #expect(kinds == [.signature, .sbom, .provenance, .archive, .other])
    }

    @Test func aMissingFileIsNoArtifact() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let lane = TestLaneContext(workingDirectory: fixture.path).context
        let error = #expect(throws: StepFailure.self) { try lane.artifact("build/app") }
        #expect(allText(of: try #require(error)).contains("build/app is not a file, so it cannot be an artifact"))
        #expect(lane.artifacts.isEmpty)
    }

    /// A file changed after the step that made it is refused where it is used (both digests
    /// named), before anything is written or sent.
    @Test func anArtifactChangedSinceItWasMadeIsRefusedBeforeUse() async throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let test = TestLaneContext(workingDirectory: fixture.path, environment: ["GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"])
        test.http.respondLikeGitHub(repository: "acme/rocket")
        let lane = test.context
        let archive = try lane.archive("VERSION", to: "dist/app.tar.gz")
        try Data("tampered".utf8).write(to: URL(fileURLWithPath: fixture.path + "/dist/app.tar.gz"))
        let now = try #require(try oracle(fixture.path + "/dist/app.tar.gz"))
        let sums = #expect(throws: StepFailure.self) { try lane.checksums([archive], to: "dist/SHA256SUMS") }
        #expect(allText(of: try #require(sums)).contains("dist/app.tar.gz holds sha256:\(now), but a step of this run made it with sha256:\(archive.sha256)"))
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "/dist/SHA256SUMS"))
        await #expect(throws: StepFailure.self) {
            try await lane.githubRelease(tag: "v1.0.0", assets: ["dist/app.tar.gz"], repository: "acme/rocket")
        }
        #expect(test.http.requests.isEmpty, "nothing was sent: \(test.http.requests.map(\.url))")
    }
}
