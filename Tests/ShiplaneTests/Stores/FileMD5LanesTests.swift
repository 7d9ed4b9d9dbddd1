import Crypto
import Foundation
import Testing
@testable import Shiplane

/// `FileMD5Lanes` against swift-crypto's MD5, eight files at once and one at a time.
@Suite("MD5 of several files at once", .offThePool)
struct FileMD5LanesTests {
    /// Sizes around MD5's block (64 bytes), its padding (56) and the lanes' buffer (`bufferSize`, 32 KiB).
    static let sizes = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 32_767, 32_768, 32_769, 65_535, 65_536, 65_537,
                        200_003, 1_048_576, 3, 4097]

    private func expected(_ bytes: [UInt8]) -> String {
        Insecure.MD5.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private func hashAll(_ paths: [String], accelerated: Bool) -> [Int: Result<HashedFile, any Error>] {
        var next = 0
        var results: [Int: Result<HashedFile, any Error>] = [:]
        FileMD5Lanes.hash(accelerated: accelerated, next: {
            guard next < paths.count else { return nil }
            defer { next += 1 }
            return (next, paths[next])
        }, isCancelled: { _ in false }, done: { number, outcome in
            #expect(results[number] == nil, "a file reported twice")
            results[number] = outcome
        })
        return results
    }

    @Test(arguments: [true, false])
    func everyFileGetsSwiftCryptosMD5(accelerated: Bool) async throws {
        try await withTemporaryDirectory { folder in
            var paths: [String] = []
            var contents: [[UInt8]] = []
            for (index, size) in Self.sizes.enumerated() {
                let bytes = Array(StoreFixtures.pseudoRandomBytes(size, seed: UInt64(index + 1)))
                let path = folder.path + "/\(index).png"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                paths.append(path)
                contents.append(bytes)
            }
            #expect(FileMD5Lanes.bufferSize == 32_768, "the sizes above are chosen around it")
            let results = hashAll(paths, accelerated: accelerated)
            #expect(results.count == paths.count)
            for index in paths.indices {
                let hashed = try #require(try results[index]?.get())
                #expect(hashed.checksum == expected(contents[index]), "size \(Self.sizes[index])")
                #expect(hashed.size == Int64(contents[index].count))
                #expect(hashed.stamp == FileStamp(path: paths[index]))
            }
        }
    }

    /// A file that cannot be read fails alone; the lanes go on with the others.
    @Test func anUnreadableFileFailsAlone() async throws {
        try await withTemporaryDirectory { folder in
            let good = try writeFile(folder, "a.png", String(repeating: "a", count: 70_000))
            let paths = [good, folder.path + "/missing.png", good]
            let results = hashAll(paths, accelerated: true)
            #expect(try results[0]?.get().checksum == expected(Array(String(repeating: "a", count: 70_000).utf8)))
            #expect(try results[2]?.get().checksum == results[0].map { try $0.get().checksum })
            #expect {
                _ = try results[1]?.get()
            } throws: { error in
                "\(error)".contains("missing.png cannot be read")
            }
        }
    }

    /// A cancelled file ends with `CancellationError`; the others are hashed.
    @Test func aCancelledFileStopsAndTheOthersGoOn() async throws {
        try await withTemporaryDirectory { folder in
            let text = String(repeating: "b", count: 300_000)
            let paths = (0..<3).map { folder.path + "/\($0).png" }
            for path in paths { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            var next = 0
            var results: [Int: Result<HashedFile, any Error>] = [:]
            FileMD5Lanes.hash(next: {
                guard next < paths.count else { return nil }
                defer { next += 1 }
                return (next, paths[next])
            }, isCancelled: { $0 == 1 }, done: { results[$0] = $1 })
            #expect(try results[0]?.get().checksum == expected(Array(text.utf8)))
            #expect(try results[2]?.get().checksum == expected(Array(text.utf8)))
            #expect {
                _ = try results[1]?.get()
            } throws: { $0 is CancellationError }
        }
    }

    /// The media file's MD5 as the plan and the commits use it.
    @Test func aMediaFileHasItsMD5AndSize() async throws {
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "01.png", "not really a png")
            let file = try AppStoreMediaFolder.mediaFile(path)
            #expect(file.checksum == expected(Array("not really a png".utf8)))
            #expect(file.size == 16)
            #expect(file.fileName == "01.png")
        }
    }
}
