import Foundation
import Testing
@testable import Git

@Suite("Pushes with libgit2, checked in the receiving repository with git", .offThePool)
struct PushTests {
    /// A work repository with tags v1.0.0 (annotated) and other (lightweight), and a bare remote
    /// that has main.
    private func repositories() throws -> (work: TemporaryRepository, bare: TemporaryRepository) {
        let bare = try TemporaryRepository(bare: true)
        let work = try TemporaryRepository()
        try work.git("remote", "add", "origin", bare.path)
        try work.git("push", "-q", "origin", "main")
        try work.git("tag", "-a", "-m", "Release 1.0.0", "v1.0.0")
        try work.git("tag", "other")
        return (work, bare)
    }

    private func remoteRef(_ bare: TemporaryRepository, _ name: String) throws -> String? {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare.path, "rev-parse", "--verify", "-q", name], in: bare.root, environment: bare.environment)
        return output.status == 0 ? output.stdout.trimmingCharacters(in: .newlines) : nil
    }

    private func remoteRefs(_ bare: TemporaryRepository) throws -> [String] {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare.path, "show-ref"], in: bare.root, environment: bare.environment)
        return output.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    @Test(arguments: ["path", "file-url", "remote-name"])
    func pushesOnlyTheNamedRefs(_ how: String) throws {
        let (work, bare) = try repositories()
        let remote = switch how {
        case "path": bare.path
        case "file-url": "file://" + bare.path
        default: "origin"
        }
        try Repository.open(work.path).push(remote: remote, refspecs: ["refs/tags/v1.0.0"], credentials: .none)
        #expect(try remoteRef(bare, "refs/tags/v1.0.0") == (try work.git("rev-parse", "refs/tags/v1.0.0")))
        #expect(try remoteRefs(bare) == ["refs/heads/main", "refs/tags/v1.0.0"])
    }

    @Test func pushesABranchAndATagTogether() throws {
        let (work, bare) = try repositories()
        let head = try GitFixture.commit(work, "Bump", at: 1_700_000_000)
        try Repository.open(work.path).push(remote: "origin", refspecs: ["refs/heads/main", "refs/tags/v1.0.0"], credentials: .none)
        #expect(try remoteRef(bare, "refs/heads/main") == head)
        #expect(try remoteRef(bare, "refs/tags/v1.0.0") != nil)
        #expect(try runProgram("/usr/bin/git", ["--git-dir=" + bare.path, "fsck", "--strict", "--no-progress"], in: bare.root, environment: bare.environment).status == 0)
    }

    @Test func nonFastForwardIsRejectedNamingTheRef() throws {
        let (work, bare) = try repositories()
        // Someone else pushed to main; our main went another way.
        let other = try TemporaryRepository()
        try other.git("fetch", "-q", bare.path, "main")
        try other.git("reset", "-q", "--hard", "FETCH_HEAD")
        try GitFixture.commit(other, "Their work", at: 1_700_000_000)
        try other.git("push", "-q", bare.path, "main")
        let theirs = try remoteRef(bare, "refs/heads/main")
        try GitFixture.commit(work, "Our work", at: 1_700_000_100)

        let error = #expect(throws: GitError.self) {
            try Repository.open(work.path).push(remote: "origin", refspecs: ["refs/heads/main"], credentials: .none)
        }
        #expect(error?.code == .rejected)
        #expect(error?.message.contains("refs/heads/main") == true)
        #expect(try remoteRef(bare, "refs/heads/main") == theirs)
    }

    @Test func anExistingRemoteTagIsNotMovedWithoutForce() throws {
        let (work, bare) = try repositories()
        let repository = try Repository.open(work.path)
        try repository.push(remote: "origin", refspecs: ["refs/tags/other"], credentials: .none)
        let first = try remoteRef(bare, "refs/tags/other")
        try GitFixture.commit(work, "More", at: 1_700_000_000)
        try work.git("tag", "-f", "other")

        let error = #expect(throws: GitError.self) { try repository.push(remote: "origin", refspecs: ["refs/tags/other"], credentials: .none) }
        #expect(error?.code == .rejected)
        #expect(error?.message.contains("refs/tags/other") == true)
        #expect(try remoteRef(bare, "refs/tags/other") == first)

        try repository.push(remote: "origin", refspecs: ["+refs/tags/other"], credentials: .none)
        #expect(try remoteRef(bare, "refs/tags/other") == (try work.git("rev-parse", "HEAD")))
    }

    @Test func deletesARemoteTag() throws {
        let (work, bare) = try repositories()
        let repository = try Repository.open(work.path)
        try repository.push(remote: "file://" + bare.path, refspecs: ["refs/tags/v1.0.0"], credentials: .none)
        #expect(try remoteRef(bare, "refs/tags/v1.0.0") != nil)
        try repository.push(remote: "file://" + bare.path, refspecs: [":refs/tags/v1.0.0"], credentials: .none)
        #expect(try remoteRef(bare, "refs/tags/v1.0.0") == nil)
        #expect(try remoteRefs(bare) == ["refs/heads/main"])
    }

    @Test func refusesNoRefspecsAndUnknownRemotes() throws {
        let (work, bare) = try repositories()
        let repository = try Repository.open(work.path)
        let empty = #expect(throws: GitError.self) { try repository.push(remote: "origin", refspecs: [], credentials: .none) }
        #expect(empty?.code == .invalid)
        let unknown = #expect(throws: GitError.self) { try repository.push(remote: "upstream", refspecs: ["refs/tags/v1.0.0"], credentials: .none) }
        #expect(unknown?.code == .notFound)
        let missingRef = #expect(throws: GitError.self) { try repository.push(remote: "origin", refspecs: ["refs/tags/nope"], credentials: .none) }
        #expect(missingRef?.code == .notFound)
        #expect(try remoteRefs(bare) == ["refs/heads/main"])
    }

    @Test func remoteURLReadsTheConfiguredRemote() throws {
        let (work, bare) = try repositories()
        let repository = try Repository.open(work.path)
        #expect(try repository.remoteURL(named: "origin") == bare.path)
        #expect(try repository.remoteURL(named: "upstream") == nil)
    }

    @Test func redactionRemovesUserInfoAndSecrets() {
        #expect(redactingCredentials(in: "failed to push to https://x-access-token:s3cr3t@example.com/o/r.git: 403")
            == "failed to push to https://example.com/o/r.git: 403")
        #expect(redactingCredentials(in: "'https://user@host/x' and ssh://git@host:22/r", secrets: [])
            == "'https://host/x' and ssh://host:22/r")
        #expect(redactingCredentials(in: "token s3cr3t in text", secrets: ["s3cr3t"]) == "token *** in text")
        #expect(String(describing: PushCredentials.token("s3cr3t")).contains("s3cr3t") == false)
    }
}
