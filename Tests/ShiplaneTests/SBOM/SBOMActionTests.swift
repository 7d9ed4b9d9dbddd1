import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

@Suite("lane.sbom in a repository", .offThePool)
struct SBOMActionTests {
    private func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        let cargo = try String(contentsOfFile: packageRoot + "/Tests/ShiplaneTests/Fixtures/SBOM/cargo/Cargo.lock", encoding: .utf8)
        try repo.write("tools/Cargo.lock", cargo)
        try repo.git("add", "tools/Cargo.lock")
        try repo.git("commit", "-q", "-m", "lock")
        try repo.write("web/yarn.lock", "# yarn lockfile v1\n\nleft-pad@^1.3.0:\n  version \"1.3.0\"\n")  // untracked
        try repo.write("node_modules/x/Cargo.lock", cargo)
        return repo
    }

    @Test func onlyTrackedLockFilesAreReadAndTheTimeIsTheCommits() throws {
        let repo = try repository()
        let test = TestLaneContext(workingDirectory: repo.path)
        let artifact = try test.context.sbom(to: "dist/bom.cdx.json", version: "1.0.0")
        #expect(artifact.kind == .sbom)
        let text = try #require(repo.read("dist/bom.cdx.json"))
        #expect(text.contains("\"shiplane:lockfile\""))
        #expect(text.contains("tools/Cargo.lock") && !text.contains("left-pad") && !text.contains("node_modules"))
        let committed = try repo.git("log", "-1", "--format=%cI")
        let stamp = try #require(text.range(of: #""timestamp" : "[^"]+""#, options: .regularExpression).map { String(text[$0]) })
        let seconds = try #require(RecordDates.parse(String(stamp.dropFirst(15).dropLast())).map { $0.timeIntervalSince1970 })
        let commitSeconds = try #require(ISO8601DateFormatter().date(from: committed)?.timeIntervalSince1970)
        #expect(seconds == commitSeconds)
        let epoch = TestLaneContext(workingDirectory: repo.path, environment: ["SOURCE_DATE_EPOCH": "86400"])
        try epoch.context.sbom(to: "dist/epoch.cdx.json", version: "1.0.0")
        #expect(repo.read("dist/epoch.cdx.json")?.contains("\"timestamp\" : \"1970-01-02T00:00:00Z\"") == true)
    }

    @Test func aDryRunWritesNothingAndEveryMissingFileIsNamed() throws {
        let repo = try repository()
        let dry = TestLaneContext(workingDirectory: repo.path, dryRun: true)
        try dry.context.sbom(to: "dist/bom.cdx.json")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"))
        let test = TestLaneContext(workingDirectory: repo.path)
        #expect {
            try test.context.sbom(to: "dist/bom.cdx.json", artifacts: ["dist/missing.tar.gz"], lockFiles: ["nope/Cargo.lock", "README.md"])
        } throws: { error in
            let text = allText(of: error)
            return text.contains("nope/Cargo.lock does not exist") && text.contains("README.md is not a lock file")
                && text.contains("the artifact dist/missing.tar.gz does not exist")
        }
    }
}
