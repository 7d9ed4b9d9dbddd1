import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting
import HTTPTypes
import HummingbirdCore

/// `shiplane verify` on a GitLab release whose files live on the GitLab server itself (generic
/// packages, project uploads, the links' permalinks): the token goes to that server (same scheme,
/// host and port) and to nothing else, not across a redirect either; the links come page by page;
/// a link whose file is gone, or too large, is named. Every API request is checked against
/// GitLab's published description.
extension VerifyFromForgeTests {
    /// A private project (the stand-in answers nothing without its token) whose release links
    /// are its own files: two generic packages by their permalinks (as Shiplane's GitLab publisher
    /// links them), one by the package's address, one project upload; the links come in two
    /// pages. Verified with GITLAB_TOKEN, then with CI_JOB_TOKEN; refused without a token.
    @Test func aPrivateProjectsOwnFilesAreDownloadedWithTheToken() async throws {
        let release = try release()
        let gitlab = FakeGitLab(projectPath: "acme/tools/rocket")
        gitlab.pageSize = 2
        try await gitlab.start()
        defer { gitlab.stop() }
        gitlab.addRelease(tag: "v1.0.0")
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "SHA256SUMS.sig"] {
            gitlab.addPackageFile(package: "rocket", version: "1.0.0", name: name, bytes: release.files[name] ?? [])
            gitlab.addLink(tag: "v1.0.0", name: name, url: gitlab.packageFileURL(package: "rocket", version: "1.0.0", name: name),
                           directAssetPath: name == "SHA256SUMS.sig" ? nil : "/" + name)
        }
        let upload = gitlab.addUpload(name: "rocket-1.0.0.intoto.jsonl", bytes: release.files["rocket-1.0.0.intoto.jsonl"] ?? [])
        gitlab.addLink(tag: "v1.0.0", name: "rocket-1.0.0.intoto.jsonl", url: upload)
        gitlab.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let address = "\(gitlab.baseURL)/acme/tools/rocket/-/releases/v1.0.0"
        let keys = ["--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey]

        for (variable, token, header) in [("GITLAB_TOKEN", gitlab.token, "private-token"), ("CI_JOB_TOKEN", gitlab.jobToken, "job-token")] {
            let before = gitlab.log.count
            let run = try await release.repo.shiplaneAsync(["verify", address] + keys, environment: [variable: token, "TMPDIR": tmp])
            #expect(run.status == 0, "\(variable): \(run.all)")
            #expect(run.stdout.contains("Downloaded 4 files of acme/tools/rocket v1.0.0 from GitLab"), "\(run.all)")
            #expect(run.stdout.contains("All "), "\(run.all)")
            #expect(!run.all.contains(token))
            let log = Array(gitlab.log[before...])
            #expect(log.filter { $0 == "GET /api/v4/projects/acme/tools/rocket/releases/v1.0.0/assets/links" }.count == 2, "two pages of links: \(log)")
            #expect(log.contains("GET /acme/tools/rocket/-/releases/v1.0.0/downloads/rocket-1.0.0.tar.gz"), "the permalink is preferred: \(log)")
            #expect(log.contains("GET /acme/tools/rocket/-/releases/v1.0.0/downloads/SHA256SUMS"), "\(log)")
            #expect(log.filter { $0.hasPrefix("GET /api/v4/projects/42/packages/generic/rocket/1.0.0/") }.count == 3, "\(log)")
            #expect(log.contains { $0.hasPrefix("GET /-/project/42/uploads/") }, "\(log)")
            // Every request to the GitLab server carried the token, in the header its kind takes.
            #expect(gitlab.requestHeaders[before...].allSatisfy { $0[header] == token })
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        }
        #expect(gitlab.violations.isEmpty, "\(gitlab.violations)")

        let refused = try await release.repo.shiplaneAsync(["verify", address] + keys, environment: ["TMPDIR": tmp])
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("GitLab answered HTTP 401 for the release of acme/tools/rocket v1.0.0 on GitLab"), "\(refused.all)")
        #expect(refused.stderr.contains("set GITLAB_TOKEN"), "\(refused.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    /// Links whose files are elsewhere: one on another server, one whose permalink on GitLab
    /// redirects there, one generic package GitLab redirects to its object storage, and one
    /// permalink redirecting to a package that redirects again. The other server (the same host
    /// on another port) never sees the token; GitLab sees it on every request.
    @Test func theTokenGoesToTheGitLabServerOnlyNotAcrossARedirect() async throws {
        let release = try release()
        let files = release.files
        let seen = StorageHeaders()
        let storage = try await TestServer.start { request, _ in
            _ = try await request.readBody(keeping: 0)
            seen.add(request.headers.map { (name: $0.name.canonicalName.lowercased(), value: $0.value) })
            guard let bytes = files[request.rawSegments.segments.last ?? ""] else { return Reply.text(404, "no such file") }
            return Reply.raw(200, bytes, contentType: "application/octet-stream", headers: [:])
        }
        defer { storage.stop() }
        let gitlab = FakeGitLab(projectPath: "acme/rocket")
        gitlab.objectStorage = storage.baseURL + "/bucket"
        try await gitlab.start()
        defer { gitlab.stop() }
        gitlab.addRelease(tag: "v1.0.0")
        gitlab.addLink(tag: "v1.0.0", name: "rocket-1.0.0.tar.gz", url: "\(storage.baseURL)/files/rocket-1.0.0.tar.gz")
        gitlab.addLink(tag: "v1.0.0", name: "SHA256SUMS", url: "\(storage.baseURL)/files/SHA256SUMS", directAssetPath: "/SHA256SUMS")
        for name in ["SHA256SUMS.sig", "rocket-1.0.0.intoto.jsonl"] {
            gitlab.addPackageFile(package: "rocket", version: "1.0.0", name: name, bytes: files[name] ?? [])
            gitlab.addLink(tag: "v1.0.0", name: name, url: gitlab.packageFileURL(package: "rocket", version: "1.0.0", name: name),
                           directAssetPath: name.hasSuffix(".jsonl") ? "/dist/" + name : nil)
        }
        gitlab.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let run = try await release.repo.shiplaneAsync(
            ["verify", "\(gitlab.baseURL)/acme/rocket/-/releases/v1.0.0", "--ssh-key", release.sshPublicKey, "--attestation-key", release.sshPublicKey],
            environment: ["GITLAB_TOKEN": gitlab.token, "TMPDIR": tmp])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("Downloaded 4 files of acme/rocket v1.0.0 from GitLab"), "\(run.all)")
        #expect(seen.all.count == 4, "every file came from the other server once: \(seen.all.count)")
        #expect(seen.all.allSatisfy { headers in !headers.contains { $0.name == "private-token" || $0.name == "job-token" || $0.value.contains(gitlab.token) } },
                "the token never reaches another server")
        #expect(gitlab.log.contains("GET /acme/rocket/-/releases/v1.0.0/downloads/SHA256SUMS"), "\(gitlab.log)")
        #expect(gitlab.log.contains("GET /acme/rocket/-/releases/v1.0.0/downloads/dist/rocket-1.0.0.intoto.jsonl"), "\(gitlab.log)")
        #expect(gitlab.log.filter { $0.hasPrefix("GET /api/v4/projects/42/packages/generic/") }.count == 2, "\(gitlab.log)")
        #expect(gitlab.requestHeaders.allSatisfy { $0["private-token"] == gitlab.token })
        #expect(gitlab.violations.isEmpty, "\(gitlab.violations)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    /// Permalinks an instance sends to its sign-in page fall back to the links' own addresses; a
    /// link whose package file was deleted, and a file over `--max-download-size`: each named,
    /// exit 1, nothing left; a size that is not one is a usage error before any request.
    @Test func aLinkWhoseFileIsGoneOrTooLargeIsNamed() async throws {
        let release = try release()
        let gitlab = FakeGitLab(projectPath: "acme/rocket")
        try await gitlab.start()
        defer { gitlab.stop() }
        gitlab.addRelease(tag: "v1.0.0")
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS"] {
            gitlab.addPackageFile(package: "rocket", version: "1.0.0", name: name, bytes: release.files[name] ?? [])
            gitlab.addLink(tag: "v1.0.0", name: name, url: gitlab.packageFileURL(package: "rocket", version: "1.0.0", name: name), directAssetPath: "/" + name)
        }
        gitlab.addTag("v1.0.0", commit: release.commit)
        let tmp = try temporaryFolder(release)
        let address = "\(gitlab.baseURL)/acme/rocket/-/releases/v1.0.0"
        let environment = ["GITLAB_TOKEN": gitlab.token, "TMPDIR": tmp]

        // An instance that wants a browser session for permalinks (it redirects them to its
        // sign-in page): each link's own address is used instead.
        gitlab.webRoutesNeedSignIn = true
        let session = try await release.repo.shiplaneAsync(["verify", address], environment: environment)
        #expect(session.stdout.contains("Downloaded 2 files of acme/rocket v1.0.0 from GitLab"), "\(session.all)")
        #expect(session.stdout.contains("SHA-256 matches SHA256SUMS"), "\(session.all)")
        #expect(gitlab.log.filter { $0.hasPrefix("GET /acme/rocket/-/releases/v1.0.0/downloads/") }.count == 2, "\(gitlab.log)")
        #expect(gitlab.log.filter { $0.hasPrefix("GET /api/v4/projects/42/packages/generic/") }.count == 2, "\(gitlab.log)")
        #expect(!gitlab.log.contains("GET /users/sign_in"), "the sign-in page is not downloaded as the file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        gitlab.webRoutesNeedSignIn = false

        gitlab.removePackageFiles(named: "SHA256SUMS")
        let gone = try await release.repo.shiplaneAsync(["verify", address], environment: environment)
        #expect(gone.status == 1, "\(gone.all)")
        #expect(gone.stderr.contains("the link SHA256SUMS of acme/rocket v1.0.0 on GitLab points at \(gitlab.packageFileURL(package: "rocket", version: "1.0.0", name: "SHA256SUMS")), whose file is gone (HTTP 404)"),
                "\(gone.all)")
        #expect(gone.stderr.contains("tell the project that the release's link SHA256SUMS is broken"), "\(gone.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)

        gitlab.addPackageFile(package: "rocket", version: "1.0.0", name: "SHA256SUMS", bytes: release.files["SHA256SUMS"] ?? [])
        let large = try await release.repo.shiplaneAsync(["verify", address, "--max-download-size", "16"], environment: environment)
        #expect(large.status == 1, "\(large.all)")
        #expect(large.stderr.contains("the link rocket-1.0.0.tar.gz of acme/rocket v1.0.0 on GitLab (\(gitlab.packageFileURL(package: "rocket", version: "1.0.0", name: "rocket-1.0.0.tar.gz"))) is larger than 16 bytes"),
                "\(large.all)")
        #expect(large.stderr.contains("--max-download-size"), "\(large.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        #expect(gitlab.violations.isEmpty, "\(gitlab.violations)")

        let before = gitlab.log.count
        let wrong = try await release.repo.shiplaneAsync(["verify", address, "--max-download-size", "12X"], environment: environment)
        #expect(wrong.status == 2, "\(wrong.all)")
        #expect(wrong.stderr.contains("--max-download-size takes a size such as 500M, 2G or 1048576, not 12X"), "\(wrong.all)")
        #expect(gitlab.log.count == before)
    }
}

/// The headers of each request to the other server, in order.
private final class StorageHeaders: @unchecked Sendable {
    // @unchecked: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen: [[(name: String, value: String)]] = []
    func add(_ headers: [(name: String, value: String)]) { lock.withLock { seen.append(headers) } }
    var all: [[(name: String, value: String)]] { lock.withLock { seen } }
}
