internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOHTTP1

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
public struct LiveHTTPClient: HTTPSending {
    private let given: HTTPClient?

    /// The process-wide client, which is never shut down. It is touched on the first request
    /// only: making it starts an event loop per core, which a lane that sends nothing must not pay.
    public init() {
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
                                            maxConnections: request.connectionPool == nil ? nil : request.maxConnections)
    }

    /// One attempt: builds the AsyncHTTPClient request (reopening an upload file) and collects the body.
    public func send(_ request: HTTPRequest, maxResponseBytes: Int, onEvent: @escaping HTTPEventHandler) async throws -> HTTPResponse {
        let client = client(for: request)
        let chunkSize = request.fileChunkSize ?? 1 << 20
        switch request.body {
        case .none, .bytes:
            break
        case .file(let path):
            let size = try HTTPTransport.regularFileSize(path)
            onEvent(.streamingUpload(path: path, bytes: size))
            return try await stream(request, FileChunkReader(path: path, expectedSize: size, chunkSize: chunkSize), client: client,
                                    maxResponseBytes: maxResponseBytes)
        case .fileSlice(let path, let offset, let length):
            return try await stream(request, FileChunkReader(path: path, offset: offset, length: length, chunkSize: chunkSize), client: client,
                                    maxResponseBytes: maxResponseBytes)
        case let .wrappedFile(prefix, path, suffix):
            let size = try HTTPTransport.regularFileSize(path)
            onEvent(.streamingUpload(path: path, bytes: size))
            return try await stream(request, FileChunkReader(path: path, expectedSize: size, chunkSize: chunkSize), prefix: prefix, suffix: suffix,
                                    client: client, maxResponseBytes: maxResponseBytes)
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if case .bytes(let bytes) = request.body { outgoing.body = .bytes(ByteBuffer(bytes: bytes)) }
        let response = try await client.execute(outgoing, timeout: Self.timeout(of: request))
        let buffer = try await response.body.collect(upTo: maxResponseBytes)
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        return HTTPResponse(status: Int(response.status.code), headers: headers, body: Array(buffer.readableBytesView))
    }

    private static func timeout(of request: HTTPRequest) -> TimeAmount {
        .milliseconds(Int64(max(0.001, request.timeout) * 1000))
    }

    /// A body streamed from disk (`FileBodyStream`): through AsyncHTTPClient's stream writer,
    /// whose delegate learns when each chunk is written, the one signal that bounds the chunks in
    /// memory without waiting on other threads per chunk. The request, its connection and the
    /// reads are on one event loop.
    private func stream(_ request: HTTPRequest, _ reader: FileChunkReader, prefix: [UInt8] = [], suffix: [UInt8] = [], client: HTTPClient,
                        maxResponseBytes: Int) async throws -> HTTPResponse {
        let (loop, slot) = UploadLoops.shared.take(client)
        defer { UploadLoops.shared.give(client, slot) }
        let stream = FileBodyStream(reader: reader, prefix: prefix, suffix: suffix, loop: loop)
        var headers = HTTPHeaders()
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        let outgoing = try HTTPClient.Request(url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                                              body: stream.body)
        let task = client.execute(request: outgoing, delegate: FileBodyResponseDelegate(stream: stream, maxBytes: maxResponseBytes),
                                  eventLoop: .delegate(on: loop), deadline: .now() + Self.timeout(of: request))
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }
}

/// The event loop a streamed upload runs on (request, connection and reads): of a client's loops,
/// the one with the fewest uploads running. Uploads then spread evenly over the loops and each
/// finds a connection left idle on its loop by the one before; a loop picked in turn
/// (`EventLoopGroup.any()`) made AsyncHTTPClient close and open a connection for most uploads
/// (100 screenshots, 4 at a time, went over 54 connections).
final class UploadLoops: @unchecked Sendable {
    // @unchecked: `running` is only touched under `lock`.
    static let shared = UploadLoops()
    private let lock = NSLock()
    private var running: [ObjectIdentifier: [Int]] = [:]

    func take(_ client: HTTPClient) -> (loop: any EventLoop, slot: Int) {
        let loops = Array(client.eventLoopGroup.makeIterator())
        return lock.withLock {
            var counts = running[ObjectIdentifier(client)] ?? Array(repeating: 0, count: loops.count)
            if counts.count != loops.count { counts = Array(repeating: 0, count: loops.count) }
            var slot = 0
            for index in counts.indices where counts[index] < counts[slot] { slot = index }
            counts[slot] += 1
            running[ObjectIdentifier(client)] = counts
            return (loops[slot], slot)
        }
    }

    func give(_ client: HTTPClient, _ slot: Int) {
        lock.withLock {
            guard var counts = running[ObjectIdentifier(client)], counts.indices.contains(slot) else { return }
            counts[slot] = max(0, counts[slot] - 1)
            running[ObjectIdentifier(client)] = counts
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

    func client(connect: Double, read: Double, pool: String? = nil, maxConnections: Int? = nil) -> HTTPClient {
        lock.withLock {
            let key = "\(connect)/\(read)/\(pool ?? "")/\(maxConnections.map(String.init) ?? "")"
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(
                connect: .milliseconds(Int64(connect * 1000)), read: .milliseconds(Int64(read * 1000)))
            configuration.connectionPool.retryConnectionEstablishment = false
            if let maxConnections { configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, maxConnections) }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}
