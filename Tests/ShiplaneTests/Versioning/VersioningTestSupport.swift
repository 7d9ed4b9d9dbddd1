import Foundation
import Testing

/// Fixture and temporary-folder helpers for the versioning tests.
enum VersioningTestSupport {
    /// `Tests/ShiplaneTests/Fixtures/Versioning`, found from this file's path (not SwiftPM resources).
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Versioning")

    static func fixture(_ relativePath: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(relativePath))
    }

    /// Runs `body` with a fresh empty folder, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiplane-versioning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// Writes `text` to `path` below `root`, creating folders.
    static func write(_ text: String, to path: String, in root: URL) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// The error `body` throws, as `E`; records an issue when it throws nothing or something else.
    static func error<E: Error>(_ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> E? {
        do {
            try body()
            Issue.record("Expected \(E.self) but nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as E {
            return error
        } catch {
            Issue.record("Expected \(E.self) but got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }
}
