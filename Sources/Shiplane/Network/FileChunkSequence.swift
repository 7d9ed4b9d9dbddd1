import Foundation
internal import NIOCore

/// Reads a file from disk in fixed-size chunks, for streaming an upload without loading it whole.
///
/// Each iteration opens the file anew, so a retried request re-reads it from the start.
///
/// Memory stays bounded however slow the server reads. AsyncHTTPClient decides off the event
/// loop whether to take another chunk, and learns that the socket is full only when the
/// connection's event loop has run the write queued for the previous chunk; a reader that only
/// reads can queue many chunks before that, all held in memory (the more so on a busy machine
/// where the loop waits for a core). So before reading each chunk after the first, the iterator
/// waits until every event loop of the client has run what was queued before it: the previous
/// write has then happened, and a full socket has paused the stream, which makes AsyncHTTPClient
/// hold the next chunk until the socket drains. At most about two chunks are in memory.
struct FileChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    /// The Content-Length sent: a file that grows or shrinks while it is read fails the upload.
    let expectedSize: Int64
    let chunkSize: Int
    let eventLoops: [any EventLoop]
    /// Where a slice starts, and true when only `expectedSize` bytes from there are sent (the
    /// rest of the file may be longer); false for a whole file.
    let offset: Int64
    let isSlice: Bool

    /// 1 MiB chunks: few enough to keep per-chunk overhead small (a round trip to each event loop
    /// each), small enough that the two in memory stay far below the asset's size.
    init(path: String, expectedSize: Int64, chunkSize: Int = 1 << 20, eventLoops: [any EventLoop] = []) {
        self.path = path
        self.expectedSize = expectedSize
        self.chunkSize = chunkSize
        self.eventLoops = eventLoops
        self.offset = 0
        self.isSlice = false
    }

    /// A sequence over `length` bytes of the file from `offset` (one part of a multi-part upload).
    init(path: String, offset: Int64, length: Int64, chunkSize: Int = 1 << 20, eventLoops: [any EventLoop] = []) {
        self.path = path
        self.expectedSize = length
        self.chunkSize = chunkSize
        self.eventLoops = eventLoops
        self.offset = offset
        self.isSlice = true
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(path: path, expectedSize: expectedSize, chunkSize: chunkSize, eventLoops: eventLoops, offset: offset, isSlice: isSlice)
    }

    /// Owns the open file descriptor and closes it at end of file or when dropped. Bytes are
    /// read straight into the buffer that is sent: no intermediate copy.
    final class Iterator: AsyncIteratorProtocol {
        private let path: String
        private let expectedSize: Int64
        private let chunkSize: Int
        private let eventLoops: [any EventLoop]
        private let allocator = ByteBufferAllocator()
        /// The chunk handed out last: once AsyncHTTPClient has written it and let it go, its
        /// storage is read into again (no allocation, no fresh pages to fault in and zero); while
        /// the socket still holds it, a new one is allocated instead.
        private var spare: ByteBuffer?
        private var descriptor: Int32 = -1
        private var finished = false
        private var produced: Int64 = 0
        private let offset: Int64
        private let isSlice: Bool

        init(path: String, expectedSize: Int64, chunkSize: Int, eventLoops: [any EventLoop], offset: Int64 = 0, isSlice: Bool = false) {
            self.path = path
            self.expectedSize = expectedSize
            self.chunkSize = Swift.max(1, chunkSize)
            self.eventLoops = eventLoops
            self.offset = offset
            self.isSlice = isSlice
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
                if offset > 0, lseek(descriptor, off_t(offset), SEEK_SET) != off_t(offset) {
                    finished = true
                    closeFile()
                    throw HTTPTransportError.fileUnreadable(path: path, reason: "cannot seek to byte \(offset)")
                }
            } else {
                for loop in eventLoops { try await loop.submit {}.get() }
            }
            // A slice reads no further than its end; a whole file reads on, to notice growth.
            let size = isSlice ? Int(Swift.min(Int64(chunkSize), expectedSize - produced)) : chunkSize
            var buffer: ByteBuffer
            if var reused = spare {
                spare = nil
                reused.clear()
                buffer = reused
            } else {
                buffer = allocator.buffer(capacity: Swift.max(1, size))
            }
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
            produced += Int64(count)
            if produced > expectedSize {
                finished = true
                closeFile()
                throw HTTPTransportError.fileUnreadable(
                    path: path, reason: "it grew while being uploaded (from \(expectedSize) bytes); upload it once it is complete")
            }
            if count == 0 {
                finished = true
                closeFile()
                guard produced == expectedSize else {
                    throw HTTPTransportError.fileUnreadable(
                        path: path,
                        reason: "it shrank while being uploaded (from \(expectedSize) to \(produced) bytes); upload it once it is complete")
                }
                return nil
            }
            // Kept whatever its capacity (NIO rounds a buffer up to a power of two): it never holds more than a chunk.
            spare = buffer
            return buffer
        }
    }
}
