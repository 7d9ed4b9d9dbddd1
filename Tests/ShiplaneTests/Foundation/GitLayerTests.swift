import Foundation
import Testing
@testable import Git

@Suite("libgit2 layer, checked against the git command")
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
