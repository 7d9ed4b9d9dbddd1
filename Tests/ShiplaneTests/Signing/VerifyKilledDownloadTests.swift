import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// `shiplane verify ADDRESS` SIGKILLed while it downloads: its temporary folder (named with its
/// process id) is left, and the next run removes it, since its process has ended.
@Suite("verify's download folder after a kill", .offThePool)
struct VerifyKilledDownloadTests {
    @Test func theNextRunRemovesTheFolderAKilledRunLeft() async throws {
        let repo = try TemporaryRepository()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let bytes = Array("archive bytes of rocket 1.0.0".utf8)
        let id = github.addRelease(tag: "v1.0.0", draft: false)
        github.addAsset(releaseID: id, name: "rocket-1.0.0.tar.gz", bytes: bytes)
        github.addAsset(releaseID: id, name: "SHA256SUMS", bytes: Array("\(SHA256.hex(of: bytes))  rocket-1.0.0.tar.gz\n".utf8))
        github.setCommit(String(repeating: "a", count: 40), forRef: "v1.0.0")
        // The first download is answered late: the run is killed while it waits.
        github.inject(FakeGitHub.Fault(method: "GET", pathContains: "/storage/", remaining: 1, action: .answerLate(seconds: 10)))
        let tmp = repo.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp, "PATH": "/usr/bin:/bin", "HOME": repo.root]
        let address = "\(github.baseURL)/acme/rocket/releases/tag/v1.0.0"

        let run = try SupervisedRun(["verify", address, "--forge", "github"], in: repo.path, environment: environment)
        func folders() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter { $0.hasPrefix("shiplane-verify-") } }
        run.wait { folders().count == 1 && github.log.contains { $0.hasPrefix("GET /storage/") } }
        let left = try #require(folders().first)
        #expect(left.hasPrefix("shiplane-verify-\(run.pid)-"), "named with the process id: \(left)")
        kill(run.pid, SIGKILL)
        let killed = run.finish()
        #expect(killed.status != 0)
        #expect(folders() == [left], "a SIGKILLed run cannot clean up")

        let again = try await repo.shiplaneAsync(["verify", address, "--forge", "github"], environment: environment)
        // The release holds no signature: its digests match, said with exit 9 (VerifyUnsignedReleaseTests).
        #expect(again.status == 9, "\(again.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "the killed run's folder is removed, and this run's own")
    }
}
