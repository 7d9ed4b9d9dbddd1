import Testing

@testable import Shiplane

@Suite("Remote links", .offThePool)
struct RemoteLinksTests {
    @Test(
        "GitHub remote forms",
        arguments: [
            "https://github.com/o/r.git", "https://github.com/o/r", "https://github.com/o/r/", "http://github.com/o/r.git",
            "git@github.com:o/r.git", "git@github.com:o/r", "github.com:o/r.git", "ssh://git@github.com/o/r",
            "ssh://git@github.com/o/r.git", "ssh://git@github.com:22/o/r.git", "git+ssh://git@github.com/o/r.git",
            "git://github.com/o/r.git", "ssh://git@ssh.github.com:443/o/r.git", "  https://GitHub.com/o/r.git\n",
            "https://x-access-token:ghp_SECRET123@github.com/o/r.git", "https://user:p%40ss@github.com/o/r",
            "https://ghp_SECRET123@github.com/o/r.git",
        ])
    func github(_ remote: String) throws {
        let links = try #require(RemoteLinks(remoteURL: remote))
        #expect(links.host == .github)
        #expect(links.repositoryURL == "https://github.com/o/r")
        #expect(links.commitURL("abc") == "https://github.com/o/r/commit/abc")
        #expect(links.compareURL(from: "v1.1.0", to: "v1.2.0") == "https://github.com/o/r/compare/v1.1.0...v1.2.0")
        #expect(links.issueURL(12) == "https://github.com/o/r/issues/12")
        #expect(links.tagURL("v1.0.0") == "https://github.com/o/r/releases/tag/v1.0.0")
        for url in [links.repositoryURL, links.commitURL("a"), links.compareURL(from: "a", to: "b"), links.issueURL(1)] {
            #expect(!url.contains("SECRET"))
            #expect(!url.contains("@"))
            #expect(!url.contains("user"))
        }
    }

    @Test(
        "GitLab remote forms, with subgroups",
        arguments: [
            ("https://gitlab.com/group/sub/r", "https://gitlab.com/group/sub/r"),
            ("https://gitlab.com/group/sub/r.git", "https://gitlab.com/group/sub/r"),
            ("git@gitlab.com:group/r.git", "https://gitlab.com/group/r"),
            ("ssh://git@gitlab.com/group/sub/r.git", "https://gitlab.com/group/sub/r"),
            ("https://oauth2:glpat-SECRET@gitlab.com/group/r.git", "https://gitlab.com/group/r"),
        ])
    func gitlab(_ remote: String, _ repository: String) throws {
        let links = try #require(RemoteLinks(remoteURL: remote))
        #expect(links.host == .gitlab)
        #expect(links.repositoryURL == repository)
        #expect(links.commitURL("abc") == repository + "/-/commit/abc")
        #expect(links.compareURL(from: "v1.1.0", to: "v1.2.0") == repository + "/-/compare/v1.1.0...v1.2.0")
        #expect(links.issueURL(3) == repository + "/-/issues/3")
        #expect(!links.repositoryURL.contains("SECRET"))
    }

    @Test(
        "unknown hosts and malformed paths give no links",
        arguments: [
            "", "not a url", "https://git.sr.ht/~o/r", "git@example.com:o/r.git", "/local/path/repo",
            "file:///tmp/repo", "https://github.com/o", "https://github.com/o/r/extra", "https://github.com/o/../r",
            "https://github.com//r", "https://github.com/o/r%20x", "C:\\repos\\r", "https://gitlab.com/only",
        ])
    func unknown(_ remote: String) {
        #expect(RemoteLinks(remoteURL: remote) == nil)
    }

    @Test func selfHostedHostsCanBeNamed() throws {
        let links = try #require(RemoteLinks(remoteURL: "git@git.example.com:team/r.git", additionalHosts: ["git.example.com": .gitlab]))
        #expect(links.commitURL("a") == "https://git.example.com/team/r/-/commit/a")
    }

    @Test func refsArePercentEncoded() throws {
        let links = try #require(RemoteLinks(remoteURL: "https://github.com/o/r"))
        #expect(links.compareURL(from: "release/1.0 (old)", to: "v2+b") == "https://github.com/o/r/compare/release/1.0%20%28old%29...v2+b")
    }
}
