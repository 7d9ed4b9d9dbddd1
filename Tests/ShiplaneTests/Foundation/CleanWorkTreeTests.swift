import Foundation
import Testing
@testable import Git

/// `status()` answers "clean" from the index's stat data when it can (`CleanWorkTreeCheck`) and
/// otherwise runs libgit2's full status. Every case here is checked against `git status` and
/// against what the fast check says, so a fast check that calls a changed tree clean fails.
@Suite("Clean work tree from stat data, checked against git", .offThePool)
struct CleanWorkTreeTests {
    /// A committed tree whose files are older than the index (so none is racily clean), with
    /// names whose sort order interleaves folders and files.
    private func committedTree() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        let files = ["a/b.txt", "a/b/c.txt", "a/b-c/d.txt", "a/b0", "a/b/e/f.txt", "top.txt", "z/y/x/w.txt",
                     ".gitignore", "run.sh"]
        for file in files { try repo.write(file, file == ".gitignore" ? "*.log\nbuild/\n" : "\(file)\n") }
        _ = try runProgram("/bin/chmod", ["+x", repo.path + "/run.sh"], in: repo.path, environment: repo.environment)
        try repo.write("link", "")
        try FileManager.default.removeItem(atPath: repo.path + "/link")
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/link", withDestinationPath: "top.txt")
        // Files an hour old: the index written after them is strictly newer.
        let past = Date().addingTimeInterval(-3600)
        for file in files + ["README.md"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: repo.path + "/" + file)
        }
        try repo.git("add", "-A")
        try repo.git("commit", "-q", "-m", "tree")
        return repo
    }

    private func porcelainPaths(_ repo: TemporaryRepository) throws -> Set<String> {
        let output = try runProgram("/usr/bin/git", ["status", "--porcelain"], in: repo.path, environment: repo.environment)
        return Set(output.stdout.split(separator: "\n").map { String($0.dropFirst(3)) })
    }

    private func check(_ repo: TemporaryRepository, fastSaysClean: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let repository = try Repository.open(repo.path)
        #expect(repository.workTreeMatchesIndexByStat() == fastSaysClean, sourceLocation: sourceLocation)
        let ours = Set(try repository.status().map(\.path))
        #expect(ours == (try porcelainPaths(repo)), sourceLocation: sourceLocation)
    }

    @Test func aCleanTreeIsConfirmedFromStatData() throws {
        let repo = try committedTree()
        try check(repo, fastSaysClean: true)
        #expect(try porcelainPaths(repo).isEmpty)
    }

    @Test func ignoredFilesAndFoldersKeepItClean() throws {
        let repo = try committedTree()
        try repo.write("debug.log", "x\n")
        try repo.write("a/b/trace.log", "x\n")
        try repo.write("build/out/bin", "x\n")
        try check(repo, fastSaysClean: true)
    }

    @Test func everyKindOfChangeIsReportedAsGitDoes() throws {
        let changes: [(String, (TemporaryRepository) throws -> Void)] = [
            ("modified", { try $0.write("a/b/c.txt", "changed and longer\n") }),
            ("same size, new time", { repo in
                try repo.write("a/b0", "A/B0\n")
            }),
            ("deleted", { try FileManager.default.removeItem(atPath: $0.path + "/a/b/e/f.txt") }),
            ("untracked file", { try $0.write("a/b-c/new.txt", "n\n") }),
            ("untracked folder", { try $0.write("new/deeper/file.txt", "n\n") }),
            ("untracked at the root", { try $0.write("new.txt", "n\n") }),
            ("executable bit", { repo in
                _ = try runProgram("/bin/chmod", ["+x", repo.path + "/top.txt"], in: repo.path, environment: repo.environment)
            }),
            ("file became a symlink", { repo in
                try FileManager.default.removeItem(atPath: repo.path + "/top.txt")
                try FileManager.default.createSymbolicLink(atPath: repo.path + "/top.txt", withDestinationPath: "run.sh")
            }),
            ("file became a folder", { repo in
                try FileManager.default.removeItem(atPath: repo.path + "/top.txt")
                try repo.write("top.txt/inner.txt", "now a folder\n")
            }),
            ("several at once", { repo in
                try repo.write("a/b/c.txt", "changed and longer\n")
                try FileManager.default.removeItem(atPath: repo.path + "/a/b0")
                try repo.write("a/b/e/new.txt", "n\n")
                try repo.write("fresh/one.txt", "n\n")
                try repo.write("fresh/two/three.txt", "n\n")
                try repo.write("fresh/skip.log", "ignored\n")
            }),
            ("a modified file whose name is not UTF-8", { repo in
                let script = "n=$(printf 'caf\\351.txt'); printf 'x\\n' > \"$n\"; touch -d '1 hour ago' \"$n\"; git add \"$n\"; git commit -q -m latin1; printf 'changed\\n' >> \"$n\""
                let output = try runProgram("/bin/sh", ["-c", script], in: repo.path, environment: repo.environment)
                guard output.status == 0 else { throw TestFailure(output.stderr) }
            }),
            ("an untracked file whose name is not UTF-8", { repo in
                let output = try runProgram("/bin/sh", ["-c", "printf 'x\\n' > \"$(printf 'new\\351.txt')\""], in: repo.path, environment: repo.environment)
                guard output.status == 0 else { throw TestFailure(output.stderr) }
            }),
            ("folder became a file", { repo in
                try FileManager.default.removeItem(atPath: repo.path + "/z/y")
                try repo.write("z/y", "now a file\n")
            }),
        ]
        for (name, change) in changes {
            let repo = try committedTree()
            try change(repo)
            let repository = try Repository.open(repo.path)
            #expect(!repository.workTreeMatchesIndexByStat(), "\(name)")
            let ours = Set(try repository.status().map { "\($0.change.contains(.untracked) ? "??" : "~") \($0.path)" })
            // -z: paths as bytes, unquoted (names that are not UTF-8 compare as ours do, with U+FFFD).
            let git = Set(try runProgram("/usr/bin/git", ["status", "--porcelain", "-z"], in: repo.path, environment: repo.environment)
                .stdout.split(separator: "\0").map { "\($0.hasPrefix("??") ? "??" : "~") \($0.dropFirst(3))" })
            #expect(ours == git, "\(name)")
            #expect(!git.isEmpty, "\(name)")
        }
    }

    /// The walk shared by several threads: a change anywhere, first or last entry included, is
    /// seen whatever the number of threads.
    @Test func everyThreadCountSeesEveryChange() throws {
        let repo = try committedTree()
        let entries = try repo.git("ls-files").split(separator: "\n").map(String.init)
        for parts in [1, 2, 3, 5, entries.count, entries.count + 3] {
            #expect(try Repository.open(repo.path).workTreeMatchesIndexByStat(parts: parts), "parts \(parts)")
        }
        for file in [entries.first, entries[entries.count / 2], entries.last].compactMap({ $0 }) {
            let changed = try committedTree()
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-10)], ofItemAtPath: changed.path + "/" + file)
            for parts in [1, 2, 3, entries.count] {
                #expect(!(try Repository.open(changed.path).workTreeMatchesIndexByStat(parts: parts)), "\(file), parts \(parts)")
            }
        }
    }

    /// More differing paths than the restricted status takes: libgit2's full status, same answer.
    @Test func thousandsOfChangesGetTheFullStatus() throws {
        let repo = try committedTree()
        let count = CleanWorkTreeCheck.maximumDifferingPaths + 10
        for number in 0..<count { try repo.write("many/file\(number).txt", "\(number)\n") }
        let repository = try Repository.open(repo.path)
        #expect(CleanWorkTreeCheck.run(repository).workTree == .unknown)
        #expect(try repository.status().map(\.path) == ["many/"])
        try repo.git("add", "many")
        try repo.git("commit", "-q", "-m", "many")
        for number in 0..<count { try repo.write("many/file\(number).txt", "changed \(number)\n") }
        let changed = try Repository.open(repo.path)
        #expect(CleanWorkTreeCheck.run(changed).workTree == .unknown)
        let entries = try changed.status()
        #expect(entries.count == count)
        #expect(Set(entries.map(\.path)) == (try porcelainPaths(repo)))
    }

    /// A linked worktree: `.git` is a file and the git folder is elsewhere.
    @Test func aLinkedWorktreeIsCheckedLikeAnyOther() throws {
        let repo = try committedTree()
        let other = repo.root + "/linked"
        try repo.git("worktree", "add", "-q", other)
        let environment = repo.environment
        func gitStatus() throws -> Set<String> {
            Set(try runProgram("/usr/bin/git", ["status", "--porcelain"], in: other, environment: environment)
                .stdout.split(separator: "\n").map { String($0.dropFirst(3)) })
        }
        #expect(try Repository.open(other).status().isEmpty)
        #expect(try gitStatus().isEmpty)
        try Data("changed and longer\n".utf8).write(to: URL(fileURLWithPath: other + "/a/b/c.txt"))
        try Data("n\n".utf8).write(to: URL(fileURLWithPath: other + "/new.txt"))
        let entries = try Repository.open(other).status()
        #expect(Set(entries.map(\.path)) == (try gitStatus()))
        #expect(Set(entries.map(\.path)) == ["a/b/c.txt", "new.txt"])
    }

    /// A staged change: the work tree matches the index (the stat check says so), but the index
    /// is not HEAD, so `status()` must not take the shortcut.
    @Test func aStagedChangeIsStillReported() throws {
        let repo = try committedTree()
        try repo.write("top.txt", "staged\n")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: repo.path + "/top.txt")
        try repo.git("add", "top.txt")
        let repository = try Repository.open(repo.path)
        #expect(repository.workTreeMatchesIndexByStat())
        #expect(!repository.indexCachedTreeIsHead())
        #expect(try repository.status() == [StatusEntry(path: "top.txt", change: .staged)])
        #expect(try porcelainPaths(repo) == ["top.txt"])
    }

    /// Cases the stat data cannot settle are left to libgit2, which finds them clean.
    @Test func doubtfulCasesFallBackAndStillReadClean() throws {
        let repo = try committedTree()
        // An empty untracked folder: git shows nothing.
        try FileManager.default.createDirectory(atPath: repo.path + "/empty/inner", withIntermediateDirectories: true)
        try check(repo, fastSaysClean: false)
        try FileManager.default.removeItem(atPath: repo.path + "/empty")

        // An untracked folder holding only ignored files: git shows nothing.
        try repo.write("junk/deep/x.log", "x\n")
        try check(repo, fastSaysClean: false)
        try FileManager.default.removeItem(atPath: repo.path + "/junk")

        // Touched, same content: the stat data differ, the content does not.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: repo.path + "/top.txt")
        try check(repo, fastSaysClean: false)

        // A file changed in the instant the index was written is racily clean: never trusted.
        let fresh = try TemporaryRepository()
        try fresh.write("racy.txt", "r\n")
        try fresh.git("add", "racy.txt")
        let indexTime = try FileManager.default.attributesOfItem(atPath: fresh.path + "/.git/index")[.modificationDate] as? Date
        try FileManager.default.setAttributes([.modificationDate: try #require(indexTime)], ofItemAtPath: fresh.path + "/racy.txt")
        let repository = try Repository.open(fresh.path)
        #expect(!repository.workTreeMatchesIndexByStat())
    }
}
