import Foundation
import Testing
@testable import Shiplane

/// Records what a publisher writes down, as the run's journal would.
final class EffectLog: ReleaseEffectRecording, @unchecked Sendable {
    // @unchecked: the lists are only touched under `lock`.
    private let lock = NSLock()
    private var entries: [(kind: String, description: String, state: String)] = []
    private var passed: [String] = []
    private var takenBack = 0

    var all: [(kind: String, description: String, state: String)] { lock.withLock { entries } }
    var pointsPassed: [String] { lock.withLock { passed } }
    var pointsTakenBack: Int { lock.withLock { takenBack } }

    func record<E: Effect>(_ effect: E, _ description: String) throws -> EffectHandle? {
        lock.withLock {
            entries.append((E.kind, description, "intended"))
            return EffectHandle(index: entries.count - 1)
        }
    }
    func done<E: Effect>(_ handle: EffectHandle?, _ effect: E) {
        lock.withLock { if let handle { entries[handle.index].state = "done" } }
    }
    func didNotHappen(_ handle: EffectHandle?, _ why: String) {
        lock.withLock { if let handle { entries[handle.index].state = "not done" } }
    }
    func makingPublic(_ reason: String) throws -> Bool {
        lock.withLock {
            guard passed.isEmpty else { return false }
            passed.append(reason)
            return true
        }
    }
    func notPublicAfterAll() throws { lock.withLock { takenBack += 1 } }
}

@Suite("GitLab release publisher", .offThePool)
struct GitLabReleasePublisherTests {
    private func publisher(_ gitlab: FakeGitLab, _ transport: HTTPTransport, token: GitLabToken?, project: String? = nil) -> GitLabReleasePublisher {
        GitLabReleasePublisher(project: GitLabProject(apiURL: gitlab.apiURL, id: project ?? gitlab.projectPath), token: token,
                               transport: transport, version: "0.1.0")
    }

    private func request(_ tag: String = "v1.0.0", notes: String? = "Notes", assets: [String] = [], milestones: [String] = []) -> GitLabReleaseRequest {
        GitLabReleaseRequest(tag: tag, name: tag, notes: notes, assets: assets.map { ReleaseAssetFile(path: $0) }, milestones: milestones,
                             packageName: "rocket", packageVersion: tag)
    }

