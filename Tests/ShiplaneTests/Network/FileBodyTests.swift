import AsyncHTTPClient
import CShiplane
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import Testing
@testable import Shiplane

/// `FileBodyStream`: a file sent from disk with a bound on the chunks in memory, read on the
/// event loop when the page cache has it and on the thread pool when it would wait for the disk.
@Suite("File bodies", .offThePool)
struct FileBodyTests {
    /// Sends `path` as `LiveHTTPClient` does: the stream's loop runs the request and its delegate.
    private func send(_ path: String, to url: String, chunkSize: Int, readsOnLoop: Bool = true) async throws -> (Shiplane.HTTPResponse, FileBodyStream) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let size = try HTTPTransport.regularFileSize(path)
            let stream = FileBodyStream(reader: FileChunkReader(path: path, expectedSize: size, chunkSize: chunkSize),
                                        loop: client.eventLoopGroup.next(), readsOnLoop: readsOnLoop)
            let request = try HTTPClient.Request(url: url, method: .PUT, body: stream.body)
            let response = try await client.execute(request: request, delegate: FileBodyResponseDelegate(stream: stream, maxBytes: 1 << 20),
                                                    eventLoop: .delegate(on: stream.loop)).futureResult.get()
            try await client.shutdown()
            return (response, stream)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A server that reads slowly fills the socket: then at most `window` chunks wait to be
    /// written, and the chunks' buffers are used again (3 buffers for 512 chunks).
    @Test(.timeLimit(.minutes(2)))
    func aSlowServerKeepsAtMostTheWindowInMemory() async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(32 << 20, seed: 11))
            let path = folder.path + "/big.bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let received = Received()
            let server = try await TestServer.start { request, _ in
                var body: [UInt8] = []
                for try await piece in request.body {
                    body += piece.readableBytesView
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                received.set(body, length: request.headers[.contentLength])
                return Response(status: .ok)
            }
            defer { server.stop() }
            let (response, stream) = try await send(path, to: server.baseURL + "/put", chunkSize: 64 << 10)
            #expect(response.status == 200)
            #expect(received.bytes == bytes)
            #expect(received.length == String(32 << 20))
            // Without the window, chunks are read as fast as the disk gives them and pile up
            // behind the full socket.
            #expect(stream.peakInFlight <= 2)
            #expect(stream.buffersMade <= 3)
        }
    }

    /// Where the loop may not read (`readsOnLoop: false`, as where the system cannot tell what is
    /// in memory), every chunk is read on the thread pool: the same bytes arrive.
    @Test func chunksReadOnThePoolSendTheSameBytes() async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(3_000_001, seed: 5))
            let path = folder.path + "/f.bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let received = Received()
            let server = try await TestServer.start { request, _ in
                let body = try await request.readBody(keeping: 4 << 20)
                received.set(body.bytes, length: request.headers[.contentLength])
                return Response(status: .ok)
            }
            defer { server.stop() }
            let (response, _) = try await send(path, to: server.baseURL + "/put", chunkSize: 256 << 10, readsOnLoop: false)
            #expect(response.status == 200)
            #expect(received.bytes == bytes)
        }
    }

    /// A chunk no longer in memory is not read on the event loop: the cached-only read stops
    /// (`wouldWait`) and a read that may wait finishes the chunk with the right bytes.
    @Test func aChunkNotInMemoryIsLeftForTheThreadPool() async throws {
        try await withTemporaryDirectory { folder in
            let bytes = Array(StoreFixtures.pseudoRandomBytes(1 << 20, seed: 9))
            let path = folder.path + "/cold.bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // Out of the page cache: written to disk, then dropped.
            let descriptor = open(path, O_RDONLY)
            #expect(descriptor >= 0)
            #expect(fsync(descriptor) == 0)
            #expect(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(descriptor)
            let reader = FileChunkReader(path: path, expectedSize: 1 << 20, chunkSize: 1 << 20)
            let first = try reader.fill(ByteBuffer(), cachedOnly: true)
            guard case .wouldWait(let partial) = first else {
                Issue.record("a read of a chunk dropped from the page cache did not stop: \(first)")
                return
            }
            guard case .chunk(let chunk) = try reader.fill(partial, cachedOnly: false) else {
                Issue.record("the read that may wait gave no chunk")
                return
            }
            #expect(Array(chunk.readableBytesView) == bytes)
            guard case .end = try reader.fill(ByteBuffer(), cachedOnly: true) else {
                Issue.record("no end after the file's last byte")
                return
            }
        }
    }

    /// The cached-only read gives the bytes a file has in memory, and 0 at its end.
    @Test func theCachedReadReadsWhatIsInMemory() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "warm.txt", "0123456789")
            let descriptor = open(path, O_RDONLY)
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = buffer.withUnsafeMutableBytes { shiplane_pread_cached(descriptor, $0.baseAddress, 16, 2) }
            #expect(count == 8)
            #expect(Array(buffer.prefix(8)) == Array("23456789".utf8))
            #expect(buffer.withUnsafeMutableBytes { shiplane_pread_cached(descriptor, $0.baseAddress, 16, 10) } == 0)
        }
    }
}
