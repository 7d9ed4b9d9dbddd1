import Foundation
import Testing

/// A 10 MB VERSION file made one error print 30 MB (the value in the message, in the parse error
/// beneath it, and in its facts). What an error quotes of a user's file is cut, and says so.
@Suite("Errors quote at most a line of a user's file", .offThePool)
struct BoundedQuoteTests {
    @Test(arguments: [["version"], ["bump", "patch"], ["version", "--json"]])
    func aHugeVersionFileMakesAShortError(_ command: [String]) throws {
        let repo = try TemporaryRepository()
        let huge = String(repeating: "7", count: 10_000_000) + ".x\n"
        try repo.write("VERSION", huge)
        try repo.git("add", "VERSION")
        try repo.git("commit", "-q", "-m", "chore: a version file gone wrong")
        let report = repo.root + "/report.json"
        let result = try repo.shiplane(command + ["--report-json", report])
        #expect(result.status != 0, "\(result.all.prefix(2000))")
        #expect(result.all.utf8.count < 16 * 1024, "\(result.all.utf8.count) bytes printed")
        #expect(result.all.contains("cut here: 10000002 bytes in all"), "\(result.all.prefix(4000))")
        #expect(result.all.contains("VERSION"), "\(result.all.prefix(4000))")
        let written = FileManager.default.contents(atPath: report)?.count ?? 0
        #expect(written < 64 * 1024, "the report is \(written) bytes")
        #expect(repo.read("VERSION") == huge, "the file is left as it was")
    }
}
