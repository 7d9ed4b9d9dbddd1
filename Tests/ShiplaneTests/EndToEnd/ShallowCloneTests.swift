import Foundation
import Testing

/// `git clone --depth 1` (CI's default checkout) lacks the tags and commits a version or a
/// changelog is made from: commands that read history stop with what to do, instead of a wrong answer.
@Suite("Shallow clones: a clear stop, never a wrong version", .offThePool)
struct ShallowCloneTests {
    private func shallowClone() throws -> (TemporaryRepository, String) {
        let origin = try versionedRepository()
        try origin.write("feature.txt", "x\n")
        try origin.git("add", ".")
        try origin.git("commit", "-q", "-m", "feat: a feature")
        let clone = origin.root + "/shallow"
        let result = try runProgram("/usr/bin/git", ["clone", "-q", "--depth", "1", "file://" + origin.path, clone], in: origin.root, environment: origin.environment)
        #expect(result.status == 0, "\(result.all)")
        return (origin, clone)
    }

    @Test(arguments: [["version"], ["bump", "auto"], ["changelog"]])
    func historyReadersStopWithTheFix(_ arguments: [String]) throws {
        let (origin, clone) = try shallowClone()
        let before = try runProgram("/usr/bin/git", ["-C", clone, "status", "--porcelain"], in: clone, environment: origin.environment)
        let result = try runProgram(shiplaneBinary, arguments, in: clone, environment: origin.environment)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("is a shallow clone"), "\(result.all)")
        #expect(result.stderr.contains("git fetch --unshallow --tags") && result.stderr.contains("fetch-depth: 0"))
        let after = try runProgram("/usr/bin/git", ["-C", clone, "status", "--porcelain"], in: clone, environment: origin.environment)
        #expect(before.stdout == after.stdout, "nothing was written")
    }

    @Test func anExplicitLevelNeedsNoHistory() throws {
        let (origin, clone) = try shallowClone()
        let result = try runProgram(shiplaneBinary, ["bump", "patch"], in: clone, environment: origin.environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(FileManager.default.contents(atPath: clone + "/VERSION") == Data("1.2.4\n".utf8))
    }

    @Test func afterUnshallowingTheVersionIsRight() throws {
        let (origin, clone) = try shallowClone()
        let fetch = try runProgram("/usr/bin/git", ["-C", clone, "fetch", "-q", "--unshallow", "--tags"], in: clone, environment: origin.environment)
        #expect(fetch.status == 0, "\(fetch.all)")
        let result = try runProgram(shiplaneBinary, ["bump", "auto"], in: clone, environment: origin.environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(FileManager.default.contents(atPath: clone + "/VERSION") == Data("1.3.0\n".utf8))
    }
}
