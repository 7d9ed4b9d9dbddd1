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
