import Foundation
import Testing
import NIOCore
import NIOPosix
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
            let reader = FileChunkReader(path: path, expectedSize: 10_000, chunkSize: 3000)
            var bytes: [UInt8] = []
            var chunks = 0
            while let chunk = try reader.read() {
                bytes += chunk.readableBytesView
                chunks += 1
            }
            #expect(bytes == Array(String(repeating: "0123456789", count: 1000).utf8))
            #expect(chunks == 4)
        }
    }

    @Test func anUploadFailsWhenTheFileShrinksOrGrowsWhileItIsRead() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "f.txt", String(repeating: "x", count: 5000))
            let shrinking = FileChunkReader(path: path, expectedSize: 5000, chunkSize: 1000)
            _ = try shrinking.read()
            truncate(path, 1500)
            #expect {
                while try shrinking.read() != nil {}
            } throws: { error in
                guard case HTTPTransportError.fileUnreadable(let shown, let reason) = error else { return false }
                return shown == path && reason.contains("shrank") && reason.contains("from 5000 to 1500 bytes")
            }

            _ = try writeFile(folder, "f.txt", String(repeating: "y", count: 2000))
            let growing = FileChunkReader(path: path, expectedSize: 2000, chunkSize: 1000)
            _ = try growing.read()
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(repeating: 0x7A, count: 4000))
            handle.closeFile()
            #expect {
                while try growing.read() != nil {}
            } throws: { error in
                guard case HTTPTransportError.fileUnreadable(_, let reason) = error else { return false }
                return reason.contains("grew") && reason.contains("from 2000 bytes")
            }
        }
    }
}
