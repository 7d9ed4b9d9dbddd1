import Foundation
import Testing
@testable import Git

@Suite("libgit2 layer, checked against the git command", .offThePool)
struct GitLayerTests {
    @Test func discoversTheRepositoryFromASubfolder() throws {
        let repo = try TemporaryRepository()
        try repo.write("Sources/App/main.swift", "print(1)\n")
        let repository = try Repository.discover(from: repo.path + "/Sources/App")
        let expected = try repo.git("rev-parse", "--show-toplevel")
        #expect(repository.workingDirectory.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
            == URL(fileURLWithPath: expected).resolvingSymlinksInPath().path)
        #expect(!repository.isBare)
    }

    @Test func reportsNotFoundOutsideARepository() throws {
        let folder = NSTemporaryDirectory() + "shiplane-norepo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A ceiling keeps discovery from walking into a repository above /tmp.
        #expect(throws: GitError.self) { try Repository.open(folder) }
    }

    @Test func headStatesMatchGit() throws {
        let repo = try TemporaryRepository()
        let repository = try Repository.open(repo.path)
        let head = try repo.git("rev-parse", "HEAD")
        #expect(try repository.head() == .branch(name: "main", commit: try #require(ObjectID(hex: head))))

        try repo.git("checkout", "-q", "--detach")
        #expect(try Repository.open(repo.path).head() == .detached(commit: try #require(ObjectID(hex: head))))

        let empty = try TemporaryRepository(branch: "trunk", commit: false)
        #expect(try Repository.open(empty.path).head() == .unborn(branch: "trunk"))
    }

    @Test func statusSeesStagedUnstagedUntrackedAndConflicted() throws {
        let repo = try TemporaryRepository()
        try repo.write("a.txt", "a\n")
        try repo.write("b.txt", "b\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "files")
        try repo.write("a.txt", "changed\n")                 // unstaged
        try repo.write("b.txt", "staged\n")
        try repo.git("add", "b.txt")                          // staged
        try repo.write("new/c.txt", "c\n")                    // untracked folder
        try repo.write("d.txt", "d\n")                        // untracked file
        try repo.write(".gitignore", "*.log\n")
        try repo.write("ignored.log", "x\n")                  // ignored: not listed

        let entries = try Repository.open(repo.path).status()
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0.path, $0.change) })
        #expect(byPath["a.txt"] == .unstaged)
        #expect(byPath["b.txt"] == .staged)
        #expect(byPath["new/"] == .untracked)
        #expect(byPath["d.txt"] == .untracked)
        #expect(byPath["ignored.log"] == nil)

        // The oracle: the same set of paths as `git status --porcelain`.
        let porcelain = try runProgram("/usr/bin/git", ["status", "--porcelain"], in: repo.path, environment: repo.environment)
            .stdout.split(separator: "\n").map { String($0.dropFirst(3)) }
        #expect(Set(entries.map(\.path)) == Set(porcelain))
    }

    @Test func statusSeesAConflict() throws {
        let repo = try TemporaryRepository()
        try repo.write("x.txt", "base\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "base")
        try repo.git("checkout", "-q", "-b", "other")
        try repo.write("x.txt", "other\n")
        try repo.git("commit", "-q", "-am", "other")
        try repo.git("checkout", "-q", "main")
        try repo.write("x.txt", "main\n")
        try repo.git("commit", "-q", "-am", "main")
        _ = try? repo.git("merge", "-q", "other")
        let entries = try Repository.open(repo.path).status()
        #expect(entries.contains { $0.path == "x.txt" && $0.change.contains(.conflicted) })
    }

    /// `status()` skips HEAD-against-index when the index's cached tree names HEAD's tree; every
    /// way the index can differ from HEAD must still take the full comparison, and agree with git.
    @Test func cachedTreeShortcutOnlyWhenTheIndexIsHead() throws {
        let repo = try TemporaryRepository()
        try repo.write("src/a.txt", "a\n")
        try repo.write("src/b/c.txt", "c\n")
        try repo.write("top.txt", "t\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "files")
        func porcelain() throws -> [String] {
            try runProgram("/usr/bin/git", ["status", "--porcelain"], in: repo.path, environment: repo.environment)
                .stdout.split(separator: "\n").map(String.init)
        }
        func ours() throws -> [String] { try Repository.open(repo.path).status().map { "\($0.shortCode) \($0.path)" } }

        // git commit leaves a valid cached tree that names HEAD's tree.
        #expect(try Repository.open(repo.path).indexCachedTreeIsHead())
        #expect(try ours().isEmpty)

        // A change in the work tree only: the index is still HEAD.
        try repo.write("src/a.txt", "changed\n")
        #expect(try Repository.open(repo.path).indexCachedTreeIsHead())
        #expect(try ours() == [" M src/a.txt"])
        #expect(try ours() == (try porcelain()))

        // Staged: the cached tree is invalidated, so the full comparison runs.
        try repo.git("add", "src/a.txt")
        let index = try Data(contentsOf: URL(fileURLWithPath: repo.path + "/.git/index"))
        let objects = try repo.git("count-objects", "-v")
        #expect(!(try Repository.open(repo.path).indexCachedTreeIsHead()))
        #expect(try ours() == ["M  src/a.txt"])
        #expect(try ours() == (try porcelain()))
        // Asking wrote nothing: no object, no change to the index.
        #expect(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/.git/index")) == index)
        #expect(try repo.git("count-objects", "-v") == objects)

        // Staged back to HEAD's content: nothing is staged, whatever the cache says.
        try repo.write("src/a.txt", "a\n")
        try repo.git("add", "src/a.txt")
        #expect(try ours().isEmpty)
        #expect(try porcelain().isEmpty)

        // A valid cached tree that is not HEAD's: commit, then move HEAD back without touching the index.
        try repo.write("src/b/c.txt", "c2\n")
        try repo.git("commit", "-q", "-am", "c2")
        #expect(try Repository.open(repo.path).indexCachedTreeIsHead())
        try repo.git("reset", "-q", "--soft", "HEAD~1")
        #expect(!(try Repository.open(repo.path).indexCachedTreeIsHead()))
        #expect(try ours() == ["M  src/b/c.txt"])
        #expect(try ours() == (try porcelain()))

        // A staged deletion and a staged new file, with the cached tree invalid.
        try repo.git("commit", "-q", "-m", "c2 again")
        try repo.git("rm", "-q", "top.txt")
        try repo.write("new.txt", "n\n")
        try repo.git("add", "new.txt")
        #expect(try Set(porcelain()) == ["D  top.txt", "A  new.txt"])
        let entries = try Repository.open(repo.path).status()
        #expect(Set(entries.map(\.path)) == ["top.txt", "new.txt"])
        #expect(entries.allSatisfy { $0.change == .staged })
    }

    @Test func cleanTreeHasNoEntries() throws {
        let repo = try TemporaryRepository()
        #expect(try Repository.open(repo.path).status().isEmpty)
    }

    @Test func bareRepositoryIsBare() throws {
        let repo = try TemporaryRepository(bare: true)
        let repository = try Repository.open(repo.path)
        #expect(repository.isBare)
        #expect(repository.workingDirectory == nil)
    }
}
