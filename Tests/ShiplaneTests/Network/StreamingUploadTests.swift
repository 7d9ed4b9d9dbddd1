import Foundation
import Testing
import NIOCore
import NIOPosix
import Synchronization
@testable import Shiplane

@Suite("Streaming uploads", .offThePool)
struct StreamingUploadTests {
    @Test func uploadRetriedAfterConnectionResetReopensTheFile() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("app.tar.gz").path
            let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try await withFakeGitHub { github in
                let releaseID = github.addRelease(tag: "v1.0.0", draft: true)
                github.inject(.init(method: "POST", pathContains: "/uploads/", remaining: 1, action: .reset))
                try await withTransport { transport, recorder in
                    let client = try GitHubClient(repository: .init(owner: "acme", name: "rocket"), token: github.token,
                                                  environment: ["GITHUB_API_URL": github.baseURL], transport: transport)
                    let uploadURL = "\(github.baseURL)/uploads/repos/acme/rocket/releases/\(releaseID)/assets{?name,label}"
                    let asset = try await client.uploadAsset(uploadURL: uploadURL, file: path, name: "app.tar.gz")
                    #expect(asset.size == 3_000_000)
                    #expect(github.allAssets.first?.bytes.prefix(1 << 20) == bytes.prefix(1 << 20)[...])
                    let streams = recorder.events.filter { if case .streamingUpload = $0 { return true }; return false }
                    #expect(streams.count == 2)
                    #expect(recorder.sleeps.count == 1)
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func largeFileIsStreamedWithContentLength() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("big.bin").path
            let size: UInt64 = 200 * 1024 * 1024
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: size)  // sparse: no 200 MB written to disk
            try handle.close()
            try await withFakeGitHub { github in
                let releaseID = github.addRelease(tag: "v1.0.0", draft: true)
                try await withTransport { transport, recorder in
                    let client = try GitHubClient(repository: .init(owner: "acme", name: "rocket"), token: github.token,
                                                  environment: ["GITHUB_API_URL": github.baseURL], transport: transport)
                    let asset = try await client.uploadAsset(
                        uploadURL: "\(github.baseURL)/uploads/repos/acme/rocket/releases/\(releaseID)/assets{?name,label}",
                        file: path, name: "big.bin")
                    #expect(asset.size == Int64(size))
                    #expect(github.uploadedByteCount("big.bin") == Int(size))
                    #expect(recorder.events.contains(.streamingUpload(path: path, bytes: Int64(size))))
                }
            }
        }
    }

    @Test func missingUploadFileFailsWithoutSending() async throws {
        try await withFakeGitHub { github in
            try await withTransport { transport, _ in
                await #expect {
                    _ = try await transport.send(HTTPRequest(method: .put, url: github.baseURL + "/x", body: .file(path: "/nonexistent/file")))
                } throws: { error in
                    guard case .fileUnreadable? = error as? HTTPTransportError else { return false }
                    return true
                }
                #expect(github.log.isEmpty)
            }
        }
    }

    @Test func fileChunksReadTheWholeFileInPieces() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "f.txt", String(repeating: "0123456789", count: 1000))
            var total = 0
            var chunks = 0
            for try await chunk in FileChunkSequence(path: path, expectedSize: 10_000, chunkSize: 3000) {
                total += chunk.readableBytes
                chunks += 1
            }
            #expect(total == 10_000)
            #expect(chunks == 4)
        }
    }

    private static func storage(_ buffer: ByteBuffer) -> UInt {
        buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
    }

    /// Chunks reuse the storage of the one before only once nothing else holds it: a chunk the
    /// consumer (or the socket) still holds keeps its bytes while the next ones are read.
    @Test func chunksStillHeldKeepTheirBytes() async throws {
        try await withTemporaryDirectory { folder in
            var text = ""
            for index in 0..<2000 { text += String(format: "%05d|", index) }
            let path = try writeFile(folder, "f.txt", text)
            var held: [ByteBuffer] = []
            for try await chunk in FileChunkSequence(path: path, expectedSize: Int64(text.utf8.count), chunkSize: 1000) {
                held.append(chunk)
            }
            #expect(held.count == 12)
            #expect(String(decoding: held.flatMap { Array($0.readableBytesView) }, as: UTF8.self) == text)
            #expect(Set(held.map(Self.storage)).count == 12, "a chunk still held is never read into again")
            // Let go of each as soon as it is read: the same bytes come out, read into one storage.
            var joined: [UInt8] = []
            var storages: Set<UInt> = []
            // A buffer of the same size taken after each chunk is let go: had the chunk's storage
            // been freed, the allocator would hand it over here, and the next chunk would be elsewhere.
            var decoys: [ByteBuffer] = []
            let iterator = FileChunkSequence(path: path, expectedSize: Int64(text.utf8.count), chunkSize: 1000).makeAsyncIterator()
            while true {
                guard let bytes: [UInt8] = try await {
                    guard let chunk = try await iterator.next() else { return nil }
                    storages.insert(Self.storage(chunk))
                    return Array(chunk.readableBytesView)
                }() else { break }
                joined += bytes
                decoys.append(ByteBufferAllocator().buffer(capacity: 1000))
            }
            #expect(decoys.count == 12)
            #expect(String(decoding: joined, as: UTF8.self) == text)
            #expect(storages.count == 1, "each chunk let go is read into again")
        }
    }

    /// The bound on memory: a chunk after the first is read only once the event loops have run
    /// everything queued before it (AsyncHTTPClient's write of the previous chunk, and the pause a
    /// full socket causes).
    @Test func nextChunkWaitsForTheEventLoopsToRunWhatWasQueued() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "f.txt", String(repeating: "z", count: 3000))
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            let loops = Array(group.makeIterator())
            let iterator = FileChunkSequence(path: path, expectedSize: 3000, chunkSize: 1000, eventLoops: loops)
                .makeAsyncIterator()
            let ran = Mutex<[Int]>([])
            _ = try await iterator.next()
            // A slow write queued on the second loop after the first chunk was handed over.
            loops[1].execute {
                usleep(100_000)
                ran.withLock { $0.append(1) }
            }
            let second = try await iterator.next()
            #expect(ran.withLock { $0 } == [1])
            #expect(second?.readableBytes == 1000)
            _ = try await iterator.next()
            #expect(try await iterator.next() == nil)
            try await group.shutdownGracefully()
        }
    }

    @Test func anUploadFailsWhenTheFileShrinksOrGrowsWhileItIsRead() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "f.txt", String(repeating: "x", count: 5000))
            let shrinking = FileChunkSequence(path: path, expectedSize: 5000, chunkSize: 1000).makeAsyncIterator()
            _ = try await shrinking.next()
            truncate(path, 1500)
            await #expect {
                while try await shrinking.next() != nil {}
            } throws: { error in
                guard case HTTPTransportError.fileUnreadable(let shown, let reason) = error else { return false }
                return shown == path && reason.contains("shrank") && reason.contains("from 5000 to 1500 bytes")
            }

            _ = try writeFile(folder, "f.txt", String(repeating: "y", count: 2000))
            let growing = FileChunkSequence(path: path, expectedSize: 2000, chunkSize: 1000).makeAsyncIterator()
            _ = try await growing.next()
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(repeating: 0x7A, count: 4000))
            handle.closeFile()
            await #expect {
                while try await growing.next() != nil {}
            } throws: { error in
                guard case HTTPTransportError.fileUnreadable(_, let reason) = error else { return false }
                return reason.contains("grew") && reason.contains("from 2000 bytes")
            }
        }
    }
}
