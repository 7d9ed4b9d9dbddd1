internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOPosix
internal import NIOHTTP1
internal import CShiplane

/// Reads a file, or `length` bytes of it from `offset`, one chunk at a time, straight into the
/// buffer that is sent: no intermediate copy.
///
/// The file is opened at the first read and closed at its end (or by `close`). A whole file is
/// read on past its expected size, so a file that grows or shrinks while it is sent fails the
/// upload instead of sending other bytes than the Content-Length announced.
final class FileChunkReader: @unchecked Sendable {
    // @unchecked: one read at a time, each after the previous one's chunk was handed on (the
    // body orders them), so the fields are never touched at once.
    let path: String
    let expectedSize: Int64
    let chunkSize: Int
    private let offset: Int64
    /// True when only `expectedSize` bytes from `offset` are read (the rest of the file may be longer).
    private let isSlice: Bool
    let allocator = ByteBufferAllocator()
    private var descriptor: Int32 = -1
    private var finished = false
    private var produced: Int64 = 0

    /// A whole file, whose size must stay `expectedSize` while it is read.
    init(path: String, expectedSize: Int64, chunkSize: Int = 1 << 20) {
        self.path = path
        self.expectedSize = expectedSize
        self.chunkSize = max(1, chunkSize)
        self.offset = 0
        self.isSlice = false
    }

    /// `length` bytes of the file from `offset` (one part of a multi-part upload).
    init(path: String, offset: Int64, length: Int64, chunkSize: Int = 1 << 20) {
        self.path = path
        self.expectedSize = length
        self.chunkSize = max(1, chunkSize)
        self.offset = offset
        self.isSlice = true
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 { Foundation.close(descriptor) }
        descriptor = -1
    }

    enum Fill: Sendable {
        /// The buffer holds the next chunk (a whole one, or the file's last bytes).
        case chunk(ByteBuffer)
        /// Nothing is left.
        case end
        /// Only with `cachedOnly`: the rest of the chunk is not in memory. The buffer holds what
        /// was read; fill it again where waiting for the disk is allowed.
        case wouldWait(ByteBuffer)
    }

    /// The next chunk, or nil at the end (a new buffer, read where waiting is allowed).
    /// - Throws: `HTTPTransportError.fileUnreadable` when the file cannot be opened or read, or
    ///   when it grew or shrank since its size was taken.
    func read() throws -> ByteBuffer? {
        switch try fill(allocator.buffer(capacity: chunkSize), cachedOnly: false) {
        case .chunk(let buffer): return buffer
        case .end, .wouldWait: return nil
        }
    }

    /// Fills `buffer` with the next chunk: an empty buffer (one sent before is used again instead
    /// of a new one), or the start of this chunk that a `cachedOnly` fill left. With
    /// `cachedOnly`, only bytes in memory are read (`shiplane_pread_cached`): an event loop reads
    /// what the page cache has without ever waiting for a disk.
    /// - Throws: as `read()`.
    func fill(_ buffer: ByteBuffer, cachedOnly: Bool) throws -> Fill {
        var buffer = buffer
        if finished { return .end }
        if descriptor < 0 {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                finished = true
                throw HTTPTransportError.fileUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
        }
        // A slice reads no further than its end; a whole file reads on, to notice growth.
        let size = isSlice ? Int(min(Int64(chunkSize), expectedSize - produced)) : chunkSize
        let file = descriptor
        let path = self.path
        enum Step { case read(Int), retry, atEnd, wouldWait }
        while buffer.readableBytes < size {
            let want = size - buffer.readableBytes
            let position = off_t(offset + produced + Int64(buffer.readableBytes))
            var step = Step.retry
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                let count = cachedOnly ? shiplane_pread_cached(file, base, want, position) : pread(file, base, want, position)
                if count > 0 {
                    step = .read(count)
                    return count
                }
                if count == 0 {
                    step = .atEnd
                    return 0
                }
                switch errno {
                case EINTR: step = .retry
                case EAGAIN where cachedOnly, EOPNOTSUPP where cachedOnly, ENOSYS where cachedOnly, EINVAL where cachedOnly: step = .wouldWait
                default: throw HTTPTransportError.fileUnreadable(path: path, reason: String(cString: strerror(errno)))
                }
                return 0
            }
            if case .wouldWait = step { return .wouldWait(buffer) }
            if case .atEnd = step { break }
        }
        let count = buffer.readableBytes
        produced += Int64(count)
        if produced > expectedSize {
            finished = true
            close()
            throw HTTPTransportError.fileUnreadable(
                path: path, reason: "it grew while being uploaded (from \(expectedSize) bytes); upload it once it is complete")
        }
        if count == 0 {
            finished = true
            close()
            guard produced == expectedSize else {
                throw HTTPTransportError.fileUnreadable(
                    path: path,
                    reason: "it shrank while being uploaded (from \(expectedSize) to \(produced) bytes); upload it once it is complete")
            }
            return .end
        }
        if count < size, isSlice {
            // A slice's file ended before the slice did: it shrank.
            finished = true
            close()
            throw HTTPTransportError.fileUnreadable(
                path: path,
                reason: "it shrank while being uploaded (to \(offset + produced) bytes, the part ends at byte \(offset + expectedSize)); upload it once it is complete")
        }
        return .chunk(buffer)
    }
}

