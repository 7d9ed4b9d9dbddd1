import Foundation
import Testing
@testable import Shiplane

/// Other libraries' errors are shown in words, never by their Swift type names.
@Suite("Errors of other libraries in words", .offThePool)
struct ErrorWordsTests {
    static let typeNames = ["CancellationError", "DecodingError", "NSCocoaErrorDomain", "CocoaError", "SingleConnectionFailure",
                            "NIOConnectionError", "IOError", "Error Domain", "keyNotFound", "CodingKeys"]

    private func expectWords(_ error: any Error, contains expected: String) {
        let text = describe(error)
        #expect(text.contains(expected), "\(text)")
        for name in Self.typeNames { #expect(!text.contains(name), "\(text)") }
    }

    private struct Needs: Decodable { var version: String }

    @Test func cancellationDecodingAndFileErrorsAreWords() throws {
        expectWords(CancellationError(), contains: "stopped before it finished")
        do {
            _ = try JSONDecoder().decode(Needs.self, from: Data("{}".utf8))
            Issue.record("decoded")
        } catch {
            expectWords(error, contains: "version is missing")
        }
        do {
            _ = try JSONDecoder().decode(Needs.self, from: Data("{\"version\": 3}".utf8))
            Issue.record("decoded")
        } catch {
            expectWords(error, contains: "at version")
        }
        let folder = NSTemporaryDirectory() + "shiplane-words-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder))
            Issue.record("wrote over a folder")
        } catch {
            expectWords(error, contains: folder)
        }
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: folder + "/missing"))
            Issue.record("read a missing file")
        } catch {
            expectWords(error, contains: "missing")
        }
    }

    @Test func anSMTPServerThatIsNotThereIsAConnectionInWords() async throws {
        // Port 1: nothing listens there.
        let client = SMTPClient(settings: SMTPSettings(host: "127.0.0.1", port: 1, security: .none), redactor: SecretRedactor())
        do {
            _ = try await client.send("Subject: s\r\n\r\nb\r\n", from: "a@example.com", to: ["b@example.com"])
            Issue.record("sent")
        } catch {
            let text = describe(error)
            #expect(text.contains("127.0.0.1:1") && text.lowercased().contains("refused"), "\(text)")
            for name in Self.typeNames { #expect(!text.contains(name), "\(text)") }
        }
    }
}
