import Foundation
import Testing
@testable import Git

@Suite("Commits made with libgit2, checked with git", .offThePool)
struct CommitTests {
    let author = Signature(name: "Ada Author", email: "ada@example.com", date: Date(timeIntervalSince1970: 1_700_000_000), timeZoneOffsetMinutes: 120)
    let committer = Signature(name: "Cy Committer", email: "cy@example.com", date: Date(timeIntervalSince1970: 1_700_000_100), timeZoneOffsetMinutes: -300)

    @Test func commitsExactlyTheGivenPathsAndGitAgrees() throws {
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "1.0.0\n")
        try repo.write("old.txt", "old\n")
        try repo.git("add", "VERSION", "old.txt")
        try repo.git("commit", "-q", "-m", "Add files")
        // Modified, added, deleted: all three kinds of change are committed.
        try repo.write("VERSION", "1.1.0\n")
        try repo.write("CHANGELOG.md", "# 1.1.0\n")
        try FileManager.default.removeItem(atPath: repo.path + "/old.txt")
        let parent = try repo.git("rev-parse", "HEAD")

        let repository = try Repository.open(repo.path)
        let commit = try repository.commit(
            paths: ["VERSION", "CHANGELOG.md", "old.txt"], message: "Version bump to 1.1.0  \n\n\n", author: author, committer: committer)

        #expect(try repo.git("rev-parse", "HEAD") == commit.hex)
        #expect(try repo.git("rev-parse", "HEAD^") == parent)
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
        #expect(try repo.git("log", "-1", "--format=%an%n%ae%n%cn%n%ce%n%s%n%at %ai%n%ct %ci")
            == "Ada Author\nada@example.com\nCy Committer\ncy@example.com\nVersion bump to 1.1.0\n"
            + "1700000000 2023-11-15 00:13:20 +0200\n1700000100 2023-11-14 17:15:00 -0500")
        // git's own clean-up: trailing spaces and blank lines dropped, one final newline.
        #expect(try repo.git("cat-file", "commit", "HEAD").hasSuffix("\n\nVersion bump to 1.1.0"))
        let changed = try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n").sorted()
        #expect(changed == ["CHANGELOG.md", "VERSION", "old.txt"])
        #expect(try repo.git("status", "--porcelain") == "")
        #expect(try repo.git("reflog", "-1", "--format=%gs", "refs/heads/main").contains("Version bump to 1.1.0"))
    }

    @Test func leavesOtherChangesDirtyAndOutOfTheCommit() throws {
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "1.0.0\n")
        try repo.write("notes.txt", "a\n")
        try repo.write("staged.txt", "a\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Base")
        try repo.write("VERSION", "2.0.0\n")
        try repo.write("notes.txt", "edited, not staged\n")
        try repo.write("staged.txt", "edited and staged\n")
        try repo.git("add", "staged.txt")
        try repo.write("untracked.txt", "new\n")

        let commit = try Repository.open(repo.path).commit(paths: ["VERSION"], message: "Bump", author: author, committer: committer)

        #expect(try repo.git("show", "--name-only", "--format=", commit.hex) == "VERSION")
        #expect(try repo.git("show", "HEAD:staged.txt") == "a")
        let status = try GitFixture.status(repo)
        #expect(status == " M notes.txt\nM  staged.txt\n?? untracked.txt")
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
    }

    @Test func firstCommitOnAnUnbornBranchHasNoParent() throws {
        let repo = try TemporaryRepository(branch: "trunk", commit: false)
        try repo.write("README.md", "hello\n")
        let commit = try Repository.open(repo.path).commit(paths: ["README.md"], message: "Initial", author: author, committer: committer)
        #expect(try repo.git("rev-parse", "refs/heads/trunk") == commit.hex)
        #expect(try repo.git("rev-list", "--parents", "-n", "1", "HEAD") == commit.hex)
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func commitsOnADetachedHeadAndUndoesIt() throws {
        let repo = try TemporaryRepository()
        try repo.git("checkout", "-q", "--detach")
        try repo.write("VERSION", "1\n")
        let before = try repo.git("rev-parse", "HEAD")
        let repository = try Repository.open(repo.path)
        let commit = try repository.commit(paths: ["VERSION"], message: "x", author: author, committer: committer)
        // HEAD stays detached and moves to the commit; the branch is untouched.
        #expect(try repo.git("rev-parse", "HEAD") == commit.hex)
        #expect(try repo.git("rev-parse", "HEAD^") == before)
        #expect(try repo.git("rev-parse", "refs/heads/main") == before)
        #expect(try repository.head() == .detached(commit: commit))
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
        #expect(try repository.undoCommit(commit))
        #expect(try repo.git("rev-parse", "HEAD") == before)
        #expect(try repository.head() == .detached(commit: try #require(ObjectID(hex: before))))
        #expect(try repo.git("status", "--porcelain") == "?? VERSION")
        // A second undo finds HEAD elsewhere and changes nothing.
        #expect(try !repository.undoCommit(commit))
    }

    @Test func refusesAPathThatIsNowhere() throws {
        let repo = try TemporaryRepository()
        let error = #expect(throws: GitError.self) {
            try Repository.open(repo.path).commit(paths: ["missing.txt"], message: "x", author: author, committer: committer)
        }
        #expect(error?.code == .notFound)
    }

    @Test func undoCommitRestoresTheBranchAndTheIndex() throws {
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "1.0.0\n")
        try repo.write("gone.txt", "bye\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Base")
        let base = try repo.git("rev-parse", "HEAD")
        try repo.write("VERSION", "1.1.0\n")
        try repo.write("added.txt", "new\n")
        try FileManager.default.removeItem(atPath: repo.path + "/gone.txt")
        let repository = try Repository.open(repo.path)
        let commit = try repository.commit(paths: ["VERSION", "added.txt", "gone.txt"], message: "Bump", author: author, committer: committer)

        #expect(try repository.undoCommit(commit))
        #expect(try repo.git("rev-parse", "HEAD") == base)
        #expect(try repo.git("symbolic-ref", "HEAD") == "refs/heads/main")
        #expect(try repo.git("diff", "--cached", "--name-only") == "")
        // The work tree keeps the bytes (the caller restores them): git sees them as unstaged.
        let status = try GitFixture.status(repo)
        #expect(status == " M VERSION\n D gone.txt\n?? added.txt")
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
    }

    @Test func undoCommitOfARootCommitLeavesTheBranchUnborn() throws {
        let repo = try TemporaryRepository(commit: false)
        try repo.write("README.md", "hi\n")
        let repository = try Repository.open(repo.path)
        let commit = try repository.commit(paths: ["README.md"], message: "First", author: author, committer: committer)
        #expect(try repository.undoCommit(commit))
        #expect(try repository.head() == .unborn(branch: "main"))
        #expect(try GitFixture.status(repo) == "?? README.md")
    }

    @Test func undoCommitRefusesWhenHeadMovedOn() throws {
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "2\n")
        let repository = try Repository.open(repo.path)
        let commit = try repository.commit(paths: ["VERSION"], message: "Bump", author: author, committer: committer)
        try repo.write("other.txt", "x\n")
        try repo.git("add", "other.txt")
        try repo.git("commit", "-q", "-m", "Someone else's work")
        let head = try repo.git("rev-parse", "HEAD")

        #expect(try repository.undoCommit(commit) == false)
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("status", "--porcelain") == "")
    }
}
