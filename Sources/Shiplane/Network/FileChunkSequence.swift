import Foundation
internal import NIOCore

/// Reads a file from disk in fixed-size chunks, for streaming an upload without loading it whole.
///
/// Each iteration opens the file anew, so a retried request re-reads it from the start.
struct FileChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let chunkSize: Int

    init(path: String, chunkSize: Int = 256 * 1024) {
        self.path = path
        self.chunkSize = chunkSize
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(path: path, chunkSize: chunkSize)
    }

    /// Owns the open file handle and closes it at end of file or when dropped.
    final class Iterator: AsyncIteratorProtocol {
        private let path: String
        private let chunkSize: Int
        private var handle: FileHandle?
        private var finished = false

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        deinit { try? handle?.close() }

        func next() async throws -> ByteBuffer? {
            if finished { return nil }
            if handle == nil {
                guard let opened = FileHandle(forReadingAtPath: path) else {
                    finished = true
                    throw HTTPTransportError.fileUnreadable(path: path, reason: "cannot open the file")
                }
                handle = opened
            }
            guard let handle else { return nil }
            let data = try handle.read(upToCount: chunkSize) ?? Data()
            if data.isEmpty {
                finished = true
                try? handle.close()
                self.handle = nil
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }
}
