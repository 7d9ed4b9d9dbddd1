import Foundation
import Testing
@testable import Shiplane

@Suite("Gitea/Forgejo release publisher, against a stand-in checked with Gitea's API description", .offThePool)
struct GiteaReleasePublisherTests {
    private func publisher(_ gitea: FakeGitea, _ transport: HTTPTransport, token: String?, repository: String = "acme/rocket") -> GiteaReleasePublisher {
        let parts = repository.split(separator: "/").map(String.init)
        return GiteaReleasePublisher(repository: GiteaRepository(apiURL: gitea.baseURL + "/api/v1", owner: parts[0], name: parts[1]),
                                     token: token, transport: transport, version: "0.1.0")
    }

    @Test func createsADraftAttachesTheFilesThenPublishes() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            let sums = try writeFile(folder, "SHA256SUMS", "abc  app.tar.gz\n")
            try await withFakeGitea { gitea in
                gitea.addTag("v1.0.0")
                try await withTransport { transport, _ in
                    let log = EffectLog()
                    let result = try await publisher(gitea, transport, token: gitea.token).publish(
                        GiteaReleaseRequest(tag: "v1.0.0", name: "v1.0.0", notes: "Notes", prerelease: true, assets: [.init(path: tarball), .init(path: sums)]),
                        recording: log)
                    #expect(result.createdRelease && result.published)
                    #expect(result.uploaded == ["app.tar.gz", "SHA256SUMS"])
                    let release = try #require(gitea.allReleases.first)
                    #expect(!release.draft && release.prerelease && release.body == "Notes")
                    #expect(gitea.allAttachments.map(\.name) == ["app.tar.gz", "SHA256SUMS"])
                    #expect(gitea.allAttachments.map { String(decoding: $0.bytes, as: UTF8.self) } == ["tarball bytes", "abc  app.tar.gz\n"])
                    let requests = gitea.log
                    let create = try #require(requests.firstIndex(of: "POST /api/v1/repos/acme/rocket/releases"))
                    let publish = try #require(requests.lastIndex { $0.hasPrefix("PATCH /api/v1/repos/acme/rocket/releases/") })
                    #expect(requests.indices.filter { requests[$0].hasPrefix("POST /api/v1/repos/acme/rocket/releases/") }.allSatisfy { create < $0 && $0 < publish })
                    #expect(log.all.map(\.kind) == ["gitea.release", "gitea.attachment", "gitea.attachment"])
                    #expect(log.pointsPassed.count == 1)
                    #expect(gitea.violations.isEmpty, "\(gitea.violations)")
                }
            }
        }
    }

    @Test func preflightReportsEveryProblemAtOnceAndSendsNoWrite() async throws {
        try await withTemporaryDirectory { folder in
            let one = try writeFile(folder, "a/app.zip", "1")
            let two = try writeFile(folder, "b/app.zip", "2")
            try await withFakeGitea { gitea in
                try await withTransport { transport, _ in
                    await #expect {
                        _ = try await publisher(gitea, transport, token: "wrong-token-0123456789")
                            .publish(GiteaReleaseRequest(tag: "v1", assets: [.init(path: one), .init(path: two), .init(path: folder.path + "/missing")]),
                                     recording: EffectLog())
                    } throws: { error in
                        let text = allText(of: error)
                        return (error as? ReleasePreflightError)?.forge == "Gitea" && text.contains("refused the token")
                            && text.contains("2 assets share the name app.zip") && text.contains("missing") && !text.contains("wrong-token")
                    }
                    await #expect {
                        _ = try await publisher(gitea, transport, token: gitea.token).publish(GiteaReleaseRequest(tag: "v9"), recording: EffectLog())
                    } throws: { allText(of: $0).contains("the tag v9 is not on the Gitea server") }
                    await #expect {
                        _ = try await publisher(gitea, transport, token: nil).publish(GiteaReleaseRequest(tag: "v9"), recording: EffectLog())
                    } throws: { allText(of: $0).contains("GITEA_TOKEN") }
                    await #expect {
                        _ = try await publisher(gitea, transport, token: gitea.token, repository: "acme/other").publish(GiteaReleaseRequest(tag: "v9"), recording: EffectLog())
                    } throws: { allText(of: $0).contains("repository acme/other not found") }
                    #expect(gitea.log.allSatisfy { $0.hasPrefix("GET ") })
                    #expect(gitea.allReleases.isEmpty && gitea.violations.isEmpty, "\(gitea.violations)")
                }
            }
        }
    }

    @Test func aRerunFinishesADraftKeepsSameBytesAndReplacesOthersUploadFirst() async throws {
        try await withTemporaryDirectory { folder in
            let same = try writeFile(folder, "same.txt", "same")
            let changed = try writeFile(folder, "app.zip", "new bytes!")
            try await withFakeGitea { gitea in
                gitea.addTag("v1")
                let id = gitea.addRelease(tag: "v1", draft: true, name: "old")
                gitea.addAttachment(releaseID: id, name: "same.txt", bytes: Array("same".utf8))
                gitea.addAttachment(releaseID: id, name: "app.zip", bytes: Array("old bytes!".utf8))
                try await withTransport { transport, _ in
                    let result = try await publisher(gitea, transport, token: gitea.token).publish(
                        GiteaReleaseRequest(tag: "v1", name: "Version 1", assets: [.init(path: same), .init(path: changed)]), recording: EffectLog())
                    #expect(!result.createdRelease && result.published)
                    #expect(result.skipped == ["same.txt"] && result.replaced == ["app.zip"])
                    #expect(gitea.allReleases.count == 1 && gitea.allReleases.first?.name == "Version 1")
                    #expect(gitea.allAttachments.map(\.name).sorted() == ["app.zip", "same.txt"])
                    #expect(gitea.allAttachments.first { $0.name == "app.zip" }.map { String(decoding: $0.bytes, as: UTF8.self) } == "new bytes!")
                    let requests = gitea.log
                    let upload = try #require(requests.firstIndex { $0.hasSuffix("?name=app.zip.shiplane-upload") })
                    let delete = try #require(requests.firstIndex { $0.hasPrefix("DELETE ") })
                    #expect(upload < delete, "never deleted before the replacement uploaded")
                    #expect(gitea.violations.isEmpty, "\(gitea.violations)")
                }
            }
        }
    }

    @Test func lostAnswersAreResolvedByLookingAndAPublishedFileIsNeverReplaced() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "released")
            try await withFakeGitea { gitea in
                gitea.addTag("v1")
                gitea.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .dropResponse))
                gitea.inject(.init(method: "POST", pathContains: "?name=app.tar.gz", remaining: 1, action: .dropResponse))
                try await withTransport { transport, _ in
                    let result = try await publisher(gitea, transport, token: gitea.token).publish(
                        GiteaReleaseRequest(tag: "v1", assets: [.init(path: tarball)]), recording: EffectLog())
                    #expect(result.createdRelease && result.uploaded == ["app.tar.gz"])
                    #expect(gitea.allReleases.count == 1 && gitea.allAttachments.count == 1, "nothing sent twice")
                    try writeFile(folder, "app.tar.gz", "rebuilt!")
                    await #expect {
                        _ = try await publisher(gitea, transport, token: gitea.token).publish(
                            GiteaReleaseRequest(tag: "v1", assets: [.init(path: tarball)]), recording: EffectLog())
                    } throws: { allText(of: $0).contains("published Gitea release v1 has app.tar.gz with other bytes") }
                    #expect(gitea.allAttachments.map { String(decoding: $0.bytes, as: UTF8.self) } == ["released"])
                    #expect(gitea.violations.isEmpty, "\(gitea.violations)")
                }
            }
        }
    }

    @Test func undoDeletesTheDraftAndAttachmentsThroughTheAPI() async throws {
        try await withFakeGitea { gitea in
            let id = gitea.addRelease(tag: "v1", draft: true)
            let attachment = gitea.addAttachment(releaseID: id, name: "a.zip", bytes: [1, 2])
            let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: ["GITEA_TOKEN": gitea.token]), fileSystem: LiveFileSystem(),
                                        http: LiveHTTPClient(), retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
            let api = gitea.baseURL + "/api/v1"
            try await GiteaAttachmentUploaded(api: api, repository: "acme/rocket", releaseID: id, name: "a.zip", id: attachment).undo(in: context, status: .done)
            #expect(gitea.allAttachments.isEmpty)
            // No id (the answer never came): the draft is found by its tag.
            try await GiteaReleaseCreated(api: api, repository: "acme/rocket", id: nil, tag: "v1").undo(in: context, status: .intended)
            #expect(gitea.allReleases.isEmpty)
            // Without a token the undo says how to remove it by hand.
            let bare = EffectContext(workTree: "/", environment: LaneEnvironment(variables: [:]), fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                                     retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
            await #expect { try await GiteaReleaseCreated(api: api, repository: "acme/rocket", id: 1, tag: "v1").undo(in: bare, status: .done) }
                throws: { allText(of: $0).contains("set GITEA_TOKEN") }
            #expect(gitea.violations.isEmpty, "\(gitea.violations)")
        }
    }

    @Test func theRepositoryAndTokenComeFromOptionsCIOrOrigin() throws {
        let actions = try GiteaRepository.locate(repository: nil, server: nil, environment: [
            "GITEA_ACTIONS": "true", "GITHUB_SERVER_URL": "https://code.example.org/", "GITHUB_REPOSITORY": "team/app"], originURL: nil)
        #expect(actions == GiteaRepository(apiURL: "https://code.example.org/api/v1", owner: "team", name: "app"))
        let origin = try GiteaRepository.locate(repository: nil, server: nil, environment: [:], originURL: "git@codeberg.org:acme/rocket.git")
        #expect(origin == GiteaRepository(apiURL: "https://codeberg.org/api/v1", owner: "acme", name: "rocket"))
        let options = try GiteaRepository.locate(repository: "a/b", server: "http://127.0.0.1:3000", environment: ["GITEA_SERVER_URL": "https://x"], originURL: nil)
        #expect(options == GiteaRepository(apiURL: "http://127.0.0.1:3000/api/v1", owner: "a", name: "b"))
        #expect(throws: GiteaError.self) { try GiteaRepository.locate(repository: "a/b/c", server: "https://x", environment: [:], originURL: nil) }
        #expect(GiteaClient.token(from: ["FORGEJO_TOKEN": "f"]) == "f")
        #expect(GiteaClient.token(from: ["GITHUB_TOKEN": "g"]) == nil, "GITHUB_TOKEN only under Gitea/Forgejo Actions")
        #expect(GiteaClient.token(from: ["GITHUB_TOKEN": "g", "GITEA_ACTIONS": "true"]) == "g")
    }

    /// One resolution of the server for `lane.release`, `giteaRelease` and a part's `.gitea()`:
    /// the argument, then `forge.url` of .shiplane.yml, then the CI's variables, then the origin.
    @Test func theServerIsTheArgumentThenForgeURLThenTheCIThenTheOrigin() throws {
        let ci = ["GITEA_SERVER_URL": "https://ci.example", "FORGEJO_SERVER_URL": "https://forgejo.example"]
        let origin = "git@git.corp.example:acme/rocket.git"
        func api(_ server: String?, _ declared: String?, _ environment: [String: String]) throws -> String {
            try GiteaRepository.locate(repository: nil, server: server, declared: declared, environment: environment, originURL: origin).apiURL
        }
        #expect(try api("https://argument.example", "https://settings.example", ci) == "https://argument.example/api/v1")
        #expect(try api(nil, "https://settings.example/", ci) == "https://settings.example/api/v1")
        #expect(try api(nil, nil, ci) == "https://ci.example/api/v1")
        #expect(try api(nil, nil, ["FORGEJO_SERVER_URL": "https://forgejo.example"]) == "https://forgejo.example/api/v1")
        #expect(try api(nil, nil, [:]) == "https://git.corp.example/api/v1")
        // forge.url is Gitea's unless forge.type names another forge.
        #expect(ForgeSettings(url: "https://settings.example").server(for: .gitea) == "https://settings.example")
        #expect(ForgeSettings(kind: .gitea, url: "https://settings.example").server(for: .gitea) == "https://settings.example")
        #expect(ForgeSettings(kind: .gitlab, url: "https://gitlab.example").server(for: .gitea) == nil)
    }

    @Test func theStandInRefusesWhatTheDescriptionDoesNot() async throws {
        try await withFakeGitea { gitea in
            try await withTransport { transport, _ in
                let headers = [("Authorization", "token \(gitea.token)")]
                let unknownMember = try HTTPRequest.json(.post, url: gitea.baseURL + "/api/v1/repos/acme/rocket/releases", headers: headers,
                                                         value: ["tag_name": "v1", "make_latest": "true"])
                #expect(try await transport.send(unknownMember).status == 422)
                let missing = try HTTPRequest.json(.post, url: gitea.baseURL + "/api/v1/repos/acme/rocket/releases", headers: headers, value: ["name": "x"])
                #expect(try await transport.send(missing).status == 422)
                let bearer = HTTPRequest(method: .get, url: gitea.baseURL + "/api/v1/repos/acme/rocket", headers: [("Authorization", "Bearer \(gitea.token)")])
                let refused = try await transport.send(bearer)
                #expect(refused.status == 401 && refused.text.contains("\"message\""))
                #expect(gitea.violations.count == 2, "\(gitea.violations)")
            }
        }
    }
}
