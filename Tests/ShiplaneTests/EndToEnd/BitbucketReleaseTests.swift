import Foundation
import Testing
@testable import Shiplane

/// `publish` tags, pushes the tag to origin and releases on the forge the origin names;
/// `again` only releases the tag (a re-run, or a pipeline started by the pushed tag).
private let bitbucketLanes = #"""
import Shiplane
struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        let archive = try lane.archive("bin", to: "dist/app-1.5.0.tar.gz")
        try lane.addGitTag("v1.5.0")
        try await lane.push(tags: ["v1.5.0"])
        try await lane.release(tag: "v1.5.0", notes: "notes of 1.5.0", assets: [archive, "LICENSE"])
    }
}
struct Again: Lane {
    func run(_ lane: LaneContext) async throws {
        let archive = try lane.archive("bin", to: "dist/app-1.5.0.tar.gz")
        try await lane.bitbucketRelease(tag: "v1.5.0", notes: "notes of 1.5.0", assets: [archive, "LICENSE"])
    }
}
"""#

/// Bitbucket Cloud as one folder and one line: `release` recognises bitbucket.org, the tag goes to
/// a real origin (`git http-backend` behind basic auth, with Bitbucket's `x-token-auth` user), and
/// the files become the repository's downloads on a stand-in written from Bitbucket's reference.
@Suite("Bitbucket Cloud releases: the pushed tag and its downloads, through the Forge contract", .serialized, .offThePool)
struct BitbucketReleaseTests {
    static let gitToken = "ATCTT3xFfGN0gitPushToken0123456789"

    /// The project, its origin (bare, served over HTTP), the HTTP server and the Bitbucket stand-in.
    private func setUp() async throws -> (repo: TemporaryRepository, bare: String, git: GitHTTPServer, bitbucket: FakeBitbucket) {
        let repo = try TemporaryRepository()
        try repo.write("bin/app", "#!/bin/sh\necho app\n")
        try repo.write("LICENSE", "MIT\n")
        try repo.write(".gitignore", "dist/\n")
        try repo.write("Lanes/Release.swift", bitbucketLanes)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: the app")
        let served = repo.root + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", served + "/rocket.git"], in: served, environment: repo.environment)
        try repo.git("push", "-q", served + "/rocket.git", "main")
        let git = try await GitHTTPServer.start(projectRoot: served, username: "x-token-auth", password: Self.gitToken, environment: repo.environment)
        let origin = "https://bitbucket.org/acme/rocket.git"
        try repo.git("remote", "add", "origin", origin)
        try repo.git("config", "url.\(git.url("rocket.git")).insteadOf", origin)
        let bitbucket = FakeBitbucket()
        bitbucket.originGitDir = served + "/rocket.git"
        try await bitbucket.start()
        return (repo, served + "/rocket.git", git, bitbucket)
    }

    private func environment(_ bitbucket: FakeBitbucket) -> [String: String] {
        ["BITBUCKET_ACCESS_TOKEN": bitbucket.token, "BITBUCKET_API_URL": bitbucket.apiURL,
         "SHIPLANE_GIT_TOKEN": Self.gitToken, "SHIPLANE_GIT_USERNAME": "x-token-auth"]
    }

    private func bytes(_ repo: TemporaryRepository, _ relative: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: repo.path + "/" + relative) ?? Data())
    }

    @Test func releaseRecognisesBitbucketPushesTheTagAndUploadsTheDownloads() async throws {
        let (repo, bare, git, bitbucket) = try await setUp()
        defer { git.stop(); bitbucket.stop() }
        let outputs = repo.root + "/github_output"
        var environment = environment(bitbucket)
        environment["GITHUB_OUTPUT"] = outputs
        let result = try await repo.shiplaneAsync(["--ci", "github", "publish"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("releasing on Bitbucket (from the origin remote's host bitbucket.org)"), "\(result.all)")
        // The tag is on the real origin (git is the oracle), and the downloads hold the files' bytes.
        let tag = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "rev-parse", "--verify", "refs/tags/v1.5.0^{commit}"], in: repo.root, environment: repo.environment)
        let head = try repo.git("rev-parse", "HEAD")
        #expect(tag.status == 0 && tag.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head)
        #expect(bitbucket.allDownloads.map(\.name) == ["app-1.5.0.tar.gz", "LICENSE"])
        #expect(bitbucket.allDownloads.first?.bytes == bytes(repo, "dist/app-1.5.0.tar.gz"))
        #expect(bitbucket.allDownloads.last?.bytes == Array("MIT\n".utf8))
        // release_url comes from the step's result, as for every forge.
        let written = String(decoding: FileManager.default.contents(atPath: outputs) ?? Data(), as: UTF8.self)
        #expect(written.contains("release_url=\(bitbucket.server?.baseURL ?? "")/acme/rocket/downloads/\n"), "\(written)")
        #expect(!result.all.contains(bitbucket.token) && !result.all.contains(Self.gitToken))
        #expect(bitbucket.violations.isEmpty, "\(bitbucket.violations)")

        // A re-run finds the same bytes (downloaded through the redirect and hashed) and sends nothing.
        let posts = bitbucket.log.filter { $0.hasPrefix("POST") }.count
        let again = try await repo.shiplaneAsync(["again"], environment: self.environment(bitbucket))
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("unchanged app-1.5.0.tar.gz, LICENSE"), "\(again.all)")
        #expect(bitbucket.log.filter { $0.hasPrefix("POST") }.count == posts)
        #expect(bitbucket.log.contains { $0.hasPrefix("GET /files/") }, "the contents came through the redirect: \(bitbucket.log)")
        #expect(bitbucket.violations.isEmpty, "\(bitbucket.violations)")
    }

    @Test func otherBytesUnderAPublishedNameAreAnErrorAndNothingIsReplaced() async throws {
        let (repo, _, git, bitbucket) = try await setUp()
        defer { git.stop(); bitbucket.stop() }
        bitbucket.addTag("v1.5.0")
        let theirs = bitbucket.addDownload("LICENSE", Array("Apache-2.0\n".utf8))
        let result = try await repo.shiplaneAsync(["again"], environment: environment(bitbucket))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("Bitbucket's download LICENSE in acme/rocket holds other bytes than the file here"), "\(result.all)")
        #expect(bitbucket.allDownloads.filter { $0.name == "LICENSE" } == [theirs], "left as it was")
        #expect(bitbucket.allDownloads.map(\.name) == ["LICENSE"], "the archive sent before it was rolled back: \(bitbucket.log)")
        #expect(bitbucket.violations.isEmpty, "\(bitbucket.violations)")
    }

    @Test func aRefusedUploadRollsBackTheDownloadsThisRunMade() async throws {
        let (repo, _, git, bitbucket) = try await setUp()
        defer { git.stop(); bitbucket.stop() }
        bitbucket.addTag("v1.5.0")
        // The first upload lands, the second is refused as Bitbucket refuses a token without the write scope.
        bitbucket.refuseUploads(after: 1, status: 403,
                                body: #"{"type": "error", "error": {"message": "Your credentials lack one or more required privilege scopes.", "detail": {"required": ["repository:write"], "granted": ["repository"]}}}"#)
        let result = try await repo.shiplaneAsync(["again"], environment: environment(bitbucket))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("Bitbucket denied permission to upload the download LICENSE in acme/rocket (403): Your credentials lack one or more required privilege scopes."), "\(result.all)")
        #expect(bitbucket.allDownloads.isEmpty, "the archive this run uploaded was deleted: \(bitbucket.log)")
        #expect(bitbucket.log.contains("DELETE /2.0/repositories/acme/rocket/downloads/app-1.5.0.tar.gz"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(result.all)")
        #expect(bitbucket.violations.isEmpty, "\(bitbucket.violations)")
    }

    @Test func theDryRunChecksEverythingAndSendsNothing() async throws {
        let (repo, _, git, bitbucket) = try await setUp()
        defer { git.stop(); bitbucket.stop() }
        let result = try await repo.shiplaneAsync(["--dry-run", "publish"], environment: environment(bitbucket))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("the tag v1.5.0 is not on Bitbucket yet: the run must push it before the release"), "\(result.all)")
        #expect(result.all.contains("would publish v1.5.0 on Bitbucket acme/rocket with 2 assets"), "\(result.all)")
        #expect(bitbucket.log.allSatisfy { $0.hasPrefix("GET") }, "\(bitbucket.log)")
        #expect(bitbucket.allDownloads.isEmpty)
    }

    @Test func everyProblemIsNamedBeforeAnythingIsSent() async throws {
        let (repo, _, git, bitbucket) = try await setUp()
        defer { git.stop(); bitbucket.stop() }
        try FileManager.default.removeItem(atPath: repo.path + "/LICENSE")
        var environment = environment(bitbucket)
        environment["BITBUCKET_ACCESS_TOKEN"] = "wrong-token-0123456789"
        let result = try await repo.shiplaneAsync(["again"], environment: environment)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the Bitbucket release cannot be published: 2 problems found"), "\(result.all)")
        #expect(result.stderr.contains("Bitbucket refused the credentials (401) for acme/rocket"), "\(result.all)")
        #expect(result.stderr.contains("LICENSE"), "\(result.all)")
        #expect(!result.all.contains("wrong-token-0123456789"))
        #expect(bitbucket.log.allSatisfy { $0.hasPrefix("GET") } && bitbucket.allDownloads.isEmpty, "\(bitbucket.log)")
    }

    /// An undo checks the world is as the run left it: a download replaced since is left, one
    /// still the run's is deleted, one whose upload was never answered is deleted only when it
    /// holds the bytes sent.
    @Test func theUndoDeletesOnlyWhatIsStillThisRunsDownload() async throws {
        let bitbucket = FakeBitbucket()
        try await bitbucket.start()
        defer { bitbucket.stop() }
        let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: ["BITBUCKET_ACCESS_TOKEN": bitbucket.token]),
                                    fileSystem: LiveFileSystem(), http: LiveHTTPClient(), retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(),
                                    gitFolder: nil)
        let ours = bitbucket.addDownload("app.tar.gz", [1, 2, 3])
        func effect(_ createdOn: String?, sha256: String = SHA256.hex(of: [1, 2, 3])) -> BitbucketDownloadUploaded {
            BitbucketDownloadUploaded(api: bitbucket.apiURL, repository: "acme/rocket", name: "app.tar.gz", size: 3, sha256: sha256, createdOn: createdOn)
        }
        // Someone replaced it since (another upload time): it stays.
        let replaced = bitbucket.addDownload("app.tar.gz", [1, 2, 4])
        await #expect { try await effect(ours.createdOn).undo(in: context, status: .done) } throws: {
            allText(of: $0).contains("was replaced after this run uploaded it") && allText(of: $0).contains("left as it is")
        }
        #expect(bitbucket.allDownloads == [replaced])
        // Not answered: deleted only when it holds the bytes sent.
        await #expect { try await effect(nil).undo(in: context, status: .intended) } throws: { allText(of: $0).contains("holds other bytes") }
        #expect(bitbucket.allDownloads == [replaced])
        try await effect(nil, sha256: SHA256.hex(of: [1, 2, 4])).undo(in: context, status: .intended)
        #expect(bitbucket.allDownloads.isEmpty)
        // Still this run's: deleted; gone already: nothing to do.
        let again = bitbucket.addDownload("app.tar.gz", [1, 2, 3])
        try await effect(again.createdOn).undo(in: context, status: .done)
        #expect(bitbucket.allDownloads.isEmpty)
        try await effect(again.createdOn).undo(in: context, status: .done)
        #expect(bitbucket.violations.isEmpty, "\(bitbucket.violations)")
    }

    /// The stand-in refuses what Bitbucket's reference does not describe, so a client mistake fails a test.
    @Test func theStandInRefusesWhatTheReferenceDoesNotAllow() async throws {
        let bitbucket = FakeBitbucket()
        try await bitbucket.start()
        defer { bitbucket.stop() }
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: .noRetries)
        let auth = [("Authorization", "Bearer \(bitbucket.token)")]
        let base = bitbucket.apiURL + "/repositories/acme/rocket"
        func send(_ method: HTTPRequestMethod, _ url: String, _ headers: [(name: String, value: String)] = [], body: String? = nil) async throws -> Int {
            try await transport.send(HTTPRequest(method: method, url: url, headers: auth + headers, body: body.map { .bytes(Array($0.utf8)) } ?? .none)).status
        }
        let form = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--b--\r\n"
        #expect(try await send(.post, base + "/downloads", [("Content-Type", "multipart/form-data; boundary=b")], body: form) == 400)
        #expect(try await send(.post, base + "/downloads", [("Content-Type", "application/json")], body: "{}") == 400)
        #expect(try await send(.get, base + "/downloads?sort=name") == 400)
        #expect(try await send(.get, base + "/releases") == 404)
        #expect(try await send(.get, base + "/downloads?pagelen=500") == 400)
        #expect(try await transport.send(HTTPRequest(method: .get, url: base, headers: [("Authorization", "token \(bitbucket.token)")])).status == 401)
        #expect(bitbucket.violations.count == 5, "\(bitbucket.violations)")
        #expect(bitbucket.allDownloads.isEmpty)
    }
}