/// A request body streamed from disk: bytes before the file (a multipart part's head), the file's
/// chunks, bytes after it.
///
/// Everything happens on the request's event loop, which is also the loop of its connection
/// (`.delegateAndChannel`): a chunk in the page cache is read there (`FileChunkReader.fill`,
/// `cachedOnly`) and written at once, on the core that just read it, as curl reads and sends on
/// its one thread; only a chunk that would wait for the disk is read on NIO's thread pool. The
/// next chunk is read only while fewer than `window` chunks are handed over and not yet
/// written (AsyncHTTPClient reports each written, `didSendRequestPart`) and once its
/// backpressure says the connection takes more: at most `window + 1` chunks of an upload are in
/// memory however slow the server reads. A chunk's buffer, once written, holds the next chunk
/// read: a new buffer per chunk made the allocator take memory from the kernel and give it back
/// (30,000–40,000 page faults for 100 screenshots).
final class FileBodyStream: @unchecked Sendable {
    // @unchecked: every mutable field is only touched on `loop`.
    let loop: any EventLoop
    private let reader: FileChunkReader
    private let prefix: [UInt8]
    private let suffix: [UInt8]
    private let threadPool: NIOThreadPool
    private let window: Int
    private let readsOnLoop: Bool
    private var writer: HTTPClient.Body.StreamWriter?
    private var done: EventLoopPromise<Void>?
    private var stage = Stage.prefix
    private var inFlight = 0
    /// False from a write until AsyncHTTPClient's backpressure future for it succeeds.
    private var writable = true
    private var readingOnPool = false
    private var pumping = false
    private var failure: (any Error)?
    /// The buffers handed over, oldest first, and those written since (ready to read into).
    private var handedOver: [ByteBuffer] = []
    private var spare: [ByteBuffer] = []
    /// The most chunks handed over and not yet written at once, and the chunk buffers made: what
    /// the tests read once the body is sent.
    private(set) var peakInFlight = 0
    private(set) var buffersMade = 0

    private enum Stage { case prefix, file, suffix, finishing, over }

    init(reader: FileChunkReader, prefix: [UInt8] = [], suffix: [UInt8] = [], loop: any EventLoop,
         threadPool: NIOThreadPool = .singleton, window: Int = 2, readsOnLoop: Bool = true) {
        self.reader = reader
        self.prefix = prefix
        self.suffix = suffix
        self.loop = loop
        self.threadPool = threadPool
        self.window = max(1, window)
        self.readsOnLoop = readsOnLoop
    }

    var contentLength: Int64 { Int64(prefix.count) + reader.expectedSize + Int64(suffix.count) }

    /// The body for AsyncHTTPClient; its request must run on this stream's loop
    /// (`.delegateAndChannel(on: loop)`), with a `FileBodyResponseDelegate` of this stream.
    var body: HTTPClient.Body {
        .stream(contentLength: contentLength) { [self] writer in
            loop.inEventLoop ? start(writer) : loop.flatSubmit { [self] in start(writer) }
        }
    }

    private func start(_ writer: HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        self.writer = writer
        done = promise
        pump()
        return promise.futureResult
    }

    /// Sends what it can: reads and writes chunks until it must wait (for room, for the
    /// connection, for the thread pool), and is called again when that wait ends. Calls made
    /// while it runs (a write completing at once) return at once: the loop below goes on.
    private func pump() {
        loop.preconditionInEventLoop()
        guard !pumping, let writer else { return }
        pumping = true
        defer { pumping = false }
        while true {
            if let failure {
                finish(.failure(failure))
                return
            }
            guard writable, !readingOnPool else { return }
            switch stage {
            case .over:
                return
            case .prefix:
                stage = .file
                if !prefix.isEmpty { send(ByteBuffer(bytes: prefix), writer) }
            case .file:
                guard inFlight < window else { return }
                let buffer = spare.popLast() ?? newBuffer()
                do {
                    switch try reader.fill(buffer, cachedOnly: readsOnLoop) {
                    case .chunk(let chunk):
                        send(chunk, writer)
                    case .end:
                        stage = .suffix
                    case .wouldWait(let partial):
                        readOnPool(partial)
                        return
                    }
                } catch {
                    failure = error
                }
            case .suffix:
                stage = .finishing
                if !suffix.isEmpty { send(ByteBuffer(bytes: suffix), writer) }
            case .finishing:
                // The last write was taken: the body is complete.
                finish(.success(()))
                return
            }
        }
    }

