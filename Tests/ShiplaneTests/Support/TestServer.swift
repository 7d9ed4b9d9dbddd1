import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A request context that keeps the channel, so a fake server can drop a connection on purpose.
struct FakeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// An in-process HTTP server on 127.0.0.1 with a random free port, running one handler.
final class TestServer: @unchecked Sendable {
    typealias Handler = @Sendable (Request, FakeContext) async throws -> Response

    private var task: Task<Void, any Error>?
    private var group: ServiceGroup?
    private(set) var port = 0
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server and waits (at most 60 s: the whole suite may load the machine) until it listens.
    static func start(_ handler: @escaping Handler) async throws -> TestServer {
        let server = TestServer()
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let app = Application(
            responder: CallbackResponder<FakeContext> { request, context in try await handler(request, context) },
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        server.group = group
        server.task = Task { try await group.run() }
        let port = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask { for await port in ports { return port }; return 0 }
            group.addTask { try await Task.sleep(nanoseconds: 60_000_000_000); return 0 }
            let first = try await group.next() ?? 0
            group.cancelAll()
            return first
        }
        guard port > 0 else {
            server.stop()
            throw TestServerError.didNotStart
        }
        server.port = port
        return server
    }

    /// Stops the server gracefully: the listening socket closes at once, and connections it had
    /// already accepted are served and closed. (Cancelling its task dropped accepted connections
    /// not yet served, which SwiftNIO treats as a programming error: the whole test process died
    /// with "Deinited NIOAsyncWriter without calling finish()" when a client connected as a test
    /// ended.) A server still running 10 s later is cancelled.
    func stop() {
        guard let task else { return }
        guard let group else { return task.cancel() }
        Task.detached {
            await group.triggerGracefulShutdown()
            try? await Task.sleep(for: .seconds(10))
            task.cancel()
        }
    }

    enum TestServerError: Error { case didNotStart }
}

/// Shorthands for building fake responses.
enum Reply {
    static func json(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return raw(status, Array(data), contentType: "application/json; charset=utf-8", headers: headers)
    }

    static func text(_ status: Int, _ text: String, contentType: String = "text/plain", headers: [String: String] = [:]) -> Response {
        raw(status, Array(text.utf8), contentType: contentType, headers: headers)
    }

    static func empty(_ status: Int, headers: [String: String] = [:]) -> Response {
        raw(status, [], contentType: nil, headers: headers)
    }

    static func raw(_ status: Int, _ bytes: [UInt8], contentType: String?, headers: [String: String]) -> Response {
        var fields = HTTPFields()
        if let contentType, let name = HTTPField.Name("Content-Type") { fields[name] = contentType }
        for (key, value) in headers {
            if let name = HTTPField.Name(key) { fields[name] = value }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension Request {
    /// A header value by name, case-insensitively.
    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }

    /// Path and query parsed from the request URI.
    var pathAndQuery: (path: String, query: [String: String]) {
        let components = URLComponents(string: uri.description)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return (components?.path ?? uri.path, query)
    }

    /// Reads the whole body, at most `limit` bytes kept; returns the kept bytes and the total count.
    func readBody(keeping limit: Int = 1 << 20) async throws -> (bytes: [UInt8], count: Int) {
        var kept: [UInt8] = []
        var count = 0
        for try await chunk in body {
            count += chunk.readableBytes
            if kept.count < limit { kept += chunk.readableBytesView.prefix(limit - kept.count) }
        }
        return (kept, count)
    }
}
