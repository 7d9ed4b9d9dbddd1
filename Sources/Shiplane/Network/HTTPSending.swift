internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix

/// Sends one HTTP request, once: the one place where Shiplane's HTTP leaves the process.
///
/// `HTTPTransport` adds retries, backoff and redaction on top. A lane context carries one
/// (`LaneContext.Dependencies.http`): the live value is `LiveHTTPClient`; `ShiplaneTesting`'s
/// `RecordingHTTPClient` records requests and answers them without a server.
public protocol HTTPSending: Sendable {
    /// Sends `request` once and returns the response, its body collected up to `maxResponseBytes`.
    /// - Throws: on connection errors and timeouts (the transport decides about retrying).
    func send(_ request: HTTPRequest, maxResponseBytes: Int, onEvent: @escaping HTTPEventHandler) async throws -> HTTPResponse
}

/// HTTP through AsyncHTTPClient: uploads streamed from disk, paced by the client's event loops.
package struct LiveHTTPClient: HTTPSending {
    private let given: HTTPClient?

    /// The process-wide client, which is never shut down. It is touched on the first request
    /// only: making it starts an event loop per core, which a lane that sends nothing must not pay.
    package init() {
        given = nil
    }

    init(client: HTTPClient) {
        given = client
    }

    /// The client for a request: the given one, else a process-wide one per pair of timeouts and
    /// connection pool (made on first use, never shut down, like `HTTPClient.shared`).
    private func client(for request: HTTPRequest) -> HTTPClient {
        if let given { return given }
        return TimeoutClients.shared.client(connect: request.connectTimeout ?? 10, read: request.readTimeout ?? 30, pool: request.connectionPool,
                                            maxConnections: request.connectionPool == nil ? nil : request.maxConnections,
                                            followsRedirects: request.followsRedirects)
    }

    /// One attempt: builds the AsyncHTTPClient request (reopening an upload file) and collects the body.
    package func send(_ request: HTTPRequest, maxResponseBytes: Int, onEvent: @escaping HTTPEventHandler) async throws -> HTTPResponse {
        let client = client(for: request)
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        switch request.body {
        case .none:
            break
        case .bytes(let bytes):
            outgoing.body = .bytes(ByteBuffer(bytes: bytes))
        case .file(let path):
            let size = try HTTPTransport.regularFileSize(path)
            onEvent(.streamingUpload(path: path, bytes: size))
            outgoing.body = .stream(
                FileChunkSequence(path: path, expectedSize: size, chunkSize: request.fileChunkSize ?? 1 << 20,
                                  eventLoops: Array(client.eventLoopGroup.makeIterator())),
                length: .known(size))
        case .fileSlice(let path, let offset, let length):
            outgoing.body = .stream(
                FileChunkSequence(path: path, offset: offset, length: length, chunkSize: request.fileChunkSize ?? 1 << 20,
                                  eventLoops: Array(client.eventLoopGroup.makeIterator())),
                length: .known(length))
        case let .wrappedFile(prefix, path, suffix):
            let size = try HTTPTransport.regularFileSize(path)
            onEvent(.streamingUpload(path: path, bytes: size))
            let file = FileChunkSequence(path: path, expectedSize: size, chunkSize: request.fileChunkSize ?? 1 << 20,
                                         eventLoops: Array(client.eventLoopGroup.makeIterator()))
            outgoing.body = .stream(WrappedChunkSequence(prefix: prefix, file: file, suffix: suffix),
                                    length: .known(Int64(prefix.count) + size + Int64(suffix.count)))
        }
        let timeout = TimeAmount.milliseconds(Int64(max(0.001, request.timeout) * 1000))
        let response = try await client.execute(outgoing, timeout: timeout)
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        if let file = request.responseFile, (200..<300).contains(Int(response.status.code)) {
            if let limit = request.maxResponseFileBytes,
               let declared = response.headers.first(name: "content-length").flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }), declared > limit {
                throw ResponseFileTooLarge(limit: limit)
            }
            try await Self.write(response.body, to: file, limit: request.maxResponseFileBytes)
            return HTTPResponse(status: Int(response.status.code), headers: headers, body: [])
        }
        let buffer = try await response.body.collect(upTo: maxResponseBytes)
        return HTTPResponse(status: Int(response.status.code), headers: headers, body: Array(buffer.readableBytesView))
    }

    /// Writes a body to `path` as it arrives (created or truncated, mode 0644); past `limit` bytes
    /// the file is removed and `ResponseFileTooLarge` thrown.
    private static func write(_ body: HTTPClientResponse.Body, to path: String, limit: Int64?) async throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw HTTPTransportError.fileUnreadable(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var total: Int64 = 0
        for try await chunk in body {
            total += Int64(chunk.readableBytes)
            if let limit, total > limit {
                unlink(path)
                throw ResponseFileTooLarge(limit: limit)
            }
            try chunk.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw HTTPTransportError.fileUnreadable(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
    }
}

/// AsyncHTTPClient clients by their connect and read timeouts and connection pool: a run uses one
/// pair, so one client, plus one for the uploads that ask for a pool of their own. All share the
/// process's event loops.
///
/// A failed connection fails the attempt at once (`retryConnectionEstablishment` off):
/// AsyncHTTPClient would otherwise keep reconnecting until the connect timeout, so a refused
/// connection took the whole 10 s on each of five attempts. `HTTPTransport` retries instead,
/// with short waits for connect errors (`RetryPolicy.connectRetryBudget`).
final class TimeoutClients: @unchecked Sendable {
    // @unchecked: `clients` is only touched under `lock`.
    static let shared = TimeoutClients()
    private let lock = NSLock()
    private var clients: [String: HTTPClient] = [:]
    /// The event loop of the pools of their own (upload parts): one thread for all their
    /// connections. Each chunk of a file waits for the loops of its client to have written the
    /// one before (`FileChunkSequence`); with one loop that is one wake-up a chunk, not one per
    /// core, and the bytes of every upload are sent from one core, as curl sends them. Made on
    /// first use, never shut down.
    private static let uploadLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    func client(connect: Double, read: Double, pool: String? = nil, maxConnections: Int? = nil, followsRedirects: Bool = true) -> HTTPClient {
        lock.withLock {
            let key = "\(connect)/\(read)/\(pool ?? "")/\(maxConnections.map(String.init) ?? "")/\(followsRedirects)"
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            if !followsRedirects { configuration.redirectConfiguration = .disallow }
            configuration.timeout = .init(
                connect: .milliseconds(Int64(connect * 1000)), read: .milliseconds(Int64(read * 1000)))
            configuration.connectionPool.retryConnectionEstablishment = false
            if let maxConnections { configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, maxConnections) }
            let client = HTTPClient(eventLoopGroupProvider: pool == nil ? .singleton : .shared(Self.uploadLoop), configuration: configuration)
            clients[key] = client
            return client
        }
    }
}

/// A download (`HTTPRequest.responseFile`) larger than its request's `maxResponseFileBytes`; the
/// transport reports it as `HTTPTransportError.responseTooLarge`, never retried.
struct ResponseFileTooLarge: Error {
    let limit: Int64
}
