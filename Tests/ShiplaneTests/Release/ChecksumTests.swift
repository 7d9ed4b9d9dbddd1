import Foundation
import Testing
@testable import Shiplane

@Suite("SHA-256 and SHA256SUMS", .offThePool)
struct ChecksumTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("The quick brown fox jumps over the lazy dog", "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ])
    func matchesKnownVectors(input: String, digest: String) {
        #expect(SHA256.hex(of: Array(input.utf8)) == digest)
    }

    @Test func millionAsInOddChunks() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var remaining = 1_000_000
        while remaining > 0 {
            let take = min(remaining, chunk.count)
            hasher.update(chunk.prefix(take))
            remaining -= take
        }
        #expect(hasher.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func agreesWithSha256sumOnAFile() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("data.bin")
            try Data((0..<3_333_333).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }).write(to: url)
            let oracle = try runTool(["sha256sum", url.path]).output.split(separator: " ").first.map(String.init)
            #expect(try SHA256.hex(ofFile: url.path) == oracle)
        }
    }

    @Test func sha256SumsIsSortedAndVerifiable() async throws {
        try await withTemporaryDirectory { folder in
            let b = try writeFile(folder, "b.tar.gz", "bee")
            let a = try writeFile(folder, "a.zip", "ay")
            let c = try writeFile(folder, "C.txt", "see")
            let sums = folder.appendingPathComponent("SHA256SUMS")
            try Checksums.writeSHA256Sums(for: [b, a, c], to: sums)
            let text = try String(contentsOf: sums, encoding: .utf8)
            let names = text.split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
            #expect(names == ["C.txt", "a.zip", "b.tar.gz"])
            #expect(text.hasPrefix(SHA256.hex(of: Array("see".utf8)) + "  C.txt\n"))
            #expect(try runTool(["sha256sum", "-c", "SHA256SUMS"], in: folder).status == 0)
            #expect(throws: ShiplaneError.self) { try Checksums.sha256Sums(for: [("x", a), ("x", b)]) }
        }
    }
}
