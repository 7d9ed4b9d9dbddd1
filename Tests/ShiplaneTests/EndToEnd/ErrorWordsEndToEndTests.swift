import Foundation
import Testing

/// The built `shiplane` says what went wrong in words where a foreign error used to show its Swift
/// type: a corrupt run record, a changelog file that is a folder.
@Suite("Errors in words from the command line", .offThePool)
struct ErrorWordsEndToEndTests {
    static let typeNames = ["DecodingError", "NSCocoaErrorDomain", "CocoaError", "keyNotFound", "dataCorrupted", "Error Domain"]

    @Test func aCorruptRunRecordIsNamedInWords() throws {
        let repo = try versionedRepository()
        try repo.write(".git/shiplane/run.json", "{\"lane\": \"bump\"}")
        let result = try repo.shiplane(["rollback"])
        #expect(result.status != 0, "\(result.all)")
        #expect(result.stderr.contains("cannot be read: id is missing"), "\(result.all)")
        for name in Self.typeNames { #expect(!result.all.contains(name), "\(result.all)") }
    }

    @Test func aChangelogThatIsAFolderIsNamedInWords() throws {
        let repo = try versionedRepository()
        try FileManager.default.createDirectory(atPath: repo.path + "/CHANGES.md", withIntermediateDirectories: true)
        let result = try repo.shiplane(["changelog", "--write", "CHANGES.md"])
        #expect(result.status != 0, "\(result.all)")
        #expect(result.stderr.contains("CHANGES.md: Is a directory"), "\(result.all)")
        for name in Self.typeNames { #expect(!result.all.contains(name), "\(result.all)") }
    }
}
