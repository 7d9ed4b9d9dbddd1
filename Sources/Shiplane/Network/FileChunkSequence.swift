import Foundation
internal import NIOCore

/// Reads a file from disk in fixed-size chunks, for streaming an upload without loading it whole.
///
/// Each iteration opens the file anew, so a retried request re-reads it from the start.
struct FileChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let chunkSize: Int

    /// 1 MiB chunks: few enough to keep per-chunk overhead small, small enough that the few
    /// chunks in flight keep memory far below the asset's size.
    init(path: String, chunkSize: Int = 1 << 20) {
        self.path = path
        self.chunkSize = chunkSize
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(path: path, chunkSize: chunkSize)
    }

    /// Owns the open file descriptor and closes it at end of file or when dropped. Bytes are
    /// read straight into the buffer that is sent: no intermediate copy.
    final class Iterator: AsyncIteratorProtocol {
        private let path: String
        private let chunkSize: Int
        private let allocator = ByteBufferAllocator()
        private var descriptor: Int32 = -1
        private var finished = false

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = Swift.max(1, chunkSize)
        }

        deinit { closeFile() }

        private func closeFile() {
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }

        func next() async throws -> ByteBuffer? {
            if finished { return nil }
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    finished = true
                    throw HTTPTransportError.fileUnreadable(path: path, reason: String(cString: strerror(errno)))
                }
            }
            var buffer = allocator.buffer(capacity: chunkSize)
            let size = chunkSize
            let file = descriptor
            let path = self.path
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                var total = 0
                while total < size {
                    let read = Foundation.read(file, base + total, size - total)
                    if read == 0 { break }
                    if read < 0 {
                        if errno == EINTR { continue }
                        throw HTTPTransportError.fileUnreadable(path: path, reason: String(cString: strerror(errno)))
                    }
                    total += read
                }
                return total
            }
            if count == 0 {
                finished = true
                closeFile()
                return nil
            }
            return buffer
        }
    }
}
