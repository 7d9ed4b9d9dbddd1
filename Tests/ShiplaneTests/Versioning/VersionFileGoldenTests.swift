import Foundation
import Testing
@testable import Shiplane

/// Rewrites each `Fixtures/Versioning/<format>/before.*` to 2.0.0 (build 43) and compares it
/// byte for byte with `after.*`, which was made by plain text substitution.
@Suite("Version file golden files", .offThePool)
struct VersionFileGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let folder: String
        let ext: String
        let makeFormat: @Sendable () throws -> any VersionFormat
        /// The 1-based lines the rewrite may change, and must.
        let changedLines: [Int]
        let hasBuild: Bool
        var testDescription: String { folder }
    }

    static let cases: [Case] = [
        Case(folder: "version-file", ext: "txt", makeFormat: { PlainVersionFormat() }, changedLines: [1], hasBuild: false),
        Case(folder: "swift-constant", ext: "swift.txt", makeFormat: { SwiftConstantVersionFormat() }, changedLines: [6], hasBuild: false),
        Case(folder: "info-plist", ext: "plist", makeFormat: { InfoPlistVersionFormat() }, changedLines: [8, 17], hasBuild: true),
        Case(folder: "pbxproj", ext: "pbxproj", makeFormat: { XcodeProjectVersionFormat() }, changedLines: [10, 12, 20, 22], hasBuild: true),
        Case(folder: "xcconfig", ext: "xcconfig", makeFormat: { XcconfigVersionFormat() }, changedLines: [5, 6], hasBuild: true),
        Case(folder: "podspec", ext: "podspec", makeFormat: { PodspecVersionFormat() }, changedLines: [3], hasBuild: false),
        Case(folder: "package-json", ext: "json", makeFormat: { PackageJSONVersionFormat() }, changedLines: [12], hasBuild: false),
        Case(folder: "cargo", ext: "toml", makeFormat: { CargoVersionFormat() }, changedLines: [4], hasBuild: false),
        Case(folder: "pyproject", ext: "toml", makeFormat: { PyprojectVersionFormat() }, changedLines: [7], hasBuild: false),
        Case(folder: "pattern", ext: "yml", makeFormat: { try PatternVersionFormat(pattern: #"^app_version:\s*(\S+)$"#) }, changedLines: [2], hasBuild: false),
    ]

    static let newVersion = SemanticVersion(unchecked: 2, 0, 0)

    @Test("reads the version before rewriting", arguments: cases)
    func reads(_ example: Case) throws {
        let reading = try example.makeFormat().read(try VersioningTestSupport.fixture("\(example.folder)/before.\(example.ext)"))
        #expect(reading.version == .literal(SemanticVersion(unchecked: 1, 4, 2)))
        #expect(reading.build == (example.hasBuild ? .literal("42") : nil))
    }

    @Test("rewrites to the golden file, touching only version lines", arguments: cases)
    func rewrites(_ example: Case) throws {
        let format = try example.makeFormat()
        let before = try VersioningTestSupport.fixture("\(example.folder)/before.\(example.ext)")
        let after = try VersioningTestSupport.fixture("\(example.folder)/after.\(example.ext)")

        let rewritten = try format.rewritten(before, version: Self.newVersion, build: "43")
        #expect(rewritten == after, "\(String(decoding: rewritten, as: UTF8.self))")
        #expect(Self.changedLines(before, rewritten) == example.changedLines)

        let reading = try format.read(rewritten)
        #expect(reading.version == .literal(Self.newVersion))
        #expect(reading.build == (example.hasBuild ? .literal("43") : nil))
    }

    @Test("rewriting to the same values changes no byte", arguments: cases)
    func sameValuesAreIdentity(_ example: Case) throws {
        let before = try VersioningTestSupport.fixture("\(example.folder)/before.\(example.ext)")
        let format = try example.makeFormat()
        #expect(try format.rewritten(before, version: SemanticVersion(unchecked: 1, 4, 2), build: "42") == before)
        #expect(try format.rewritten(before, version: nil, build: nil) == before)
    }

    @Test func crlfFixturesKeepTheirLineEndings() throws {
        for path in ["info-plist/before.plist", "cargo/before.toml"] {
            let text = String(decoding: try VersioningTestSupport.fixture(path), as: UTF8.self)
            #expect(text.contains("\r\n"))
            #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "\(path) must use CRLF only")
        }
    }

    /// The 1-based numbers of lines that differ; both texts must have the same line count.
    static func changedLines(_ before: Data, _ after: Data) -> [Int] {
        let old = before.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let new = after.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard old.count == new.count else { return [-1] }
        return zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset + 1 }
    }
}
