import Foundation
import ShiplaneTesting
import Testing

/// Counts how often each file's bytes are read.
final class CountingFileSystem: FileSystem, @unchecked Sendable {
    // @unchecked: `counts` is only touched under `lock`.
    private let base = LiveFileSystem()
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func reads(of path: String) -> Int { lock.withLock { counts[path, default: 0] } }

    func contents(of path: String) throws -> Data? {
        lock.withLock { counts[path, default: 0] += 1 }
        return try base.contents(of: path)
    }
    func write(_ data: Data, to path: String) throws { try base.write(data, to: path) }
    func remove(_ path: String) throws { try base.remove(path) }
    func kind(of path: String) -> FileKind? { base.kind(of: path) }
    func list(_ folder: String) throws -> [String] { try base.list(folder) }
    func createFolder(_ path: String) throws -> [String] { try base.createFolder(path) }
    func copy(_ source: String, to destination: String) throws { try base.copy(source, to: destination) }
}

@Suite("Change sets: steps hand each other what they changed", .offThePool)
struct ChangeSetTests {
    @Test func aBumpReadsEachVersionFileOnceAndReturnsWhatItChanged() throws {
        let fixture = try FixtureRepository(files: [
            "VERSION": "1.4.0\n", "package.json": "{\n  \"version\": \"1.4.0\"\n}\n",
            "App.xcconfig": "MARKETING_VERSION = 1.4.0\nCURRENT_PROJECT_VERSION = 7\n",
        ])
        let files = CountingFileSystem()
        let context = LaneContext(.init(
            workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]), fileSystem: files,
            reporter: RecordingReporter()
        ))
        let bump = try context.bumpVersion(.minor)
        #expect(bump.previous.description == "1.4.0" && bump.version.description == "1.5.0")
        #expect("v\(bump)" == "v1.5.0" && bump.minor == 5 && !bump.isPrerelease)
        #expect(bump.fileChanges.map(\.displayPath) == ["App.xcconfig", "VERSION", "package.json"])
        #expect(bump.fileChanges.first { $0.displayPath == "VERSION" }?.beforeDigest == SHA256.hex(of: Data("1.4.0\n".utf8)))
        #expect(bump.fileChanges.first { $0.displayPath == "VERSION" }?.afterDigest == SHA256.hex(of: Data("1.5.0\n".utf8)))
        for name in ["VERSION", "package.json", "App.xcconfig"] {
            #expect(files.reads(of: fixture.path + "/" + name) == 1, "\(name) was read \(files.reads(of: fixture.path + "/" + name)) times")
        }
    }

    @Test func theCommitTakesExactlyTheChangesItIsGiven() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.4.0\n", "App.xcconfig": "MARKETING_VERSION = 1.4.0\nCURRENT_PROJECT_VERSION = 7\n"])
        let context = TestLaneContext(workingDirectory: fixture.path).context
        let version = try context.bumpVersion(.patch, files: ["VERSION"])
        let build = try context.incrementBuildNumber(files: ["App.xcconfig"])
        #expect(build.build == "8" && build.previous == "7")
        try context.commitVersionBump(version, message: "chore(release): \(version)", allowOtherChanges: true)
        #expect(try fixture.git("show", "--name-only", "--format=%s", "HEAD") == "chore(release): 1.4.1\n\nVERSION")
        #expect(try fixture.git("status", "--porcelain") == "M App.xcconfig", "the build number was not given to the commit")
        try context.commitVersionBump(message: "build 8")
        #expect(try fixture.git("show", "--name-only", "--format=%s", "HEAD") == "build 8\n\nApp.xcconfig", "with no argument: what no commit took yet")
        #expect(try fixture.git("fsck", "--no-progress").isEmpty)
    }

    @Test func withNothingLeftToCommitItSaysSo() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.4.0\n"])
        let context = TestLaneContext(workingDirectory: fixture.path).context
        let version = try context.bumpVersion(.patch)
        try context.commitVersionBump(version)
        #expect { try context.commitVersionBump() } throws: { allText(of: $0).contains("there is nothing to commit") }
    }
}

@Suite("Pattern version files: every match", .offThePool)
struct PatternEveryMatchTests {
    /// git-cliff's npm packaging keeps its version in `version` and in six `optionalDependencies`.
    static let packageJSON = """
    {
      "name": "git-cliff",
      "version": "2.6.0",
      "optionalDependencies": {
        "git-cliff-darwin-x64": "2.6.0",
        "git-cliff-darwin-arm64": "2.6.0",
        "git-cliff-linux-x64": "2.6.0",
        "git-cliff-linux-arm64": "2.6.0",
        "git-cliff-windows-x64": "2.6.0",
        "git-cliff-windows-arm64": "2.6.0"
      }
    }

    """

    @Test func everyMatchIsRewrittenAcrossFiles() throws {
        let fixture = try FixtureRepository(files: [
            "npm/package.json": Self.packageJSON,
            "Cargo.toml": "[package]\nname = \"git-cliff\"\nversion = \"2.6.0\"\n\n[dependencies]\ngit-cliff-core = { version = \"2.6.0\", path = \"core\" }\n",
        ])
        let context = TestLaneContext(workingDirectory: fixture.path).context
        let bump = try context.bumpVersion(.minor, files: [
            .pattern("npm/package.json", #""(?:version|git-cliff-[a-z0-9-]+)": "([^"]+)""#),
            .pattern("Cargo.toml", #"^(?:version = |git-cliff-core = \{ version = )"([^"]+)""#),
        ])
        #expect(bump.version.description == "2.7.0")
        let npm = try String(contentsOfFile: fixture.path + "/npm/package.json", encoding: .utf8)
        #expect(npm == Self.packageJSON.replacingOccurrences(of: "2.6.0", with: "2.7.0"))
        let cargo = try String(contentsOfFile: fixture.path + "/Cargo.toml", encoding: .utf8)
        #expect(!cargo.contains("2.6.0") && cargo.components(separatedBy: "2.7.0").count == 3)
    }

    @Test func maxMatchesLimitsTheRewrite() throws {
        let fixture = try FixtureRepository(files: ["notes.txt": "v=1.0.0\nv=1.0.0\nv=9.9.9\n"])
        let context = TestLaneContext(workingDirectory: fixture.path).context
        try context.bumpVersion(.patch, files: [.pattern("notes.txt", #"^v=(\S+)$"#, maxMatches: 2)])
        #expect(try String(contentsOfFile: fixture.path + "/notes.txt", encoding: .utf8) == "v=1.0.1\nv=1.0.1\nv=9.9.9\n")
    }

    @Test func matchesThatDisagreeAreNamed() throws {
        let fixture = try FixtureRepository(files: ["notes.txt": "v=1.0.0\nv=1.2.0\n"])
        let context = TestLaneContext(workingDirectory: fixture.path).context
        #expect {
            try context.bumpVersion(.patch, files: [.pattern("notes.txt", #"^v=(\S+)$"#)])
        } throws: { allText(of: $0).contains("line 1") && allText(of: $0).contains("line 2") }
        #expect(try String(contentsOfFile: fixture.path + "/notes.txt", encoding: .utf8) == "v=1.0.0\nv=1.2.0\n")
    }
}
