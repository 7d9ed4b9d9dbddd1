import Crypto
import Foundation
import Hummingbird
import Testing
@testable import Shiplane

/// A screenshot's MD5 is computed from its bytes as they are read to be sent: one read of the
/// file, and the checksum committed is of exactly what went up.
@Suite("Stores: the MD5 of an upload, from the bytes sent", .offThePool)
struct UploadDigestTests {
    static func md5(_ bytes: [UInt8]) -> String {
        Insecure.MD5.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// Operations covering `size` bytes in `parts` parts, to `baseURL`/part/N.
    static func operations(size: Int64, parts: Int, baseURL: String, file: String) throws -> UploadOperations {
        let length = (size + Int64(parts) - 1) / Int64(parts)
        let list = (0..<parts).map { index in
            let offset = Int64(index) * length
            return ASCUploadOperation(method: "PUT", url: baseURL + "/part/\(index + 1)", offset: offset, length: min(length, size - offset),
                                      requestHeaders: [.init(name: "Content-Type", value: "image/png")], expiration: nil, partNumber: index + 1)
        }
        return try UploadOperations(list, file: file, fileSize: size, now: Date(), what: "the screenshot f.png")
    }

    /// Parts sent one after the other give the whole file's MD5; a part the service answers with a
    /// 500 after reading it is sent again and hashed once (its first attempt is forgotten).
    @Test(arguments: [1, 3])
    func thePartsHashToTheFilesMD5AndARetriedPartCountsOnce(parts: Int) async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(700_001, seed: 11))
            let path = folder.path + "/f.png"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let received = PartLog()
            let server = try await TestServer.start { request, _ in
                let body = try await request.readBody(keeping: 1 << 21)
                let part = Int(request.uri.path.split(separator: "/").last ?? "") ?? 0
                // The last part's first attempt is read whole, then refused.
                guard received.add(part: part, body.bytes, refuseFirst: part == parts) else { return Reply.empty(500) }
                return Reply.empty(200)
            }
            defer { server.stop() }
            let operations = try Self.operations(size: Int64(bytes.count), parts: parts, baseURL: server.baseURL, file: path)
            let checksum = try await withTransport { transport, _ in
                try await operations.performHashing(with: transport, timeout: 60, chunkSize: 64 << 10)
            }
            #expect(checksum == Self.md5(bytes))
            #expect(received.attempts(of: parts) == 2, "the last part was sent twice")
            #expect(received.accepted == bytes, "the parts, in order, are the file")
        }
    }

    /// A file rewritten after its MD5 was taken to compare sets: the digest is of what went up,
    /// and the run refuses to commit it rather than commit either checksum.
    @Test func aFileChangedAfterItWasComparedIsNotCommitted() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.path + "/f.png"
            try Data(StoreFixtures.pseudoRandomBytes(300_000, seed: 1)).write(to: URL(fileURLWithPath: path))
            let planned = try AppStoreMediaFolder.mediaFile(path)
            let changed = Array(StoreFixtures.pseudoRandomBytes(300_000, seed: 2))
            try Data(changed).write(to: URL(fileURLWithPath: path))
            let received = PartLog()
            let server = try await TestServer.start { request, _ in
                let body = try await request.readBody(keeping: 1 << 20)
                _ = received.add(part: 1, body.bytes, refuseFirst: false)
                return Reply.empty(200)
            }
            defer { server.stop() }
            let operations = try Self.operations(size: planned.size, parts: 1, baseURL: server.baseURL, file: path)
            let sent = try await withTransport { transport, _ in try await operations.performHashing(with: transport, timeout: 60) }
            #expect(sent == Self.md5(changed) && received.accepted == changed, "the digest is of the bytes that went up")
            #expect(throws: (any Error).self) {
                try AppStoreMediaSync.checkUnchanged(planned, sent: sent, label: "en-US APP_IPHONE_67", kind: .screenshots)
            }
            do {
                try AppStoreMediaSync.checkUnchanged(planned, sent: sent, label: "en-US APP_IPHONE_67", kind: .screenshots)
            } catch {
                #expect("\(error)".contains("changed while this run worked") && "\(error)".contains(sent), "\(error)")
            }
            var new = planned
            new.checksum = nil
            try AppStoreMediaSync.checkUnchanged(new, sent: sent, label: "en-US APP_IPHONE_67", kind: .screenshots)
            try AppStoreMediaSync.checkUnchanged(planned, sent: try #require(planned.checksum), label: "en-US APP_IPHONE_67", kind: .screenshots)
        }
    }

    /// Only an attempt that read the body to its end leaves a digest; a later attempt replaces an
    /// earlier one, and a body read part way leaves none.
    @Test func onlyABodyReadToItsEndLeavesADigest() async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(10_000, seed: 5))
            let path = folder.path + "/f.bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let digest = BodyDigest()
            let sequence = FileChunkSequence(path: path, offset: 0, length: 10_000, chunkSize: 1000, digest: digest)
            let iterator = sequence.makeAsyncIterator()
            _ = try await iterator.next()
            #expect(digest.hex == nil, "one chunk of ten read")
            for try await _ in sequence {}
            #expect(digest.hex == Self.md5(bytes))
            let again = sequence.makeAsyncIterator()
            _ = try await again.next()
            #expect(digest.hex == nil, "a new attempt forgets the one before")
            while try await again.next() != nil {}
            #expect(digest.hex == Self.md5(bytes))
        }
    }
}

/// What the parts' server received: every attempt per part, and the bodies it accepted in order.
private final class PartLog: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`.
    private let lock = NSLock()
    private var tries: [Int: Int] = [:]
    private var bodies: [(part: Int, bytes: [UInt8])] = []

    /// Records an attempt; false when it is the first of a part to refuse.
    func add(part: Int, _ bytes: [UInt8], refuseFirst: Bool) -> Bool {
        lock.withLock {
            tries[part, default: 0] += 1
            if refuseFirst && tries[part] == 1 { return false }
            bodies.append((part, bytes))
            return true
        }
    }

    func attempts(of part: Int) -> Int { lock.withLock { tries[part] ?? 0 } }
    var accepted: [UInt8] { lock.withLock { bodies.sorted { $0.part < $1.part }.flatMap(\.bytes) } }
}
