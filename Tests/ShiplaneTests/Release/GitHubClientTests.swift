import Foundation
import Testing
@testable import Shiplane

@Suite("GitHub client", .offThePool)
struct GitHubClientTests {
    private func client(_ github: FakeGitHub, _ transport: HTTPTransport, token: String? = nil) throws -> GitHubClient {
        try GitHubClient(repository: GitHubRepository(owner: "acme", name: "rocket"), token: token ?? github.token,
                         environment: ["GITHUB_API_URL": github.baseURL + "/"], transport: transport, version: "1.2.3")
    }

    @Test func usesGitHubAPIURLOrTheDefault() async throws {
        try await withTransport { transport, _ in
            let repository = GitHubRepository(owner: "o", name: "r")
            let github = try GitHubClient(repository: repository, token: "t0ken", environment: [:], transport: transport)
            #expect(github.apiBaseURL == "https://api.github.com")
            let enterprise = try GitHubClient(repository: repository, token: "t0ken", environment: ["GITHUB_API_URL": "https://ghe.example/api/v3/"],
                                              transport: transport)
            #expect(enterprise.apiBaseURL == "https://ghe.example/api/v3")
            #expect(throws: GitHubError.self) { try GitHubClient(repository: repository, token: "  ", transport: transport) }
        }
    }

    @Test func sendsGitHubHeaders() async throws {
        try await withTransport { transport, _ in
            let headers = try GitHubClient(repository: .init(owner: "o", name: "r"), token: "tok3n", transport: transport, version: "1.2.3").headers
            let map = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
            #expect(map["Authorization"] == "Bearer tok3n")
            #expect(map["Accept"] == "application/vnd.github+json")
            #expect(map["X-GitHub-Api-Version"] == "2022-11-28")
            #expect(map["User-Agent"] == "shiplane/1.2.3")
        }
    }

    @Test func checkAccessMapsStatusesToClearErrors() async throws {
        try await withFakeGitHub { github in
            try await withTransport { transport, _ in
                try await client(github, transport).checkAccess()

                await #expect {
                    try await client(github, transport, token: "ghp_wrongwrongwrongwrongwrong0000").checkAccess()
                } throws: { error in
                    guard case .tokenRefused? = error as? GitHubError else { return false }
                    return (error as? GitHubError)?.suggestion?.contains("GITHUB_TOKEN") == true
                }

                let other = try GitHubClient(repository: .init(owner: "acme", name: "missing"), token: github.token,
                                             environment: ["GITHUB_API_URL": github.baseURL], transport: transport)
                await #expect {
                    try await other.checkAccess()
                } throws: { error in
                    (error as? GitHubError)?.message == "repository acme/missing not found or the token lacks access to it"
                }

                github.missingPermission = "contents=write"
                await #expect {
                    try await client(github, transport).checkAccess()
                } throws: { error in
                    guard case .permissionDenied(_, _, "contents=write", _)? = error as? GitHubError else { return false }
                    return (error as? GitHubError)?.message.contains("contents=write") == true
                }
            }
        }
    }

    @Test func findsADraftThroughPaginatedReleases() async throws {
        try await withFakeGitHub { github in
            github.pageSize = 2
            github.addRelease(tag: "v0.9.0", draft: true)
            for minor in 0..<5 { github.addRelease(tag: "v1.\(minor).0", draft: false) }
            try await withTransport { transport, _ in
                let api = try client(github, transport)
                let published = try await api.release(forTag: "v1.3.0")
                #expect(published?.draft == false)
                let draft = try #require(try await api.release(forTag: "v0.9.0"))
                #expect(draft.draft)
                #expect(github.log.filter { $0.hasPrefix("GET /repos/acme/rocket/releases") && !$0.contains("tags") }.count == 3)
                #expect(try await api.release(forTag: "v9.9.9") == nil)
            }
        }
    }

    @Test func createReleaseReusesAnExistingOneOnAlreadyExists() async throws {
        try await withFakeGitHub { github in
            let existing = github.addRelease(tag: "v2.0.0", draft: true)
            try await withTransport { transport, recorder in
                let (release, created) = try await client(github, transport).createRelease(
                    tag: "v2.0.0", name: "2.0.0", body: "notes", draft: true, prerelease: false)
                #expect(!created)
                #expect(release.id == existing)
                #expect(github.log.filter { $0 == "POST /repos/acme/rocket/releases" }.count == 1)
                #expect(recorder.sleeps.isEmpty)
                let (fresh, didCreate) = try await client(github, transport).createRelease(
                    tag: "v2.1.0", name: nil, body: nil, draft: true, prerelease: true)
                #expect(didCreate)
                #expect(fresh.uploadURL.hasSuffix("/assets{?name,label}"))
            }
        }
    }

    @Test func listsAssetsAcrossPages() async throws {
        try await withFakeGitHub { github in
            github.pageSize = 2
            let id = github.addRelease(tag: "v1.0.0", draft: true)
            for index in 0..<5 { github.addAsset(releaseID: id, name: "a\(index)", bytes: [1, 2, 3]) }
            try await withTransport { transport, _ in
                let assets = try await client(github, transport).listAssets(releaseID: id)
                #expect(assets.map(\.name) == ["a0", "a1", "a2", "a3", "a4"])
            }
        }
    }

    @Test func htmlInsteadOfJSONSaysSo() async throws {
        try await withFakeGitHub { github in
            github.htmlPage = "<!DOCTYPE html><html><head><title>Sign in</title></head></html>"
            try await withTransport { transport, _ in
                await #expect {
                    _ = try await client(github, transport).release(forTag: "v1.0.0")
                } throws: { error in
                    guard case let .notJSON(_, 200, contentType, snippet)? = error as? GitHubError else { return false }
                    let message = (error as? GitHubError)?.message ?? ""
                    return contentType?.hasPrefix("text/html") == true && snippet.hasPrefix("<!DOCTYPE html>")
                        && message.contains("instead of JSON") && message.contains("HTTP 200")
                }
            }
        }
    }

    @Test func renamesPublishesAndDeletes() async throws {
        try await withFakeGitHub { github in
            let id = github.addRelease(tag: "v3.0.0", draft: true)
            let asset = github.addAsset(releaseID: id, name: "old.zip", bytes: [1])
            try await withTransport { transport, _ in
                let api = try client(github, transport)
                #expect(try await api.updateAsset(id: asset, name: "new.zip").name == "new.zip")
                #expect(try await api.publish(releaseID: id, makeLatest: .yes).draft == false)
                try await api.deleteAsset(id: asset)
                try await api.deleteRelease(id: id)
                try await api.deleteRelease(id: id)  // already gone: fine
                #expect(github.allReleases.isEmpty)
                #expect(github.allAssets.isEmpty)
            }
        }
    }
}
