import Foundation
import Testing
@testable import Shiplane

@Suite("GitHub release publisher", .offThePool)
struct GitHubReleasePublisherTests {
    private func publisher(_ github: FakeGitHub, _ transport: HTTPTransport, token: String?) -> GitHubReleasePublisher {
        GitHubReleasePublisher(repository: GitHubRepository(owner: "acme", name: "rocket"), token: token,
                               environment: ["GITHUB_API_URL": github.baseURL], transport: transport, version: "0.1.0")
    }

    @Test func createsUploadsAndPublishes() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "tarball bytes")
            let sums = try writeFile(folder, "SHA256SUMS", "abc  app.tar.gz\n")
            try await withFakeGitHub { github in
                try await withTransport { transport, _ in
                    let result = try await publisher(github, transport, token: github.token).publish(
                        GitHubReleaseRequest(tag: "v1.0.0", notes: "Notes", assets: [.init(path: tarball), .init(path: sums)]))
                    #expect(result.createdRelease)
                    #expect(result.published)
                    #expect(result.uploaded.sorted() == ["SHA256SUMS", "app.tar.gz"])
                    #expect(result.skipped.isEmpty && result.replaced.isEmpty)
                    let release = try #require(github.allReleases.first)
                    #expect(!release.draft)
                    #expect(github.allAssets.map(\.name).sorted() == ["SHA256SUMS", "app.tar.gz"])
                    #expect(github.allAssets.first { $0.name == "app.tar.gz" }?.contentType == "application/gzip")
                    // Draft first, publish last.
                    let log = github.log
                    let create = try #require(log.firstIndex(of: "POST /repos/acme/rocket/releases"))
                    let publish = try #require(log.firstIndex { $0.hasPrefix("PATCH /repos/acme/rocket/releases/") })
                    let uploads = log.indices.filter { log[$0].hasPrefix("POST /uploads/") }
                    #expect(uploads.count == 2)
                    #expect(uploads.allSatisfy { create < $0 && $0 < publish })
                }
            }
        }
    }

    @Test func rerunReusesSkipsAndReplacesUploadFirst() async throws {
        try await withTemporaryDirectory { folder in
            let tarball = try writeFile(folder, "app.tar.gz", "version one")
            let notes = try writeFile(folder, "notes.txt", "same")
            try await withFakeGitHub { github in
                try await withTransport { transport, _ in
                    let request = GitHubReleaseRequest(tag: "v1.0.0", assets: [.init(path: tarball), .init(path: notes)], publish: false)
                    let first = try await publisher(github, transport, token: github.token).publish(request)
                    #expect(first.createdRelease)

                    try writeFile(folder, "app.tar.gz", "version two, longer")
                    let before = github.log.count
                    let second = try await publisher(github, transport, token: github.token).publish(request)
                    #expect(!second.createdRelease)
                    #expect(second.releaseID == first.releaseID)
                    #expect(second.skipped == ["notes.txt"])
                    #expect(second.replaced == ["app.tar.gz"])
                    #expect(github.allReleases.count == 1)

                    let log = Array(github.log[before...])
                    #expect(!log.contains("POST /repos/acme/rocket/releases"))
                    let upload = try #require(log.firstIndex { $0.hasPrefix("POST /uploads/") })
                    let delete = try #require(log.firstIndex { $0.hasPrefix("DELETE /repos/acme/rocket/releases/assets/") })
                    let rename = try #require(log.firstIndex { $0.hasPrefix("PATCH /repos/acme/rocket/releases/assets/") })
                    #expect(log[upload].hasSuffix("?name=app.tar.gz.shiplane-upload"))
                    #expect(upload < delete && delete < rename)
                    #expect(log.filter { $0.hasPrefix("POST /uploads/") }.count == 1)
                    let stored = github.allAssets.first { $0.name == "app.tar.gz" }
                    #expect(stored?.bytes == Array("version two, longer".utf8))
                    #expect(github.allAssets.count == 2)
                }
            }
        }
    }

    @Test func preflightReportsEveryProblemAtOnce() async throws {
        try await withTemporaryDirectory { folder in
            let one = try writeFile(folder, "a/app.zip", "1")
            let two = try writeFile(folder, "b/app.zip", "2")
            try await withFakeGitHub { github in
                try await withTransport { transport, _ in
                    let request = GitHubReleaseRequest(tag: "v1.0.0", assets: [
                        .init(path: one), .init(path: two), .init(path: folder.appendingPathComponent("missing.txt").path),
                        .init(path: folder.appendingPathComponent("a").path),
                    ])
                    await #expect {
                        _ = try await publisher(github, transport, token: "ghp_notTheRightTokenAtAll0123456789").publish(request)
                    } throws: { error in
                        guard let preflight = error as? ReleasePreflightError else { return false }
                        let text = preflight.underlyingErrors.map(allText(of:)).joined(separator: "\n")
                        return preflight.underlyingErrors.count == 4 && text.contains("missing.txt")
                            && text.contains("not a regular file") && text.contains("2 assets share the name app.zip")
                            && text.contains("refused the token")
                    }
                    #expect(github.allReleases.isEmpty)
                    #expect(!github.log.contains { $0.hasPrefix("POST") })
                }
            }
        }
    }

    @Test func missingTokenFailsBeforeAnyRequest() async throws {
        try await withTemporaryDirectory { folder in
            let asset = try writeFile(folder, "app.zip", "1")
            try await withFakeGitHub { github in
                try await withTransport { transport, _ in
                    await #expect {
                        _ = try await publisher(github, transport, token: nil).publish(GitHubReleaseRequest(tag: "v1", assets: [.init(path: asset)]))
                    } throws: { error in
                        let text = allText(of: error)
                        return text.contains("GITHUB_TOKEN") && error is ReleasePreflightError
                    }
                    #expect(github.log.isEmpty)
                }
            }
        }
        #expect(GitHubReleasePublisher.token(from: ["GH_TOKEN": "x1y2"]) == "x1y2")
        #expect(GitHubReleasePublisher.token(from: ["GITHUB_TOKEN": " ", "GH_TOKEN": ""]) == nil)
    }

    @Test func concurrentUploadFailuresAreAllReported() async throws {
        try await withTemporaryDirectory { folder in
            let names = ["a.zip", "b.zip", "c.zip", "d.zip", "e.zip"]
            let assets = try names.map { ReleaseAssetFile(path: try writeFile(folder, $0, "bytes of \($0)")) }
            try await withFakeGitHub { github in
                try await withTransport { transport, _ in
                    // Two uploads fail for good: 400 is never retried.
                    github.failNext(1, method: "POST", path: "b.zip", status: 400, body: #"{"message":"bad b"}"#, contentType: "application/json")
                    github.failNext(1, method: "POST", path: "d.zip", status: 400, body: #"{"message":"bad d"}"#, contentType: "application/json")
                    await #expect {
                        _ = try await publisher(github, transport, token: github.token).publish(GitHubReleaseRequest(tag: "v1", assets: assets))
                    } throws: { error in
                        guard let failure = error as? GitHubPublishError, failure.createdRelease,
                              let aggregate = failure.underlyingErrors.first as? AggregateError else { return false }
                        let text = allText(of: aggregate)
                        return aggregate.underlyingErrors.count == 2 && text.contains("b.zip") && text.contains("d.zip")
                            && aggregate.message == "2 of 5 asset uploads failed"
                    }
                    #expect(github.allAssets.map(\.name).sorted() == ["a.zip", "c.zip", "e.zip"])
                    #expect(github.allReleases.first?.draft == true)
                }
            }
        }
    }

    @Test func tokenNeverAppearsInErrors() async throws {
        try await withTemporaryDirectory { folder in
            let asset = try writeFile(folder, "app.zip", "1")
            let secret = "ghp_SuperSecretValue0123456789abcdefXYZ"
            try await withFakeGitHub { github in
                github.echoAuthorizationInErrors = true
                try await withTransport { transport, _ in
                    do {
                        _ = try await publisher(github, transport, token: secret).publish(GitHubReleaseRequest(tag: "v1", assets: [.init(path: asset)]))
                        Issue.record("expected a failure")
                    } catch {
                        let text = allText(of: error)
                        #expect(text.contains("refused the token"))
                        #expect(!text.contains(secret))
                        #expect(!text.contains("SuperSecretValue"))
                    }
                    // A server error body echoing the token, seen through a client error, is redacted too.
                    let client = try GitHubClient(repository: .init(owner: "acme", name: "rocket"), token: secret,
                                                  environment: ["GITHUB_API_URL": github.baseURL], transport: transport)
                    github.failNext(1, path: "/releases/tags/", status: 400, body: #"{"message":"echo Bearer \#(secret) \#(secret)"}"#,
                                    contentType: "application/json")
                    do {
                        _ = try await client.release(forTag: "v1")
                        Issue.record("expected a failure")
                    } catch {
                        #expect(allText(of: error).contains("echo"))
                        #expect(!allText(of: error).contains(secret))
                    }
                }
            }
        }
    }

    @Test func replacesAnUnfinishedAssetDirectly() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "app.zip", "complete")
            try await withFakeGitHub { github in
                let id = github.addRelease(tag: "v1", draft: true)
                // An unfinished asset: the description's release-asset states are `uploaded` and `open`.
                github.addAsset(releaseID: id, name: "app.zip", bytes: Array("complete".utf8), state: "open")
                try await withTransport { transport, _ in
                    let result = try await publisher(github, transport, token: github.token).publish(
                        GitHubReleaseRequest(tag: "v1", assets: [.init(path: path)]))
                    #expect(result.uploaded == ["app.zip"])
                    #expect(github.allAssets.map(\.state) == ["uploaded"])
                }
            }
        }
    }

    @Test func uploadWhoseAnswerWasLostIsAdoptedOnRetry() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "app.zip", "payload")
            try await withFakeGitHub { github in
                github.inject(.init(method: "POST", pathContains: "?name=app.zip", remaining: 1, action: .dropResponse))
                try await withTransport { transport, recorder in
                    let result = try await publisher(github, transport, token: github.token).publish(
                        GitHubReleaseRequest(tag: "v1", assets: [.init(path: path)]))
                    #expect(result.uploaded == ["app.zip"])
                    #expect(result.published)
                    #expect(github.allAssets.map(\.name) == ["app.zip"])
                    // A named upload may be repeated: the repeat gets 422 already_exists, and the
                    // asset list shows the lost one landed whole, so it is adopted.
                    #expect(github.log.filter { $0.hasSuffix("?name=app.zip") }.count == 2)
                    #expect(recorder.sleeps.count == 1)
                }
            }
        }
    }

    @Test func anAssetOfTheSameSizeButOtherContentIsReplacedByDigest() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "app.zip", "new bytes!")
            try await withFakeGitHub { github in
                let id = github.addRelease(tag: "v1", draft: true)
                github.addAsset(releaseID: id, name: "app.zip", bytes: Array("old bytes!".utf8))
                try await withTransport { transport, _ in
                    let result = try await publisher(github, transport, token: github.token).publish(
                        GitHubReleaseRequest(tag: "v1", assets: [.init(path: path)]))
                    #expect(result.replaced == ["app.zip"], "same size, other digest: not skipped")
                    #expect(github.allAssets.map { String(decoding: $0.bytes, as: UTF8.self) } == ["new bytes!"])
                }
                // The same content again is skipped: the digests match.
                try await withTransport { transport, _ in
                    let again = try await publisher(github, transport, token: github.token).publish(
                        GitHubReleaseRequest(tag: "v1", assets: [.init(path: path)]))
                    #expect(again.skipped == ["app.zip"])
                }
            }
        }
    }

    /// A published asset may already be in people's hands: a file built again with other bytes
    /// is refused, naming both digests, and the published asset stays.
    @Test func aPublishedAssetIsNeverReplacedByOtherBytes() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "app.zip", "rebuilt!!!")
            try await withFakeGitHub { github in
                let id = github.addRelease(tag: "v1", draft: false)
                github.addAsset(releaseID: id, name: "app.zip", bytes: Array("released!!".utf8))
                try await withTransport { transport, _ in
                    await #expect {
                        _ = try await publisher(github, transport, token: github.token).publish(
                            GitHubReleaseRequest(tag: "v1", assets: [.init(path: path)]))
                    } throws: { error in
                        let text = describe(error) + " " + ((error as? any ReportableError)?.allErrors.map { describe($0) }.joined(separator: " ") ?? "")
                        return text.contains("sha256:" + SHA256.hex(of: Data("released!!".utf8)))
                            && text.contains("sha256:" + SHA256.hex(of: Data("rebuilt!!!".utf8)))
                    }
                    #expect(github.allAssets.map { String(decoding: $0.bytes, as: UTF8.self) } == ["released!!"])
                    #expect(!github.log.contains { $0.hasPrefix("POST /uploads/") || $0.hasPrefix("DELETE ") })
                }
            }
        }
    }

    @Test func aReleaseWhoseCreationAnswerWasLostCountsAsCreatedByThisRun() async throws {
        try await withFakeGitHub { github in
            github.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .dropResponse))
            try await withTransport { transport, _ in
                let result = try await publisher(github, transport, token: github.token).publish(
                    GitHubReleaseRequest(tag: "v2", notes: "notes"))
                #expect(result.createdRelease, "a rollback must delete it")
                #expect(github.allReleases.map(\.tag) == ["v2"])
                #expect(github.log.filter { $0 == "POST /repos/acme/rocket/releases" }.count == 1, "not sent twice")
            }
        }
    }

    @Test func aDraftLeftByAnEarlierRunGetsThisRunsTextsAndFlags() async throws {
        try await withFakeGitHub { github in
            _ = github.addRelease(tag: "v3", draft: true, name: "old name")
            try await withTransport { transport, _ in
                let result = try await publisher(github, transport, token: github.token).publish(
                    GitHubReleaseRequest(tag: "v3", name: "Version 3", notes: "the new notes", prerelease: true))
                #expect(result.published)
                let release = try #require(github.allReleases.first)
                #expect(release.name == "Version 3" && release.body == "the new notes" && release.prerelease && !release.draft)
            }
        }
    }
}
