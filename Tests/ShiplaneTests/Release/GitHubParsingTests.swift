import Foundation
import Testing
@testable import Shiplane

@Suite("GitHub parsing helpers", .offThePool)
struct GitHubParsingTests {
    @Test(arguments: [
        ("https://github.com/acme/rocket.git", "github.com"),
        ("https://github.com/acme/rocket", "github.com"),
        ("https://github.com/acme/rocket/", "github.com"),
        ("https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz@github.com/acme/rocket.git", "github.com"),
        ("http://user:pass@github.example.com:8443/acme/rocket.git", "github.example.com"),
        ("ssh://git@github.com/acme/rocket.git", "github.com"),
        ("ssh://git@github.com:22/acme/rocket.git", "github.com"),
        ("git@github.com:acme/rocket.git", "github.com"),
        ("git@ghe.corp.example:acme/rocket", "ghe.corp.example"),
        ("git://github.com/acme/rocket.git", "github.com"),
        ("acme/rocket", "github.com"),
    ])
    func parsesRemoteURLs(remote: String, host: String) throws {
        let repository = try GitHubRepository(remoteURL: remote)
        #expect(repository == GitHubRepository(owner: "acme", name: "rocket", host: host))
    }

    @Test(arguments: ["https://github.com/acme", "", "https://github.com/a/b/c", "git@github.com:"])
    func rejectsRemotesWithoutOwnerAndName(remote: String) {
        #expect(throws: GitHubError.self) { try GitHubRepository(remoteURL: remote) }
    }

    @Test func invalidRemoteErrorHidesCredentials() {
        do {
            _ = try GitHubRepository(remoteURL: "https://bob:hunter2secret@github.com/only-owner")
            Issue.record("expected an error")
        } catch {
            #expect(!allText(of: error).contains("hunter2secret"))
        }
    }

    @Test(arguments: [
        ("https://uploads.github.com/repos/o/r/releases/1/assets{?name,label}", ["name": "app 1.0.tar.gz"],
         "https://uploads.github.com/repos/o/r/releases/1/assets?name=app%201.0.tar.gz"),
        ("https://uploads.github.com/repos/o/r/releases/1/assets{?name,label}", ["name": "a&b=c", "label": "Linux x86"],
         "https://uploads.github.com/repos/o/r/releases/1/assets?name=a%26b%3Dc&label=Linux%20x86"),
        ("https://x/{owner}/{repo}{/path}", ["owner": "o", "repo": "r", "path": "a/b"], "https://x/o/r/a%2Fb"),
        ("https://x/{+path}/y", ["path": "a/b"], "https://x/a/b/y"),
        ("https://x/a{?q}{&r}", ["q": "1", "r": "2"], "https://x/a?q=1&r=2"),
        ("https://x/a{?missing}", [:], "https://x/a"),
    ])
    func expandsURITemplates(template: String, variables: [String: String], expected: String) {
        #expect(URITemplate.expand(template, with: variables) == expected)
    }

    @Test func findsTheNextLink() {
        let header = #"<https://api.github.com/repositories/1/releases?page=2>; rel="next", <https://api.github.com/repositories/1/releases?page=5>; rel="last""#
        #expect(LinkHeader.url(for: "next", in: header) == "https://api.github.com/repositories/1/releases?page=2")
        #expect(LinkHeader.url(for: "last", in: header) == "https://api.github.com/repositories/1/releases?page=5")
        #expect(LinkHeader.url(for: "prev", in: header) == nil)
        #expect(LinkHeader.url(for: "next", in: nil) == nil)
    }

    @Test(arguments: [
        ("app.tar.gz", "application/gzip"), ("APP.TGZ", "application/gzip"), ("app.zip", "application/zip"),
        ("meta.json", "application/json"), ("notes.txt", "text/plain"), ("App.dmg", "application/x-apple-diskimage"),
        ("app.deb", "application/vnd.debian.binary-package"), ("app.rpm", "application/x-rpm"),
        ("SHA256SUMS", "text/plain"), ("shiplane-linux", "application/octet-stream"),
    ])
    func choosesContentTypes(name: String, type: String) {
        #expect(ContentType.forFileName(name) == type)
    }
}
