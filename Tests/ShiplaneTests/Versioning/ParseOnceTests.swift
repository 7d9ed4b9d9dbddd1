import Foundation
import Testing
@testable import Shiplane

/// `VERSION` read the way `PlainVersionFormat` reads it, counting each parse of the file's bytes.
private final class ParseCounter: @unchecked Sendable {
    // @unchecked: `counts` is only touched under `lock`.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func count(_ text: String) { lock.withLock { counts[text, default: 0] += 1 } }
    func parses(of text: String) -> Int { lock.withLock { counts[text, default: 0] } }
}

private struct CountingPlainFormat: TextualVersionFormat {
    let counter: ParseCounter
    var name: String { "VERSION" }
    var versionKey: String { "version" }
    func locate(in text: VersionText) throws -> LocatedFields {
        counter.count(String(decoding: text.bytes, as: UTF8.self))
        return try PlainVersionFormat().locate(in: text)
    }
}

@Suite("A bump parses each version file once", .offThePool)
struct ParseOnceTests {
    /// Reading agrees on the version and the rewrite starts from that same parse: the original
    /// bytes are parsed once; the rewritten bytes once more, to check they read as written.
    @Test func theReadAndTheRewriteShareOneParse() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parse-once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("VERSION")
        try Data("1.4.2\n".utf8).write(to: url)
        let counter = ParseCounter()
        let agreed = try AgreedVersion.read([VersionFile(url: url, format: CountingPlainFormat(counter: counter))])
        #expect(agreed.version.description == "1.4.2")
        let source = try #require(agreed.sources.first)
        let updated = try source.rewritten(version: try SemanticVersion(parsing: "1.5.0"), build: nil)
        #expect(String(decoding: updated, as: UTF8.self) == "1.5.0\n")
        #expect(counter.parses(of: "1.4.2\n") == 1, "the file's bytes were parsed \(counter.parses(of: "1.4.2\n")) times")
        #expect(counter.parses(of: "1.5.0\n") == 1, "the rewrite is read back once")
    }

    /// A source made from a reading alone (the public initializer) still rewrites, parsing again.
    @Test func aSourceWithoutItsParseStillRewrites() throws {
        let source = AgreedVersion.Source(
            file: VersionFile(url: URL(fileURLWithPath: "/nonexistent/VERSION"), format: PlainVersionFormat()),
            bytes: Data("2.0.0".utf8), reading: try PlainVersionFormat().read(Data("2.0.0".utf8))
        )
        #expect(String(decoding: try source.rewritten(version: try SemanticVersion(parsing: "2.0.1"), build: nil), as: UTF8.self) == "2.0.1")
    }
}
