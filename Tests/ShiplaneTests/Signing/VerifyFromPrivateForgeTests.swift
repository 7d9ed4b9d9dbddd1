import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// `shiplane verify` on a private GitHub or Gitea release: the files come with the forge's token,
/// on the forge's own scheme, host and port only. GitHub's assets come from their API address with
/// `Accept: application/octet-stream` (its web download answers 404 for a private repository),
/// which redirects to a storage on another loopback server; Gitea's attachments come from
/// `/attachments/UUID` with the token, redirected to another server as Gitea's direct serving of
/// an object storage does. Neither storage ever sees the token.
extension VerifyFromForgeTests {
    @Test func aPrivateGitHubReleaseIsFetchedThroughTheAPIAndTheStorageNeverSeesTheToken() async throws {
        let release = try release()
        let github = FakeGitHub()
        github.privateRepository = true
        try await github.start()
        defer { github.stop() }
        let id = github.addRelease(tag: "v1.0.0", draft: false)
        var assetIDs: [Int] = []
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            assetIDs.append(github.addAsset(releaseID: id, name: name, bytes: release.files[name] ?? []))
        }
        github.setCommit(release.commit, forRef: "v1.0.0")
        let tmp = try temporaryFolder(release)
        let run = try await release.repo.shiplaneAsync(
            ["verify", "\(github.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "github",
             "--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey],
            environment: ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "TMPDIR": tmp])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 4 files of acme/rocket v1.0.0 from GitHub"), "\(run.all)")
        #expect(run.stdout.contains("All "), "\(run.all)")
        #expect(!run.all.contains(github.token))
        // Each asset by its API address (which the stand-in answers only with the token), then
        // from the other server, which saw no Authorization header at all.
        for assetID in assetIDs {
            #expect(github.log.contains("GET /repos/acme/rocket/releases/assets/\(assetID)"), "\(github.log)")
            #expect(github.log.contains("GET /storage/\(assetID)"), "\(github.log)")
        }
        #expect(!github.log.contains { $0.contains("/releases/download/") }, "not the web route: \(github.log)")
        #expect(github.storageAuthorizationHeaders.count == 4)
        #expect(github.storageAuthorizationHeaders.allSatisfy { $0 == nil }, "\(github.storageAuthorizationHeaders)")
        #expect(github.violations.isEmpty, "\(github.violations)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    @Test func aPrivateGiteaReleaseIsFetchedWithTheTokenAndItsStorageNeverSeesIt() async throws {
        let release = try release()
        let gitea = FakeGitea()
        gitea.privateRepository = true
        gitea.storageOnAnotherServer = true
        try await gitea.start()
        defer { gitea.stop() }
        let id = gitea.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            gitea.addAttachment(releaseID: id, name: name, bytes: release.files[name] ?? [])
        }
        gitea.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let address = "\(gitea.baseURL)/acme/rocket/releases/tag/v1.0.0"
        let keys = ["--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey]
        for variable in ["GITEA_TOKEN", "FORGEJO_TOKEN"] {
            let before = gitea.attachmentAuthorizationHeaders.count
            let run = try await release.repo.shiplaneAsync(["verify", address, "--forge", "gitea"] + keys, environment: [variable: gitea.token, "TMPDIR": tmp])
            #expect(run.status == 0, "\(variable): \(run.all)")
            #expect(run.stdout.contains("Downloaded 4 files of acme/rocket v1.0.0 from Gitea"), "\(run.all)")
            #expect(!run.all.contains(gitea.token))
            let sent = gitea.attachmentAuthorizationHeaders[before...]
            #expect(sent.count == 4 && sent.allSatisfy { $0 == "token \(gitea.token)" }, "\(sent)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        }
        #expect(gitea.storageAuthorizationHeaders.count == 8)
        #expect(gitea.storageAuthorizationHeaders.allSatisfy { $0 == nil }, "\(gitea.storageAuthorizationHeaders)")
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }
}