    @Test func uploadsThePackageFilesThenCreatesTheReleaseWithTheirLinks() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            let sums = try writeFile(folder, "SHA256SUMS", "abc  app.tar.gz\n")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1.0.0")
                gitlab.addMilestone("1.0")
                try await withTransport { transport, _ in
                    let log = EffectLog()
                    let result = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                        .publish(request(assets: [tarball, sums], milestones: ["1.0"]), recording: log)
                    #expect(result.createdRelease)
                    #expect(result.uploaded == ["app.tar.gz", "SHA256SUMS"])
                    let release = try #require(gitlab.allReleases.first)
                    #expect(release.tag == "v1.0.0" && release.description == "Notes" && release.milestones == ["1.0"])
                    #expect(release.links.map(\.name) == ["app.tar.gz", "SHA256SUMS"])
                    #expect(release.links.allSatisfy { $0.linkType == "package" })
                    #expect(release.links.map(\.directAssetPath) == ["/app.tar.gz", "/SHA256SUMS"])
                    #expect(release.links.first?.url == "\(gitlab.apiURL)/projects/acme%2Frocket/packages/generic/rocket/v1.0.0/app.tar.gz")
                    #expect(gitlab.allFiles.map { String(decoding: $0.bytes, as: UTF8.self) } == ["tarball bytes", "abc  app.tar.gz\n"])
                    // Files first, then the release in one call; the point of no return right before it.
                    let requests = gitlab.log
                    let create = try #require(requests.firstIndex(of: "POST /api/v4/projects/acme/rocket/releases"))
                    #expect(requests.indices.filter { requests[$0].hasPrefix("PUT /api/v4/projects/acme/rocket/packages/generic/") }.allSatisfy { $0 < create })
                    #expect(log.all.map(\.kind) == ["gitlab.package-file", "gitlab.package-file", "gitlab.release"])
                    #expect(log.all.allSatisfy { $0.state == "done" })
                    #expect(log.pointsPassed.count == 1)
                    // The token travels in its header, and nowhere else.
                    #expect(gitlab.requestHeaders.allSatisfy { $0["private-token"] == gitlab.token && $0["job-token"] == nil })
                }
            }
        }
    }

    @Test func aJobTokenIsSentAsJobToken() async throws {
        try await withFakeGitLab { gitlab in
            gitlab.addTag("v1")
            gitlab.jobTokenCannotReadTags = true
            try await withTransport { transport, _ in
                let token = try #require(GitLabToken.from(["CI_JOB_TOKEN": gitlab.jobToken]))
                #expect(token.header == "JOB-TOKEN")
                _ = try await publisher(gitlab, transport, token: token, project: "42").publish(request("v1"), recording: EffectLog())
                #expect(gitlab.allReleases.map(\.tag) == ["v1"])
                #expect(gitlab.requestHeaders.allSatisfy { $0["job-token"] == gitlab.jobToken && $0["private-token"] == nil })
            }
        }
        #expect(GitLabToken.from(["GITLAB_TOKEN": "glpat-x", "CI_JOB_TOKEN": "job"])?.header == "PRIVATE-TOKEN")
        #expect(GitLabToken.from(["GITLAB_TOKEN": " ", "CI_JOB_TOKEN": ""]) == nil)
    }

    @Test func preflightReportsEveryProblemAtOnceAndChangesNothing() async throws {
        try await withTemporaryDirectory { folder in
            let one = try writeFile(folder, "a/app.zip", "1")
            let two = try writeFile(folder, "b/app.zip", "2")
            let spaced = try writeFile(folder, "my app.zip", "3")
            try await withFakeGitLab { gitlab in
                try await withTransport { transport, _ in
                    let bad = request("v9", assets: [one, two, spaced, folder.appendingPathComponent("missing.txt").path], milestones: ["nope"])
                    // A refused token: files, names and the token are all reported.
                    await #expect {
                        _ = try await publisher(gitlab, transport, token: GitLabToken(value: "glpat-wrongwrongwrong0000", header: "PRIVATE-TOKEN"))
                            .publish(bad, recording: EffectLog())
                    } throws: { error in
                        guard let preflight = error as? ReleasePreflightError else { return false }
                        let text = preflight.underlyingErrors.map(allText(of:)).joined(separator: "\n")
                        return preflight.forge == "GitLab" && text.contains("missing.txt") && text.contains("2 assets share the name app.zip")
                            && text.contains("does not take the file name my app.zip") && text.contains("refused the token")
                            && !text.contains("glpat-wrong")
                    }
                    // A good token: the missing tag and milestone are found too.
                    await #expect {
                        _ = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                            .publish(request("v9", milestones: ["nope"]), recording: EffectLog())
                    } throws: { error in
                        let text = allText(of: error)
                        return text.contains("the tag v9 is not on GitLab") && text.contains("no milestone nope") && text.contains("push the tag")
                    }
                    #expect(gitlab.allReleases.isEmpty && gitlab.allFiles.isEmpty)
                    #expect(!gitlab.log.contains { !$0.hasPrefix("GET ") })
                }
            }
        }
    }

    @Test func aMissingTokenOrProjectIsNamedBeforeAnyRequest() async throws {
        try await withFakeGitLab { gitlab in
            try await withTransport { transport, _ in
                await #expect {
                    _ = try await publisher(gitlab, transport, token: nil).publish(request(), recording: EffectLog())
                } throws: { allText(of: $0).contains("GITLAB_TOKEN") && allText(of: $0).contains("CI_JOB_TOKEN") }
                await #expect {
                    _ = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"), project: "acme/other")
                        .publish(request(), recording: EffectLog())
                } throws: { allText(of: $0).contains("GitLab project acme/other not found") }
                #expect(!gitlab.log.contains { !$0.hasPrefix("GET ") })
            }
        }
    }

    @Test func aRerunFinishesAHalfMadeReleaseWithoutDuplicates() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            let notes = try writeFile(folder, "notes.txt", "notes")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1.0.0")
                // The earlier run uploaded one file, then stopped before the release.
                gitlab.addPackageFile(package: "rocket", version: "v1.0.0", name: "app.tar.gz", bytes: Array("tarball bytes".utf8))
                try await withTransport { transport, _ in
                    let token = GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN")
                    let first = try await publisher(gitlab, transport, token: token).publish(request(assets: [tarball, notes]), recording: EffectLog())
                    #expect(first.skipped == ["app.tar.gz"] && first.uploaded == ["notes.txt"] && first.createdRelease)
                    #expect(gitlab.allFiles.count == 2)
                    // A release made without its links (say by hand, or an older run): links are added, nothing uploaded again.
                    gitlab.addRelease(tag: "v2", description: "old")
                    gitlab.addTag("v2")
                    let log = EffectLog()
                    let second = try await publisher(gitlab, transport, token: token).publish(request("v2", assets: [tarball]), recording: log)
                    #expect(!second.createdRelease && second.linked == ["app.tar.gz"])
                    let v2 = try #require(gitlab.allReleases.first { $0.tag == "v2" })
                    #expect(v2.links.map(\.name) == ["app.tar.gz"] && v2.description == "Notes")
                    #expect(log.all.map(\.kind) == ["gitlab.package-file", "gitlab.release-update", "gitlab.release-link"])
                    // And the same again changes nothing.
                    let before = gitlab.log.count
                    let third = try await publisher(gitlab, transport, token: token).publish(request("v2", assets: [tarball]), recording: EffectLog())
                    #expect(third.skipped == ["app.tar.gz"] && third.uploaded.isEmpty && third.linked.isEmpty)
                    #expect(gitlab.log[before...].allSatisfy { $0.hasPrefix("GET ") })
                    #expect(gitlab.allReleases.count == 2)
                }
            }
        }
    }

    @Test func answersLostAfterTheServerStoredTheObjectAreResolvedByLooking() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1")
                gitlab.inject(.init(method: "PUT", pathContains: "/packages/generic/", remaining: 1, action: .dropResponse))
                gitlab.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .dropResponse))
                try await withTransport { transport, _ in
                    let result = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                        .publish(request("v1", assets: [tarball]), recording: EffectLog())
                    #expect(result.createdRelease && result.uploaded == ["app.tar.gz"])
                    #expect(gitlab.allFiles.count == 1, "the upload was not sent twice")
                    #expect(gitlab.allReleases.map(\.tag) == ["v1"])
                    #expect(gitlab.log.filter { $0 == "POST /api/v4/projects/acme/rocket/releases" }.count == 1)
                }
            }
        }
    }

    @Test func rateLimitsAndServerErrorsAreRetriedAsGitLabAsks() async throws {
        try await withFakeGitLab { gitlab in
            gitlab.addTag("v1")
            gitlab.failNext(1, method: "POST", path: "/releases", status: 429,
                            headers: ["Retry-After": "7", "RateLimit-Limit": "600", "RateLimit-Remaining": "0", "RateLimit-Reset": "1700000060"],
                            body: "Retry later", contentType: "text/plain")
            gitlab.failNext(1, method: "GET", path: "/releases/v1", status: 503)
            try await withTransport(now: { Date(timeIntervalSince1970: 1_700_000_000) }) { transport, recorder in
                _ = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                    .publish(request("v1"), recording: EffectLog())
                #expect(gitlab.allReleases.map(\.tag) == ["v1"])
                #expect(recorder.sleeps.contains(7), "Retry-After: \(recorder.sleeps)")
                #expect(recorder.sleeps.count == 2)
            }
        }
        // Without Retry-After, a 429 waits until RateLimit-Reset.
        let transport = HTTPTransport(sender: RecordingHTTPClientStub(), now: { Date(timeIntervalSince1970: 1_700_000_000) })
        let response = HTTPResponse(status: 429, headers: [("RateLimit-Reset", "1700000030")], body: [])
        #expect(transport.retryDecision(for: response) == .retry(reason: "429 (rate limited)", wait: 31))
    }

    @Test func aRefusedCreateTakesThePointOfNoReturnBack() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1")
                gitlab.failNext(1, method: "POST", path: "/releases", status: 400, body: #"{"message":"refused"}"#, contentType: "application/json")
                try await withTransport { transport, _ in
                    let log = EffectLog()
                    await #expect {
                        _ = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                            .publish(request("v1", assets: [tarball]), recording: log)
                    } throws: { allText(of: $0).contains("refused") }
                    #expect(log.all.map(\.state) == ["done", "not done"])
                    #expect(log.pointsTakenBack == 1)
                }
            }
        }
    }

    @Test func aPublishedFileIsNeverReplacedByOtherBytes() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "rebuilt")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1")
                try await withTransport { transport, _ in
                    let token = GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN")
                    try writeFile(folder, "app.tar.gz", "released")
                    _ = try await publisher(gitlab, transport, token: token).publish(request("v1", assets: [tarball]), recording: EffectLog())
                    try writeFile(folder, "app.tar.gz", "rebuilt")
                    await #expect {
                        _ = try await publisher(gitlab, transport, token: token).publish(request("v1", assets: [tarball]), recording: EffectLog())
                    } throws: { allText(of: $0).contains("sha256:" + SHA256.hex(of: Data("released".utf8))) }
                    #expect(gitlab.allFiles.map { String(decoding: $0.bytes, as: UTF8.self) } == ["released"])
                }
            }
        }
    }

    @Test func eachEffectsUndoRemovesWhatItMadeThroughTheAPI() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            try await withFakeGitLab { gitlab in
                gitlab.addTag("v1")
                try await withTransport { transport, _ in
                    _ = try await publisher(gitlab, transport, token: GitLabToken(value: gitlab.token, header: "PRIVATE-TOKEN"))
                        .publish(request("v1", assets: [tarball]), recording: EffectLog())
                }
                gitlab.addPackageFile(package: "rocket", version: "v1", name: "other.zip", bytes: [1])
                let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: ["GITLAB_TOKEN": gitlab.token]),
                                            fileSystem: LiveFileSystem(), http: LiveHTTPClient(), retryPolicy: RetryPolicy(),
                                            savedCopies: MemorySavedCopies(), gitFolder: nil)
                let api = gitlab.apiURL, project = gitlab.projectPath
                // A link found by its name (no id: the answer never came), then the release.
                try await GitLabReleaseLinkCreated(api: api, project: project, tag: "v1", name: "app.tar.gz").undo(in: context, status: .intended)
                #expect(gitlab.allReleases.first?.links.isEmpty == true)
                try await GitLabReleaseCreated(api: api, project: project, tag: "v1").undo(in: context, status: .done)
                #expect(gitlab.allReleases.isEmpty)
                // An intended release that never landed: nothing to delete, no error.
                try await GitLabReleaseCreated(api: api, project: project, tag: "v2").undo(in: context, status: .intended)
                // A package file found by name and digest; another file of the package stays.
                let digest = SHA256.hex(of: Data("tarball bytes".utf8))
                try await GitLabPackageFileUploaded(api: api, project: project, package: "rocket", version: "v1", fileName: "app.tar.gz",
                                                    sha256: digest).undo(in: context, status: .intended)
                #expect(gitlab.allFiles.map(\.name) == ["other.zip"])
                // A release's texts put back.
                gitlab.addRelease(tag: "v3", name: "new", description: "new notes")
                try await GitLabReleaseUpdated(api: api, project: project, tag: "v3", previousName: "old", previousDescription: "old notes")
                    .undo(in: context, status: .done)
                #expect(gitlab.allReleases.first.map { [$0.name, $0.description] } == ["old", "old notes"])
                // Compare and swap: a release edited since this run made or changed it is left, and the undo says so.
                gitlab.addRelease(tag: "v4", name: "edited by hand", description: "theirs")
                await #expect { try await GitLabReleaseCreated(api: api, project: project, tag: "v4", name: "v4", description: "ours").undo(in: context, status: .done) }
                    throws: { allText(of: $0).contains("was changed after this run made it") && allText(of: $0).contains("left as it is") }
                await #expect {
                    try await GitLabReleaseUpdated(api: api, project: project, tag: "v4", previousName: "old", previousDescription: "", newName: "v4",
                                                   newDescription: "ours").undo(in: context, status: .done)
                } throws: { allText(of: $0).contains("was edited again after this run changed it") }
                #expect(gitlab.allReleases.first { $0.tag == "v4" }.map { [$0.name, $0.description] } == ["edited by hand", "theirs"])
                try await GitLabReleaseCreated(api: api, project: project, tag: "v4", name: "edited by hand", description: "theirs").undo(in: context, status: .done)
                #expect(!gitlab.allReleases.contains { $0.tag == "v4" })
                // Without a token the undo says what stays and how to remove it.
                let bare = EffectContext(workTree: "/", environment: LaneEnvironment(variables: [:]), fileSystem: LiveFileSystem(),
                                         http: LiveHTTPClient(), retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
                await #expect { try await GitLabReleaseCreated(api: api, project: project, tag: "v3").undo(in: bare, status: .done) }
                    throws: { allText(of: $0).contains("set GITLAB_TOKEN") }
                #expect(gitlab.allReleases.count == 1)
            }
        }
    }

    @Test func gitLabTokenShapesAreRedactedWherever() {
        let text = "PRIVATE-TOKEN: glpat-AbCdEfGhIjKlMnOpQrSt and JOB-TOKEN glcbt-64_AbCdEfGhIjKlMnOpQr, deploy gldt-AbCdEfGhIjKlMnOpQrSt"
        let shown = SecretRedactor().redact(text)
        #expect(!shown.contains("AbCdEfGhIjKlMnOp"), "\(shown)")
        #expect(shown.contains("PRIVATE-TOKEN: ***"))
    }

    @Test func theProjectIsFoundFromOptionsCIVariablesOrTheOrigin() throws {
        let ci = try GitLabProject.locate(project: nil, server: nil, environment: [
            "CI_API_V4_URL": "https://gitlab.example.com/api/v4", "CI_PROJECT_ID": "1234", "CI_SERVER_URL": "https://ignored"], originURL: nil)
        #expect(ci == GitLabProject(apiURL: "https://gitlab.example.com/api/v4", id: "1234"))
        let server = try GitLabProject.locate(project: nil, server: nil, environment: ["CI_SERVER_URL": "https://git.corp/"],
                                              originURL: "git@git.corp:group/sub/app.git")
        #expect(server == GitLabProject(apiURL: "https://git.corp/api/v4", id: "group/sub/app"))
        #expect(server.encodedID == "group%2Fsub%2Fapp")
        let origin = try GitLabProject.locate(project: nil, server: nil, environment: [:], originURL: "https://oauth2:glpat-secret@gitlab.com/acme/rocket.git")
        #expect(origin == GitLabProject(apiURL: "https://gitlab.com/api/v4", id: "acme/rocket"))
        let options = try GitLabProject.locate(project: "other/thing", server: "http://127.0.0.1:8080", environment: ["CI_PROJECT_ID": "1"], originURL: nil)
        #expect(options == GitLabProject(apiURL: "http://127.0.0.1:8080/api/v4", id: "other/thing"))
        #expect(throws: GitLabError.self) { try GitLabProject.locate(project: nil, server: nil, environment: [:], originURL: nil) }
        #expect(PublishGitLabRelease.defaultPackageName(options) == "thing")
        #expect(PublishGitLabRelease.defaultPackageName(ci) == "release", "nothing names the project")
        // In GitLab CI the project is the numeric CI_PROJECT_ID: the package is named as from a
        // checkout of the same project, from CI_PROJECT_PATH, CI_PROJECT_NAME or the origin.
        let fromCheckout = PublishGitLabRelease.defaultPackageName(origin)
        #expect(fromCheckout == "rocket")
        #expect(PublishGitLabRelease.defaultPackageName(ci, environment: ["CI_PROJECT_ID": "1234", "CI_PROJECT_PATH": "acme/rocket"]) == fromCheckout)
        #expect(PublishGitLabRelease.defaultPackageName(ci, environment: ["CI_PROJECT_NAME": "rocket"]) == fromCheckout)
        #expect(PublishGitLabRelease.defaultPackageName(ci, originURL: "https://gitlab-ci-token:x@gitlab.com/acme/rocket.git") == fromCheckout)
    }
}

/// A sender that is never called (for checking retry decisions).
struct RecordingHTTPClientStub: HTTPSending {
    func send(_ request: HTTPRequest, maxResponseBytes: Int, onEvent: @escaping HTTPEventHandler) async throws -> HTTPResponse {
        HTTPResponse(status: 500, headers: [], body: [])
    }
}
