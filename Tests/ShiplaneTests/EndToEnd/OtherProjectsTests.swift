import Foundation
import Testing
@testable import Git

/// Submodules, nested repositories and linked worktrees are other projects: the built `shiplane`
/// reads no version from them, writes nothing into them, and its commits never replace a gitlink.
/// `git` is the oracle: `git show --stat`, `git submodule status`, `git ls-files -s`.
@Suite("Other projects: submodules, nested repositories and worktrees are left alone", .offThePool)
struct OtherProjectsTests {
    /// A repository at 1.4.0 (VERSION and App.xcconfig) whose submodule `sub` holds version files of its own at 2.0.0.
    private func repositoryWithSubmodule() throws -> (repo: TemporaryRepository, library: TemporaryRepository) {
        let library = try TemporaryRepository()
        try library.write("VERSION", "2.0.0\n")
        try library.write("App.xcconfig", "MARKETING_VERSION = 2.0.0\n")
        try library.git("add", ".")
        try library.git("commit", "-q", "-m", "library")
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "1.4.0\n")
        try repo.write("App.xcconfig", "MARKETING_VERSION = 1.4.0\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        try repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.path, "sub")
        try repo.git("commit", "-q", "-m", "add the submodule")
        try repo.git("tag", "-a", "v1.4.0", "-m", "1.4.0")
        return (repo, library)
    }

    @Test func aReleaseBumpsAndCommitsTheProjectAndKeepsTheSubmodule() throws {
        let (repo, _) = try repositoryWithSubmodule()
        let gitlink = try repo.git("ls-files", "-s", "sub")
        #expect(gitlink.hasPrefix("160000 "))

        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.4.0 → 1.4.1 (App.xcconfig, VERSION)"), "\(result.all)")
        #expect(!result.all.contains("sub/"), "\(result.all)")
        let changed = try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n").sorted()
        #expect(changed == ["App.xcconfig", "VERSION"])
        #expect(try repo.git("ls-files", "-s", "sub") == gitlink, "the gitlink is kept, mode 160000")
        #expect(try repo.git("submodule", "status").contains(" sub"), "the submodule is still one")
        #expect(try repo.git("status", "--porcelain") == "")
        #expect(repo.read("sub/VERSION") == "2.0.0\n")
        #expect(repo.read("sub/App.xcconfig") == "MARKETING_VERSION = 2.0.0\n")
        #expect(try repo.git("status", "--porcelain", in: "sub") == "")
        #expect(try repo.git("rev-parse", "v1.4.1^{commit}") == (try repo.git("rev-parse", "HEAD")))
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
    }

    /// `changelog --write` into a file inside the submodule is refused before anything is written,
    /// as the version files there are never written: the submodule's files and its gitlink stay.
    @Test(arguments: ["sub/CHANGELOG.md", "sub/docs/CHANGES.md"])
    func changelogWriteIntoTheSubmoduleIsRefused(_ path: String) throws {
        let (repo, _) = try repositoryWithSubmodule()
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: something new")
        let gitlink = try repo.git("ls-files", "-s", "sub")
        let before = try snapshot(of: repo.path + "/sub")
        let result = try repo.shiplane(["changelog", "--write", path])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("\(path) is inside sub, another project"), "\(result.all)")
        #expect(try snapshot(of: repo.path + "/sub") == before, "nothing written in the submodule")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/sub/docs"), "no folder made in it")
        #expect(try repo.git("ls-files", "-s", "sub") == gitlink)
        #expect(try repo.git("status", "--porcelain") == "")
        #expect(try repo.git("status", "--porcelain", in: "sub") == "")
    }

    @Test func versionReadsNothingInsideTheSubmodule() throws {
        let (repo, _) = try repositoryWithSubmodule()
        let result = try repo.shiplane(["version"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.4.0"), "\(result.all)")
        #expect(!result.all.contains("sub/"), "\(result.all)")
        #expect(!result.all.contains("2.0.0"), "\(result.all)")
    }

    /// A nested clone (untracked, with its own `.git` folder) and a linked worktree checked out
    /// inside the work tree hold version files too: neither is read nor written.
    @Test(arguments: ["nested clone", "linked worktree"])
    func aNestedRepositoryIsNeitherReadNorWritten(_ kind: String) throws {
        let repo = try TemporaryRepository()
        try repo.write("VERSION", "1.4.0\n")
        try repo.write("App.xcconfig", "MARKETING_VERSION = 1.4.0\n")
        try repo.write(".gitignore", "inner/\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        try repo.git("tag", "-a", "v1.4.0", "-m", "1.4.0")
        if kind == "nested clone" {
            try FileManager.default.createDirectory(atPath: repo.path + "/inner", withIntermediateDirectories: true)
            try repo.git("init", "-q", "-b", "main", in: "inner")
            try repo.write("inner/Config/Other.xcconfig", "MARKETING_VERSION = 9.9.9\n")
        } else {
            try repo.git("worktree", "add", "-q", "-b", "other", "inner")
            try repo.write("inner/App.xcconfig", "MARKETING_VERSION = 9.9.9\n")
        }
        let before = try snapshot(of: repo.path + "/inner")

        let result = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(result.status == 0, "\(kind): \(result.all)")
        #expect(!result.all.contains("inner/") && !result.all.contains("9.9.9"), "\(kind): \(result.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n").sorted() == ["App.xcconfig", "VERSION"])
        #expect(try snapshot(of: repo.path + "/inner") == before, "\(kind): nothing inside it changed")
    }

    /// libgit2's commit refuses a path inside a submodule (as `git add` does) and the gitlink
    /// itself, and leaves the index as it was.
    @Test(arguments: ["sub/App.xcconfig", "sub"])
    func aCommitIntoTheSubmoduleIsRefusedAndTheIndexKept(_ path: String) throws {
        let (repo, _) = try repositoryWithSubmodule()
        try repo.write("sub/App.xcconfig", "MARKETING_VERSION = 2.0.1\n")
        try repo.git("commit", "-q", "-am", "library edit", in: "sub")
        let index = try repo.git("ls-files", "-s")
        let head = try repo.git("rev-parse", "HEAD")
        let signature = Signature(name: "A", email: "a@example.com", date: Date(), timeZoneOffsetMinutes: 0)
        #expect(throws: GitError.self) {
            try Repository.open(repo.path).commit(paths: [path], message: "bump", author: signature, committer: signature)
        }
        #expect(try repo.git("ls-files", "-s") == index)
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("ls-files", "-s", "sub").hasPrefix("160000 "))
    }

    /// Every file's path and bytes below `folder`, its `.git` left out.
    private func snapshot(of folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            if relative == ".git" || relative.hasPrefix(".git/") { continue }
            if let data = FileManager.default.contents(atPath: folder + "/" + relative) { files[relative] = data }
        }
        return files
    }
}