    private func newBuffer() -> ByteBuffer {
        buffersMade += 1
        return reader.allocator.buffer(capacity: reader.chunkSize)
    }

    /// The rest of a chunk that is not in memory, read where waiting for the disk is allowed.
    private func readOnPool(_ partial: ByteBuffer) {
        readingOnPool = true
        let box = BufferBox(partial)
        threadPool.runIfActive(eventLoop: loop) { [reader] in try reader.fill(box.take(), cachedOnly: false) }
            .whenComplete { [self] result in
                readingOnPool = false
                switch result {
                case .success(.chunk(let chunk)):
                    if let writer, failure == nil { send(chunk, writer) }
                case .success(.end), .success(.wouldWait):
                    stage = .suffix
                case .failure(let error):
                    failure = failure ?? error
                }
                pump()
            }
    }

    /// Hands one buffer over; sending more waits for AsyncHTTPClient's backpressure future.
    private func send(_ buffer: ByteBuffer, _ writer: HTTPClient.Body.StreamWriter) {
        inFlight += 1
        peakInFlight = max(peakInFlight, inFlight)
        handedOver.append(buffer)
        writable = false
        writer.write(.byteBuffer(buffer)).hop(to: loop).whenComplete { [self] result in
            switch result {
            case .success: writable = true
            case .failure(let error): failure = failure ?? error
            }
            pump()
        }
    }

    private func finish(_ result: Result<Void, any Error>) {
        stage = .over
        reader.close()
        guard let done else { return }
        self.done = nil
        done.completeWith(result)
    }

    /// AsyncHTTPClient wrote one buffer (called on `loop`).
    func partWritten() {
        loop.preconditionInEventLoop()
        inFlight -= 1
        if !handedOver.isEmpty {
            // Parts are written in the order they were handed over.
            var written = handedOver.removeFirst()
            if written.capacity >= reader.chunkSize {
                written.clear()
                spare.append(written)
            }
        }
        pump()
    }

    /// The request failed (called on `loop`): the body ends with the error.
    func failed(_ error: any Error) {
        loop.preconditionInEventLoop()
        failure = failure ?? error
        pump()
    }
}

/// A buffer on its way to the thread pool and back, held in one place: a second reference would
/// make the read copy it.
private final class BufferBox: @unchecked Sendable {
    // @unchecked: touched by one thread at a time (the loop, then the pool thread).
    private var buffer: ByteBuffer?
    init(_ buffer: ByteBuffer) { self.buffer = buffer }

    /// The buffer, no longer held here.
    func take() -> ByteBuffer {
        defer { buffer = nil }
        return buffer ?? ByteBuffer()
    }
}

/// Collects the answer to a request whose body is a `FileBodyStream` (up to `maxBytes` of body),
/// and tells the stream when each of its buffers was written.
final class FileBodyResponseDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: AsyncHTTPClient calls a delegate on the task's event loop only (the stream's loop).
    typealias Response = HTTPResponse

    private let stream: FileBodyStream
    private let maxBytes: Int
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(stream: FileBodyStream, maxBytes: Int) {
        self.stream = stream
        self.maxBytes = maxBytes
    }

    func didSendRequestPart(task: HTTPClient.Task<HTTPResponse>, _ part: IOData) { stream.partWritten() }

    func didReceiveHead(task: HTTPClient.Task<HTTPResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HTTPResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard body.readableBytes + buffer.readableBytes <= maxBytes else {
            return task.eventLoop.makeFailedFuture(NIOTooManyBytesError(maxBytes: maxBytes))
        }
        var buffer = buffer
        body.writeBuffer(&buffer)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<HTTPResponse>, _ error: any Error) { stream.failed(error) }

    func didFinishRequest(task: HTTPClient.Task<HTTPResponse>) throws -> HTTPResponse {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return HTTPResponse(status: Int(head.status.code), headers: head.headers.map { (name: $0.name, value: $0.value) },
                            body: Array(body.readableBytesView))
    }
}
