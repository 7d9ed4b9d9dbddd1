import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting
import HTTPTypes
import HummingbirdCore

/// `shiplane verify ADDRESS`: the release's files downloaded from the forge (GitHub's release by
/// tag and its web downloads, which redirect to a storage that refuses the API's token; Gitea's
/// release by tag and attachment downloads, against the stand-in checked by Gitea's published
/// description), then checked as a folder is, with the tag's commit as the forge gives it as the
/// provenance's expected source.
@Suite("verify a release from its forge address", .offThePool)
struct VerifyFromForgeTests {
    struct Release {
        var repo: TemporaryRepository
        var files: [String: [UInt8]]
        var commit: String
        var sshPublicKey: String
    }

    /// A repository tagged v1.0.0 and its release files as a lane makes them: the archive,
    /// SHA256SUMS, its SSH signature and the provenance signed by the same key.
    func release() throws -> Release {
        let repo = try TemporaryRepository()
        try repo.git("remote", "add", "origin", "https://github.com/acme/rocket.git")
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes of rocket 1.0.0")
        try repo.git("tag", "-a", "v1.0.0", "-m", "1.0.0")
        let key = try makeSSHKey(["-t", "ed25519"], named: "release", in: repo.root)
        let secret = try String(contentsOfFile: key, encoding: .utf8)
        let test = TestLaneContext(workingDirectory: repo.path, environment: ["SHIPLANE_SSH_SIGNING_KEY": secret, "SHIPLANE_ATTESTATION_KEY": secret])
        let sums = try test.context.checksums(["dist/rocket-1.0.0.tar.gz"], to: "dist/SHA256SUMS")
        _ = try test.context.sign([sums.path])
        _ = try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz", "dist/SHA256SUMS"], to: "dist/rocket-1.0.0.intoto.jsonl")
        var files: [String: [UInt8]] = [:]
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/dist/" + name)))
        }
        return Release(repo: repo, files: files, commit: try repo.git("rev-parse", "v1.0.0^{commit}"), sshPublicKey: key + ".pub")
    }

    /// The run's temporary folder: empty again after every run.
    func temporaryFolder(_ release: Release) throws -> String {
        let folder = release.repo.root + "/tmp"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aGitHubReleaseIsDownloadedAndEveryCheckPasses() async throws {
        let release = try release()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let id = github.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            github.addAsset(releaseID: id, name: name, bytes: release.files[name] ?? [])
        }
        github.setCommit(release.commit, forRef: "v1.0.0")
        let tmp = try temporaryFolder(release)
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp]
        let address = "\(github.baseURL)/acme/rocket/releases/tag/v1.0.0"

        let run = try await release.repo.shiplaneAsync(
            ["verify", address, "--forge", "github", "--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 4 files of acme/rocket v1.0.0 from GitHub; v1.0.0 is commit \(release.commit.prefix(12))"), "\(run.all)")
        #expect(run.stdout.contains("rocket-1.0.0.tar.gz"), "\(run.all)")
        #expect(run.stdout.contains("All "), "\(run.all)")
        #expect(!run.all.contains(github.token), "the token is never shown")
        // Every download went to the web route and its storage, without the API's token (the
        // storage refuses a request with one).
        #expect(github.log.filter { $0.hasPrefix("GET /storage/") }.count == 4, "\(github.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "the downloads are removed")

        // The repository's address and --tag say the same; --download-to keeps the files.
        let kept = release.repo.root + "/kept"
        let again = try await release.repo.shiplaneAsync(
            ["verify", "\(github.baseURL)/acme/rocket", "--tag", "v1.0.0", "--forge", "github", "--download-to", kept, "--ssh-key", release.sshPublicKey],
            environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: kept).sorted() == ["SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl", "rocket-1.0.0.tar.gz"])
        #expect(FileManager.default.contents(atPath: kept + "/rocket-1.0.0.tar.gz") == Data(release.files["rocket-1.0.0.tar.gz"] ?? []))
    }

    @Test func aChangedFileOrATagMovedToAnotherCommitFailsNamingIt() async throws {
        let release = try release()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let id = github.addRelease(tag: "v1.0.0", draft: false)
        for name in ["SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            github.addAsset(releaseID: id, name: name, bytes: release.files[name] ?? [])
        }
        // The archive on the forge is not the one released.
        github.addAsset(releaseID: id, name: "rocket-1.0.0.tar.gz", bytes: Array("archive bytes of rocket 1.0.1".utf8))
        github.setCommit(release.commit, forRef: "v1.0.0")
        let tmp = try temporaryFolder(release)
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp]
        let address = "\(github.baseURL)/acme/rocket/releases/tag/v1.0.0"
        let changed = try await release.repo.shiplaneAsync(["verify", address, "--forge", "github", "--ssh-key", release.sshPublicKey], environment: environment)
        #expect(changed.status == 1, "\(changed.all)")
        #expect(changed.stderr.contains("rocket-1.0.0.tar.gz"), "\(changed.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)

        // Every file intact, but the forge's tag now names another commit than the provenance's source.
        let good = FakeGitHub()
        try await good.start()
        defer { good.stop() }
        let goodID = good.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            good.addAsset(releaseID: goodID, name: name, bytes: release.files[name] ?? [])
        }
        let other = String(repeating: "b", count: 40)
        good.setCommit(other, forRef: "v1.0.0")
        let moved = try await release.repo.shiplaneAsync(
            ["verify", "\(good.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "github", "--attestation-key", release.sshPublicKey],
            environment: ["GITHUB_API_URL": good.baseURL, "GITHUB_TOKEN": good.token, "TMPDIR": tmp])
        #expect(moved.status == 1, "\(moved.all)")
        #expect(moved.all.contains(other), "the problem names the forge's commit: \(moved.all)")
        // --commit that is not the tag's commit on the forge is a problem before any file check.
        let given = try await release.repo.shiplaneAsync(
            ["verify", "\(good.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "github", "--commit", release.commit],
            environment: ["GITHUB_API_URL": good.baseURL, "GITHUB_TOKEN": good.token, "TMPDIR": tmp])
        #expect(given.status == 1, "\(given.all)")
        #expect(given.stderr.contains("is not the commit v1.0.0 points at on the forge"), "\(given.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    @Test func aGiteaReleaseIsDownloadedAndChecked() async throws {
        let release = try release()
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let id = gitea.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            gitea.addAttachment(releaseID: id, name: name, bytes: release.files[name] ?? [])
        }
        gitea.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let run = try await release.repo.shiplaneAsync(
            ["verify", "\(gitea.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "gitea", "--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey],
            environment: ["GITEA_TOKEN": gitea.token, "TMPDIR": tmp])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 4 files of acme/rocket v1.0.0 from Gitea; v1.0.0 is commit \(release.commit.prefix(12))"), "\(run.all)")
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
        #expect(!run.all.contains(gitea.token))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    /// A self-hosted GitLab release in a subgroup: its links (on another host, which never gets
    /// the token) are downloaded and checked, the tag's commit read from GitLab's tag answer;
    /// every request checked against GitLab's published description.
    @Test func aGitLabReleaseIsDownloadedAndChecked() async throws {
        let release = try release()
        let gitlab = FakeGitLab(projectPath: "acme/tools/rocket")
        try await gitlab.start()
        defer { gitlab.stop() }
        let files = release.files
        let storageHeaders = FileHeaders()
        let storage = try await TestServer.start { request, _ in
            _ = try await request.readBody(keeping: 0)
            storageHeaders.add(request.headers.map { "\($0.name.canonicalName.lowercased())" })
            let name = request.rawSegments.segments.last ?? ""
            guard let bytes = files[name] else { return Reply.text(404, "no such file") }
            return Reply.raw(200, bytes, contentType: "application/octet-stream", headers: [:])
        }
        defer { storage.stop() }
        gitlab.addRelease(tag: "v1.0.0")
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig"] {
            gitlab.addLink(tag: "v1.0.0", name: name, url: "\(storage.baseURL)/files/\(name)")
        }
        gitlab.addLink(tag: "v1.0.0", name: "rocket-1.0.0.intoto.jsonl", url: "\(storage.baseURL)/files/rocket-1.0.0.intoto.jsonl")
        gitlab.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let run = try await release.repo.shiplaneAsync(
            ["verify", "\(gitlab.baseURL)/acme/tools/rocket/-/releases/v1.0.0", "--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey],
            environment: ["GITLAB_TOKEN": gitlab.token, "TMPDIR": tmp])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 4 files of acme/tools/rocket v1.0.0 from GitLab; v1.0.0 is commit \(release.commit.prefix(12))"), "\(run.all)")
        #expect(run.stdout.contains("All "), "\(run.all)")
        // The log shows decoded segments; the stand-in finds the project only in one (encoded) segment.
        #expect(gitlab.log.contains("GET /api/v4/projects/acme/tools/rocket/releases/v1.0.0"), "\(gitlab.log)")
        #expect(gitlab.violations.isEmpty, "\(gitlab.violations)")
        #expect(!run.all.contains(gitlab.token))
        #expect(storageHeaders.all.count == 4)
        #expect(!storageHeaders.all.joined().contains("private-token"), "the token never goes to another host")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)

        // The tag on GitLab names another commit than the provenance's source.
        let other = FakeGitLab(projectPath: "acme/tools/rocket")
        try await other.start()
        defer { other.stop() }
        other.addRelease(tag: "v1.0.0")
        for name in ["rocket-1.0.0.tar.gz", "rocket-1.0.0.intoto.jsonl"] {
            other.addLink(tag: "v1.0.0", name: name, url: "\(storage.baseURL)/files/\(name)")
        }
        let moved = String(repeating: "c", count: 40)
        other.addTag("v1.0.0", commit: moved)
        let refused = try await release.repo.shiplaneAsync(
            ["verify", "\(other.baseURL)/acme/tools/rocket/-/releases/v1.0.0", "--forge", "gitlab", "--attestation-key", release.sshPublicKey],
            environment: ["GITLAB_TOKEN": other.token, "TMPDIR": tmp])
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.all.contains(moved), "\(refused.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    @Test func addressesThatNameNoReleaseAreUsageErrorsBeforeAnyRequest() throws {
        let repo = try TemporaryRepository()
        let cases: [([String], String)] = [
            (["verify", "https://code.example.org/acme/rocket/releases/tag/v1.0.0"], "cannot tell which forge code.example.org is"),
            (["verify", "https://github.com/acme/rocket"], "names a repository but no release"),
            (["verify", "https://gitlab.com/acme/rocket/-/tags/v1.0.0"], "names no GitLab release"),
            (["verify", "https://github.com/acme/rocket/releases/tag/v1.0.0", "--tag", "v2.0.0"], "the address names the release v1.0.0, --tag names v2.0.0"),
            (["verify", "https://github.com/acme/rocket/releases/tag/v1.0.0", "--forge", "bitbucket"], "--forge is github, gitea or gitlab, not bitbucket"),
            (["verify", "dist", "--tag", "v1.0.0"], "go with a release's address, not a folder"),
        ]
        for (arguments, message) in cases {
            let run = try repo.shiplane(arguments)
            #expect(run.status == 2, "\(arguments): \(run.all)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.all)")
        }
    }

    /// The release is not there: the forge's answer and what to check, exit 1, nothing left.
    @Test func aMissingReleaseSaysWhatToCheck() async throws {
        let repo = try TemporaryRepository()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let tmp = repo.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let run = try await repo.shiplaneAsync(["verify", "\(github.baseURL)/acme/rocket/releases/tag/v9.9.9", "--forge", "github"],
                                               environment: ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp])
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stderr.contains("GitHub answered HTTP 404 for the release of acme/rocket v9.9.9 on GitHub"), "\(run.all)")
        #expect(run.stderr.contains("check the address and the tag"), "\(run.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }
}

/// The header names each request to the stand-in storage carried.
private final class FileHeaders: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    func add(_ names: [String]) { lock.withLock { seen.append(names.joined(separator: ",")) } }
    var all: [String] { lock.withLock { seen } }
}
