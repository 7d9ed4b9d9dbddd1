import Foundation
import ShiplaneTesting
import Testing

/// `archive` with a single file, a folder, a glob and several inputs, in both formats, checked
/// with `tar` and `unzip` as oracles; empty or missing input is an error and writes nothing.
@Suite("archive: files, folders, globs; never an empty archive", .offThePool)
struct ArchiveInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var inputs: [String]
        var expected: [String]
        var testDescription: String { inputs.joined(separator: " + ") }
    }

    static let cases: [Case] = [
        Case(inputs: ["a.txt"], expected: ["a.txt"]),
        Case(inputs: ["bin"], expected: ["tool", "lib/", "lib/x.dat"]),
        Case(inputs: ["docs/*.md"], expected: ["one.md", "two.md"]),
        Case(inputs: ["a.txt", "bin", "docs/*.md"], expected: ["a.txt", "tool", "lib/", "lib/x.dat", "one.md", "two.md"]),
    ]

    private func fixture() throws -> FixtureRepository {
        try FixtureRepository(files: [
            "a.txt": "alpha\n", "bin/tool": "#!/bin/sh\necho tool\n", "bin/lib/x.dat": "x",
            "docs/one.md": "# one\n", "docs/two.md": "# two\n", "docs/skip.txt": "no\n",
        ])
    }

    private func listing(_ archive: String) throws -> [String] {
        let command = archive.hasSuffix(".zip") ? ["unzip", "-Z1", archive] : ["tar", "-tzf", archive]
        let result = try runTool(command)
        #expect(result.status == 0, "\(result.output)")
        return result.output.split(separator: "\n").map(String.init).sorted()
    }

    @Test(arguments: cases, ["dist/out.tar.gz", "dist/out.zip"])
    func packsExactlyWhatWasNamed(_ example: Case, output: String) async throws {
        let repo = try fixture()
        let test = TestLaneContext(workingDirectory: repo.path)
        let written = try test.context.archive(example.inputs, to: output)
        #expect(written.path == output && written.kind == .archive && written.name == (output as NSString).lastPathComponent)
        #expect(written.sha256 == (try runTool(["sha256sum", repo.path + "/" + output]).output.split(separator: " ").first.map(String.init)), "sha256sum agrees")
        #expect(test.context.artifacts == [written], "the run keeps the archive")
        #expect(try listing(repo.path + "/" + output) == example.expected.sorted())
        let extract = repo.path + "/extract"
        try FileManager.default.createDirectory(atPath: extract, withIntermediateDirectories: true)
        let unpack = output.hasSuffix(".zip") ? ["unzip", "-q", repo.path + "/" + output, "-d", extract] : ["tar", "-xzf", repo.path + "/" + output, "-C", extract]
        #expect(try runTool(unpack).status == 0)
        if example.expected.contains("a.txt") {
            #expect(FileManager.default.contents(atPath: extract + "/a.txt") == Data("alpha\n".utf8))
        }
    }

    @Test func aSingleFileIsNeverAnEmptyArchive() async throws {
        let repo = try fixture()
        let test = TestLaneContext(workingDirectory: repo.path)
        try test.context.archive("a.txt", to: "dist/a.tar.gz")
        #expect(try listing(repo.path + "/dist/a.tar.gz") == ["a.txt"])
        let verbose = try runTool(["tar", "-tzvf", repo.path + "/dist/a.tar.gz"])
        #expect(verbose.output.contains(" 6 "), "the entry holds the file's 6 bytes: \(verbose.output)")
    }

    @Test func everyProblemIsListedAndNothingIsWritten() async throws {
        let repo = try fixture()
        try FileManager.default.createDirectory(atPath: repo.path + "/empty", withIntermediateDirectories: true)
        try Data("other".utf8).write(to: URL(fileURLWithPath: repo.path + "/docs/a.txt"))
        let test = TestLaneContext(workingDirectory: repo.path)
        #expect {
            try test.context.archive(["missing.txt", "empty", "nothing/*.zip", "a.txt", "docs/a.txt"], to: "dist/bad.tar.gz")
        } throws: { error in
            let text = allText(of: error)
            return text.contains("missing.txt does not exist") && text.contains("the folder empty is empty")
                && text.contains("nothing/*.zip matches no file or folder") && text.contains("two inputs would both be a.txt")
        }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"), "not even the folder is created")
    }

    @Test func aNameThatSaysAnotherFormatIsRefused() async throws {
        let repo = try fixture()
        let test = TestLaneContext(workingDirectory: repo.path)
        #expect {
            try test.context.archive("a.txt", to: "dist/a.zip", format: .tarGz)
        } throws: { allText(of: $0).contains("dist/a.zip would hold a .tar.gz archive under a .zip name") }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"))
    }

    @Test func aGlobUnderARootWithPatternCharactersMatchesLiterally() async throws {
        let root = NSTemporaryDirectory() + "shiplane-[glob]*-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/docs", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("# one\n".utf8).write(to: URL(fileURLWithPath: root + "/docs/one.md"))
        let test = TestLaneContext(workingDirectory: root)
        try test.context.archive("docs/*.md", to: "out.tar.gz")
        #expect(try listing(root + "/out.tar.gz") == ["one.md"])
    }

    @Test func aFolderWithOnlyFoldersIsRefused() async throws {
        let repo = try fixture()
        try FileManager.default.createDirectory(atPath: repo.path + "/hollow/inner", withIntermediateDirectories: true)
        let test = TestLaneContext(workingDirectory: repo.path)
        #expect {
            try test.context.archive("hollow", to: "dist/h.zip")
        } throws: { allText(of: $0).contains("there is no file to archive in hollow") }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist/h.zip"))
    }

    @Test func aDryRunWritesNoArchiveAndNoFolder() async throws {
        let repo = try fixture()
        let test = TestLaneContext(workingDirectory: repo.path, dryRun: true)
        try test.context.archive(["a.txt", "bin"], to: "dist/deep/out.tar.gz")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"))
        #expect(test.context.plannedWrites.map(\.path) == [repo.path + "/dist/deep/out.tar.gz"])
    }

    @Test func rollbackRemovesTheArchiveAndTheFoldersItMade() async throws {
        let repo = try fixture()
        let test = TestLaneContext(workingDirectory: repo.path)
        try test.context.archive("a.txt", to: "dist/deep/out.tar.gz")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/dist/deep/out.tar.gz"))
        let results = await test.context.journal.rollback()
        #expect(results.allSatisfy { $0.undone }, "\(results)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"))
    }
}
