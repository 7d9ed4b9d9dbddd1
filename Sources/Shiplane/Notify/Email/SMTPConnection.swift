import Foundation
internal import NIOCore
internal import NIOPosix
internal import NIOSSL

/// One SMTP conversation over TCP (SwiftNIO), with TLS from the start (implicit TLS, port 465)
/// or added mid-connection after `STARTTLS` (NIOSSL's client handler put in front of the pipeline).
///
/// Written here rather than taken from a package: the SMTP clients for Swift on the package index
/// are unmaintained or bring their own NIO versions; the protocol part is small (RFC 5321 replies,
/// `EHLO`, `STARTTLS`, `AUTH`, `MAIL`, `RCPT`, `DATA`) and NIO, NIOSSL are already here through
/// AsyncHTTPClient.
final class SMTPConnection: @unchecked Sendable {
    // @unchecked: `iterator` and `pending` are used by one task at a time (the conversation is
    // strictly request then reply); `channel` is thread-safe.
    private let channel: any Channel
    private var iterator: AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator
    private var pending: [UInt8] = []
    let server: String
    private let replyTimeout: Double

    /// An SMTP reply: its code and its lines' texts.
    struct Reply: Sendable {
        var code: Int
        var lines: [String]
        var text: String { "\(code) " + lines.joined(separator: " / ") }
    }

    private init(channel: any Channel, stream: AsyncThrowingStream<ByteBuffer, any Error>, server: String, replyTimeout: Double) {
        self.channel = channel
        self.iterator = stream.makeAsyncIterator()
        self.server = server
        self.replyTimeout = replyTimeout
    }

    /// Connects to `host:port`, with TLS from the start when `tls` is given.
    /// - Throws: `EmailError.connectionFailed` or `.tlsFailed`.
    static func open(host: String, port: Int, tls: NIOSSLContext?, connectTimeout: Double, replyTimeout: Double) async throws -> SMTPConnection {
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        let server = "\(host):\(port)"
        let serverHostname = Self.isIPAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(connectTimeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname)) }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyReader(continuation))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            throw EmailError.connectionFailed(server: server, reason: describe(error))
        }
        return SMTPConnection(channel: channel, stream: stream, server: server, replyTimeout: replyTimeout)
    }

    /// Turns TLS on over the open connection (after the server's `220` to `STARTTLS`).
    func startTLS(_ context: NIOSSLContext, host: String) async throws {
        let serverHostname = Self.isIPAddress(host) ? nil : host
        let channel = self.channel
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname), position: .first)
        }.get()
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    // MARK: - Talking

    /// Sends one command line (CRLF added) and reads the reply.
    func command(_ line: String) async throws -> Reply {
        try await write(Array((line + "\r\n").utf8))
        return try await readReply()
    }

    /// Sends bytes as they are.
    func write(_ bytes: [UInt8]) async throws {
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
        } catch {
            // A connection closed by a failed TLS handshake: the reader holds the real cause.
            // Closed first, so the read ends at once whatever broke the write.
            try? await channel.close().get()
            _ = try await readLine()
            throw EmailError.connectionFailed(server: server, reason: "the connection broke while sending (\(describe(error)))")
        }
    }

    /// Reads one reply, all its `NNN-` lines up to the `NNN ` one.
    /// - Throws: `EmailError.connectionFailed` when the connection ends or stays silent, `.tlsFailed` for a TLS error.
    func readReply() async throws -> Reply {
        var lines: [String] = []
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(replyTimeout * 1000))) { channel.close(promise: nil) }
        defer { timer.cancel() }
        while true {
            let line = try await readLine()
            guard line.count >= 3, let code = Int(line.prefix(3)) else {
                throw EmailError.connectionFailed(server: server, reason: "the server did not answer in SMTP: \(line.prefix(80))")
            }
            lines.append(String(line.dropFirst(4)))
            if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] == " " { return Reply(code: code, lines: lines) }
        }
    }

    private func readLine() async throws -> String {
        while true {
            if let end = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<end])
                pending.removeSubrange(...end)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            let chunk: ByteBuffer?
            do {
                chunk = try await iterator.next()
            } catch {
                // NIOSSL reports a refused certificate as NIOSSLError or as BoringSSLError (its
                // type name is the only public mark of the latter).
                if error is NIOSSLError || String(describing: type(of: error)).contains("SSL") || String(describing: error).contains("certificate") {
                    throw EmailError.tlsFailed(server: server, reason: describe(error))
                }
                throw EmailError.connectionFailed(server: server, reason: describe(error))
            }
            guard let chunk else {
                throw EmailError.connectionFailed(server: server, reason: "the server closed the connection (or sent no answer within \(Int(replyTimeout)) s)")
            }
            pending += chunk.readableBytesView
        }
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close().get()
    }
}

/// Hands what the server sends to the conversation, and ends it with the connection (or its error).
private final class SMTPReplyReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
