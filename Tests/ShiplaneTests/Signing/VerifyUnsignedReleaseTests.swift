import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// `shiplane verify` on a release published `--unsigned` (the archive, its SBOM and SHA256SUMS
/// over both; no signature file, no provenance): it says the release carries no signature and
/// what it could check, with exit 9, whether keys were given or not, from a folder or from the
/// forge; a changed file in such a release is still exit 1, naming it.
@Suite("verify on a release that carries no signature", .offThePool)
struct VerifyUnsignedReleaseTests {
    /// An unsigned release as the release lane's `--unsigned` makes it, in `dist/`.
    func unsignedRelease() throws -> (repo: TemporaryRepository, files: [String: [UInt8]], key: String) {
        let repo = try TemporaryRepository()
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes of rocket 1.0.0")
        try repo.write("Package.resolved", #"{"pins":[],"version":2}"#)
        let test = TestLaneContext(workingDirectory: repo.path)
        let tarball = try test.context.artifact("dist/rocket-1.0.0.tar.gz", kind: .archive)
        let sbom = try test.context.sbom(to: "dist/rocket-1.0.0.cdx.json", artifacts: [tarball], lockFiles: ["Package.resolved"], name: "rocket", version: "1.0.0")
        _ = try test.context.checksums([tarball, sbom], to: "dist/SHA256SUMS")
        var files: [String: [UInt8]] = [:]
        for name in ["rocket-1.0.0.tar.gz", "rocket-1.0.0.cdx.json", "SHA256SUMS"] {
            files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/dist/" + name)))
        }
        let key = try makeSSHKey(["-t", "ed25519"], named: "release", in: repo.root)
        return (repo, files, key + ".pub")
    }

    @Test func aFolderWithNoSignatureSaysWhatWasCheckedWithExit9() throws {
        let (repo, _, key) = try unsignedRelease()
        for keys in [[], ["--ssh-key", key], ["--attestation-key", key]] {
            let run = try repo.shiplane(["verify", "dist"] + keys)
            #expect(run.status == 9, "\(keys): \(run.all)")
            #expect(run.stdout.contains("✓ rocket-1.0.0.tar.gz    SHA-256 matches SHA256SUMS"), "\(run.all)")
            #expect(run.stdout.contains("✓ rocket-1.0.0.cdx.json  SHA-256 matches SHA256SUMS"), "\(run.all)")
            #expect(run.stdout.contains("rocket-1.0.0.cdx.json  names exactly the 1 release file"), "\(run.all)")
            #expect(!run.stdout.contains("checks passed"), "never said as a pass: \(run.all)")
            #expect(run.stderr.contains("the release carries no signature (no .sig, .minisig or .asc file, no provenance): only the SHA-256 of 2 files against SHA256SUMS was checked, and they match"), "\(run.all)")
            #expect(run.stderr.contains("not who made them"), "\(run.all)")
            #expect(!run.stderr.contains("has no good signature by the keys given"), "not the generic problem: \(run.all)")
        }
        // The exit code is in the one table `shiplane help` prints.
        let help = try repo.shiplane(["help"])
        #expect(help.stdout.contains("  9    verify: the release carries no signature; only its digests were checked"), "\(help.stdout)")
    }

    @Test func aChangedFileInAnUnsignedReleaseIsStillAProblemNamingIt() throws {
        let (repo, _, _) = try unsignedRelease()
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes of rocket 1.0.1")
        let run = try repo.shiplane(["verify", "dist"])
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stderr.contains("rocket-1.0.0.tar.gz: its SHA-256 does not match SHA256SUMS"), "\(run.all)")
        #expect(!run.stderr.contains("carries no signature"), "\(run.all)")
    }

    @Test func anUnsignedGitHubReleaseIsDownloadedAndSaidUnsigned() async throws {
        let (repo, files, key) = try unsignedRelease()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let id = github.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "rocket-1.0.0.cdx.json", "SHA256SUMS"] {
            github.addAsset(releaseID: id, name: name, bytes: files[name] ?? [])
        }
        github.setCommit(String(repeating: "a", count: 40), forRef: "v1.0.0")
        let tmp = repo.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let run = try await repo.shiplaneAsync(
            ["verify", "\(github.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "github", "--ssh-key", key],
            environment: ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp])
        #expect(run.status == 9, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 3 files of acme/rocket v1.0.0 from GitHub"), "\(run.all)")
        #expect(run.stderr.contains("the release carries no signature"), "\(run.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }
}
