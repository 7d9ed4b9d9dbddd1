import Foundation
import Testing
@testable import Git

@Suite("The clean-tree fast path never calls a dirty tree clean (git status is the oracle)", .serialized)
struct QuickStatusTests {
    /// A committed tree whose files are dated in the past, so no index entry is racily clean.
    func settledRepository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("src/a.txt", "alpha\n")
        try repo.write("src/deep/b.txt", "beta\n")
        try repo.write("run.sh", "#!/bin/sh\n")
        try repo.write(".gitignore", "*.log\nbuild/\n")
        try runProgram("/bin/chmod", ["+x", "run.sh"], in: repo.path, environment: repo.environment)
        try runProgram("/bin/sh", ["-c", "find . -path ./.git -prune -o -exec touch -h -d '2020-01-01 00:00:00' {} +"], in: repo.path, environment: repo.environment)
        try repo.git("add", "-A")
        try repo.git("commit", "-q", "-m", "files")
        return repo
    }

    func porcelain(_ repo: TemporaryRepository) throws -> String {
        try runProgram("/usr/bin/git", ["status", "--porcelain"], in: repo.path, environment: repo.environment).stdout
    }

    @Test func aSettledCleanTreeIsConfirmedEvenWithIgnoredFiles() throws {
        let repo = try settledRepository()
        try repo.write("debug.log", "ignored\n")
        try repo.write("build/out.o", "ignored\n")
        #expect(try porcelain(repo) == "")
        #expect(try Repository.open(repo.path).isCertainlyClean(threads: 3) == true)
    }

    @Test(arguments: ["modify-size", "modify-same-size", "chmod", "delete", "untracked-file", "untracked-folder", "staged-new", "staged-change", "symlink-swap"])
    func everyKindOfChangeIsNotCalledClean(change: String) throws {
        let repo = try settledRepository()
        switch change {
        case "modify-size": try repo.write("src/a.txt", "alpha and more\n")
        case "modify-same-size": try repo.write("src/a.txt", "ALPHA\n")
        case "chmod": try runProgram("/bin/chmod", ["-x", "run.sh"], in: repo.path, environment: repo.environment)
        case "delete": try FileManager.default.removeItem(atPath: repo.path + "/src/deep/b.txt")
        case "untracked-file": try repo.write("src/deep/new.txt", "new\n")
        case "untracked-folder": try repo.write("fresh/file.txt", "new\n")
        case "staged-new":
            try repo.write("staged.txt", "new\n")
            try repo.git("add", "staged.txt")
        case "staged-change":
            try repo.write("src/a.txt", "staged\n")
            try repo.git("add", "src/a.txt")
            try runProgram("/bin/sh", ["-c", "git show HEAD:src/a.txt > src/a.txt && touch -d '2020-01-01 00:00:00' src/a.txt"], in: repo.path, environment: repo.environment)
        default:
            try FileManager.default.removeItem(atPath: repo.path + "/src/a.txt")
            try FileManager.default.createSymbolicLink(atPath: repo.path + "/src/a.txt", withDestinationPath: "deep/b.txt")
        }
        #expect(try porcelain(repo) != "", "git sees the change")
        #expect(try Repository.open(repo.path).isCertainlyClean(threads: 3) != true)
    }
}
