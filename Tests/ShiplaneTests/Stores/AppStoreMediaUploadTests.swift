import Crypto
import Foundation
import Testing
@testable import Shiplane

/// The machinery behind the screenshot uploads: the hand-over between their stages, the MD5s
/// computed beside them, and the check that a file committed is the file that was hashed and sent.
@Suite("App Store screenshot uploads: stages, MD5s and unchanged files", .offThePool)
struct AppStoreMediaUploadTests {
    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func write(_ folder: URL, _ name: String, _ data: Data) throws -> String {
        let path = folder.path + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Values come out in the order put; a put waits while `capacity` values wait; after
    /// `finish`, what is kept is still taken, then nil.
    @Test func theHandOverKeepsOrderWaitsAtCapacityAndEndsAfterFinish() async throws {
        let queue = HandOver<Int>(capacity: 2)
        let putter = Task {
            for value in 1...5 { await queue.put(value) }
            queue.finish()
        }
        var taken: [Int] = []
        while let value = await queue.take() { taken.append(value) }
        await putter.value
        #expect(taken == [1, 2, 3, 4, 5])
        #expect(await queue.take() == nil, "finished and empty")
    }

    /// Every value is run by one of the workers, each failure kept beside the successes.
    @Test func drainingRunsEveryValueAndKeepsEveryFailure() async throws {
        let queue = HandOver<Int>(capacity: 3)
        async let outcomes = queue.drain(workers: 3) { value -> Int in
            if value % 4 == 0 { throw ShiplaneError("no \(value)") }
            return value * 10
        }
        for value in 1...12 { await queue.put(value) }
        queue.finish()
        let results = await outcomes
        let values = results.compactMap { try? $0.get() }.sorted()
        #expect(values == [10, 20, 30, 50, 60, 70, 90, 100, 110])
        #expect(results.count == 12 && results.filter { (try? $0.get()) == nil }.count == 3)
    }

    /// The MD5s once the uploads are done: a known one is ready at once, no file is read while
    /// the uploads run, and after `uploadsDone` each is the file's MD5 with the stamp the file had
    /// when it was read for its size.
    @Test func digestsAfterTheUploadsAreTheFilesMD5s() async throws {
        try await withTemporaryDirectory { folder in
            var files: [AppStoreMediaFile] = []
            var contents: [Data] = []
            for n in 1...11 {
                let data = Data(StoreFixtures.pseudoRandomBytes(n * 100_003, seed: UInt64(n)))
                contents.append(data)
                files.append(try AppStoreMediaFolder.mediaFileSize(try Self.write(folder, "\(n).png", data)))
            }
            files[2].checksum = "given"
            let digests = AppStoreMediaDigests(files)
            defer { digests.cancel() }
            #expect(try await digests.checksum(2).checksum == "given")
            try await Task.sleep(nanoseconds: 100_000_000)
            #expect(digests.hashedCount == 0, "a file was hashed while the uploads ran")
            digests.uploadsDone()
            for (index, file) in files.enumerated() {
                let (checksum, stamp) = try await digests.checksum(index)
                #expect(checksum == (index == 2 ? "given" : Self.md5(contents[index])))
                #expect(stamp == (index == 2 ? nil : file.stamp), "hashed from the file as it was read for its size")
            }
            #expect(digests.hashedCount == 10)
        }
    }

    /// A file written to after it was read (same size, other bytes) is refused at the commit: its
    /// checksum would not be of the bytes that went up. Unchanged, it passes.
    @Test func aFileWrittenToAfterItWasReadIsNotCommitted() async throws {
        try await withTemporaryDirectory { folder in
            let path = try Self.write(folder, "01.png", Data(StoreFixtures.pseudoRandomBytes(300_000, seed: 1)))
            let read = try AppStoreMediaFolder.mediaFileSize(path)
            let hashed = try AppStoreMediaFolder.mediaFile(path)
            #expect(hashed.stamp == read.stamp && read.stamp != nil)
            try AppStoreMediaSync.checkUnchanged(read, hashed: hashed.stamp, label: "en-US APP_IPHONE_67", kind: .screenshots)
            try AppStoreMediaSync.checkUnchanged(read, hashed: nil, label: "en-US APP_IPHONE_67", kind: .screenshots)
            // The change time has a clock tick's grain: wait until a write is sure to move it.
            let before = try #require(read.stamp)
            var rewritten = before
            while rewritten == before {
                try Data(StoreFixtures.pseudoRandomBytes(300_000, seed: 2)).write(to: URL(fileURLWithPath: path))
                rewritten = try #require(FileStamp(path: path))
            }
            #expect(rewritten.size == before.size, "same size: only the stamp's times tell")
            do {
                try AppStoreMediaSync.checkUnchanged(read, hashed: hashed.stamp, label: "en-US APP_IPHONE_67", kind: .screenshots)
                Issue.record("a file written to after it was read passed")
            } catch {
                #expect("\(error)".contains("changed while this run uploaded it") && "\(error)".contains(path), "\(error)")
            }
            // Hashed after the write but read for its size before: refused as well.
            let later = try AppStoreMediaFolder.mediaFile(path)
            #expect(throws: (any Error).self) {
                try AppStoreMediaSync.checkUnchanged(read, hashed: later.stamp, label: "en-US APP_IPHONE_67", kind: .screenshots)
            }
            try AppStoreMediaSync.checkUnchanged(later, hashed: later.stamp, label: "en-US APP_IPHONE_67", kind: .screenshots)
        }
    }
}
