import Foundation
import Shiplane
import ShiplaneTesting
import Testing

/// `archive` and `copyToDirectory` write through the step's one path check: never inside `.git`,
/// nothing created there, the git folder byte for byte as it was.
@Suite("Steps never write inside .git", .offThePool)
struct GitFolderWritesTests {
    /// True when an error in the tree says `text`.
    private static func says(_ error: any Error, _ text: String) -> Bool {
        ((error as? any ReportableError)?.allErrors ?? [error]).contains { "\($0)".contains(text) }
    }

    private static func gitFolderListing(_ repo: String) -> [String] {
        (FileManager.default.subpaths(atPath: repo + "/.git") ?? []).sorted()
    }

    @Test(arguments: [".git/hooks/app.tar.gz", ".git/new/app.zip", "dist/../.git/app.tar.gz"])
    func anArchiveInsideTheGitFolderIsRefused(_ output: String) throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let before = Self.gitFolderListing(fixture.path)
        let context = TestLaneContext(workingDirectory: fixture.path).context
        #expect {
            try context.archive("VERSION", to: output)
        } throws: { error in
            Self.says(error, "the repository's own git folder")
        }
        #expect(Self.gitFolderListing(fixture.path) == before)
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "/dist"))
    }

    @Test(arguments: [".git", ".git/releases"])
    func aCopyIntoTheGitFolderIsRefused(_ directory: String) throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let before = Self.gitFolderListing(fixture.path)
        let context = TestLaneContext(workingDirectory: fixture.path).context
        #expect {
            try context.copyToDirectory(["VERSION"], directory: directory)
        } throws: { error in
            Self.says(error, "the repository's own git folder")
        }
        #expect(Self.gitFolderListing(fixture.path) == before)
    }
}

/// `archive` of a folder packs the project's own files: never a `.git`, a submodule or a nested
/// clone inside it, unless that folder is named itself.
@Suite("Archives leave other projects out", .offThePool)
struct ArchiveOtherProjectsTests {
    @Test func aFolderArchiveLeavesGitFoldersAndNestedRepositoriesOut() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n", "app/main.txt": "app\n"])
        let nested = fixture.path + "/app/vendored"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        #expect(try runProgram("/usr/bin/git", ["init", "-q"], in: nested, environment: ProcessInfo.processInfo.environment).status == 0)
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: nested + "/lib.txt"))
        let context = TestLaneContext(workingDirectory: fixture.path).context
        _ = try context.archive(".", to: "dist/all.tar.gz")
        let listed = try runProgram("/usr/bin/tar", ["-tzf", "dist/all.tar.gz"], in: fixture.path, environment: ProcessInfo.processInfo.environment)
        let names = listed.stdout.split(separator: "\n").map(String.init)
        #expect(names.contains("app/main.txt") && names.contains("VERSION"), "\(names)")
        #expect(!names.contains { $0.hasPrefix(".git") || $0.hasPrefix("app/vendored") }, "\(names)")
        // Named itself, the nested repository is packed, without its .git.
        _ = try context.archive("app/vendored", to: "dist/vendored.tar.gz")
        let own = try runProgram("/usr/bin/tar", ["-tzf", "dist/vendored.tar.gz"], in: fixture.path, environment: ProcessInfo.processInfo.environment)
        #expect(own.stdout.split(separator: "\n").map(String.init) == ["lib.txt"], "\(own.stdout)")
    }
}

/// `gitCommit` of a folder commits the project's own changes and leaves a nested clone inside it
/// alone (no file of it staged, no gitlink made).
@Suite("gitCommit leaves nested repositories out", .offThePool)
struct GitCommitOtherProjectsTests {
    @Test func aFolderCommitLeavesANestedCloneOut() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.0.0\n"])
        let environment = ProcessInfo.processInfo.environment
        let nested = fixture.path + "/tools/vendored"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        #expect(try runProgram("/usr/bin/git", ["init", "-q"], in: nested, environment: environment).status == 0)
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: nested + "/lib.txt"))
        try Data("ours\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/tools/build.sh"))
        let context = TestLaneContext(workingDirectory: fixture.path, environment: [
            "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com",
        ]).context
        _ = try context.gitCommit(paths: ["tools"], message: "chore: tools")
        let committed = try runProgram("/usr/bin/git", ["show", "--name-only", "--format=", "HEAD"], in: fixture.path, environment: environment)
        #expect(committed.stdout == "tools/build.sh\n", "\(committed.stdout)")
        let entries = try runProgram("/usr/bin/git", ["ls-files", "-s"], in: fixture.path, environment: environment)
        #expect(!entries.stdout.contains("vendored"), "\(entries.stdout)")
    }
}
