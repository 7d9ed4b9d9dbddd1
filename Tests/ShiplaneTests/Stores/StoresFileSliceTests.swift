import Foundation
import Hummingbird
import Testing
@testable import Shiplane

@Suite("Stores: a part of a file streamed as one request body", .offThePool)
struct StoresFileSliceTests {
    @Test(arguments: [(Int64(0), Int64(10_000)), (Int64(2_999), Int64(4_001)), (Int64(9_999), Int64(1))])
    func aSliceSendsExactlyItsBytes(offset: Int64, length: Int64) async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(10_000, seed: 7))
            let path = folder.path + "/f.bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            var chunks: [Int] = []
            for try await chunk in FileChunkSequence(path: path, offset: offset, length: length, chunkSize: 1000) {
                chunks.append(chunk.readableBytes)
            }
            #expect(chunks.reduce(0, +) == Int(length))
            #expect(chunks.allSatisfy { $0 <= 1000 })
            let received = Received()
            let server = try await TestServer.start { request, _ in
                let body = try await request.readBody(keeping: 1 << 20)
                received.set(body.bytes, length: request.header("content-length"))
                return Reply.empty(200)
            }
            defer { server.stop() }
            try await withTransport { transport, _ in
                let response = try await transport.send(Shiplane.HTTPRequest(method: .put, url: server.baseURL + "/part",
                                                                    body: .fileSlice(path: path, offset: offset, length: length)))
                #expect(response.status == 200)
            }
            #expect(received.bytes == Array(bytes[Int(offset)..<Int(offset + length)]))
            #expect(received.length == String(length))
        }
    }

    @Test func aSliceOutsideTheFileIsRefusedBeforeSending() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "f.txt", String(repeating: "x", count: 100))
            try await withTransport { transport, _ in
                await #expect {
                    _ = try await transport.send(Shiplane.HTTPRequest(method: .put, url: "http://127.0.0.1:9/x", body: .fileSlice(path: path, offset: 50, length: 51)))
                } throws: { error in
                    guard case .fileUnreadable(_, let reason)? = error as? HTTPTransportError else { return false }
                    return reason.contains("outside the file")
                }
            }
        }
    }
}

private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: ([UInt8], String?) = ([], nil)
    func set(_ bytes: [UInt8], length: String?) { lock.withLock { stored = (bytes, length) } }
    var bytes: [UInt8] { lock.withLock { stored.0 } }
    var length: String? { lock.withLock { stored.1 } }
}
