import Foundation
import Testing

/// Input that would overwrite the repository or a file outside it: refused before any effect,
/// with what is wrong, what to do and the documented exit code; files, refs and HEAD as they were.
@Suite("Bad input loses nothing: report paths, links out of the repository, .env, the lane cache", .offThePool)
struct DestructiveInputTests {
    /// What a test compares before and after a refused command.
    private func snapshot(_ repo: TemporaryRepository) throws -> [String] {
        [try repo.git("rev-parse", "HEAD"), try repo.git("show-ref"), try repo.git("status", "--porcelain"),
         repo.read("VERSION") ?? "", repo.read(".git/HEAD") ?? ""]
    }

    @Test(arguments: [
        (["--report-json", "VERSION"], "VERSION is a file git tracks"),
        (["--junit", "package.json"], "package.json is a file git tracks"),
        (["--report-json", ".git/HEAD"], ".git/HEAD is inside .git"),
        (["--junit", ".git/shiplane-report.xml"], "is inside .git"),
        (["--report-json=--no-color"], "--no-color looks like an option"),
    ])
    func aReportPathThatWouldDestroySomethingIsRefusedBeforeTheRun(_ option: [String], says: String) throws {
        let repo = try versionedRepository()
        let before = try snapshot(repo)
        let result = try repo.shiplane(option + ["bump", "patch", "--commit", "--tag"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains(says), "\(result.all)")
        #expect(result.stderr.contains("nothing was run"), "\(result.all)")
        #expect(try snapshot(repo) == before, "no bump, no commit, no tag, no report")
        #expect(try repo.git("fsck", "--strict").isEmpty)
    }

    @Test func anOptionWhereAReportFileShouldBeIsAUsageError() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["--report-json", "--no-color", "bump", "patch"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("--report-json needs a value, and --no-color looks like an option"), "\(result.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/--no-color"))
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    /// When the command line fails before a session exists, the reports are still written for
    /// CI — but never over a tracked file.
    @Test func theErrorReportOfABadCommandLineNeverOverwritesATrackedFile() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["--report-json", "VERSION", "--junit", "junit.xml", "--ci", "bogus", "bump", "patch"])
        #expect(result.status == 2, "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n", "\(result.all)")
        #expect(repo.read("junit.xml")?.contains("--ci takes github, gitlab or none") == true, "the harmless report is still written")
    }

    @Test func changelogWriteRefusesALinkThatLeavesTheRepository() throws {
        let repo = try versionedRepository()
        let outside = repo.root + "/outside.md"
        try Data("# kept\n".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/CHANGELOG.md", withDestinationPath: outside)
        try repo.write("feature.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a feature")
        let result = try repo.shiplane(["changelog", "--write", "CHANGELOG.md"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("CHANGELOG.md is a symbolic link to \(outside), outside the repository"), "\(result.all)")
        #expect(result.stderr.contains("replace the link with the file itself"), "\(result.all)")
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "# kept\n", "the file outside was not written")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    @Test func changelogWriteRefusesAFolderLinkThatLeavesTheRepository() throws {
        let repo = try versionedRepository()
        let outside = repo.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/docs", withDestinationPath: outside)
        try repo.write("feature.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a feature")
        let result = try repo.shiplane(["changelog", "--write", "docs/CHANGELOG.md"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("outside the repository"), "\(result.all)")
        #expect(!FileManager.default.fileExists(atPath: outside + "/CHANGELOG.md"))
    }

    @Test func aDotEnvThatIsAFolderIsAUsageErrorThatSaysSo() throws {
        let repo = try versionedRepository()
        try FileManager.default.createDirectory(atPath: repo.path + "/.env", withIntermediateDirectories: true)
        let result = try repo.shiplane(["bump", "patch"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains(".env cannot be loaded: it is a folder"), "\(result.all)")
        #expect(result.stderr.contains("KEY=value"), "\(result.all)")
        #expect(!result.stderr.contains("CocoaError") && !result.stderr.contains("NSCocoaErrorDomain"), "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func aLaneCacheThatIsAFileIsTheEnvironment() throws {
        let repo = try repositoryWithLanes(["Lanes/Ship.swift": "import Shiplane\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws {} }\n"])
        let cache = repo.root + "/cache-file"
        try Data("not a folder\n".utf8).write(to: URL(fileURLWithPath: cache))
        let result = try repo.shiplane(["ship"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("\(cache) is a file, not a folder"), "\(result.all)")
        #expect(result.stderr.contains("SHIPLANE_CACHE_DIR"), "\(result.all)")
        #expect(try String(contentsOfFile: cache, encoding: .utf8) == "not a folder\n")
    }
}
