import Foundation

/// An HTTP method Shiplane sends.
public enum HTTPRequestMethod: String, Sendable {
    /// The methods, each sent as its uppercase name.
    case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE", head = "HEAD"

    /// Whether sending the request twice does what sending it once does (RFC 9110 9.2.2): only
    /// these are repeated when a response is lost.
    package var isIdempotent: Bool { self != .post && self != .patch }
}

/// The body of a request: nothing, bytes in memory, or a file streamed from disk.
public enum HTTPRequestBody: Sendable {
    /// No body.
    case none
    /// Bytes held in memory.
    case bytes([UInt8])
    /// A file sent in chunks with Content-Length; reopened on every attempt.
    case file(path: String)
    /// `length` bytes of a file from `offset`, streamed with Content-Length (one part of a
    /// multi-part upload); reopened on every attempt, so a part is retried on its own.
    case fileSlice(path: String, offset: Int64, length: Int64)
    /// A file streamed between bytes sent before and after it (a `multipart/form-data` part:
    /// its headers, the file, the closing boundary); reopened on every attempt.
    case wrappedFile(prefix: [UInt8], path: String, suffix: [UInt8])
}

/// A request for `HTTPTransport`: method, URL, headers, body and its own timeout.
public struct HTTPRequest: Sendable {
    /// The method.
    public var method: HTTPRequestMethod
    /// The absolute http or https URL.
    public var url: String
    /// The headers in the order they are sent; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// What is sent after the headers.
    public var body: HTTPRequestBody
    /// Seconds the whole request may take; uploads should pass a larger value.
    public var timeout: Double
    /// Whether the request may be sent again when its answer was lost: by default only idempotent
    /// methods; a caller sets it for a POST that cannot take effect twice (a named upload that the
    /// server refuses as a duplicate).
    package var isRepeatable: Bool
    /// Seconds to wait for the connection; nil: the transport's policy decides.
    package var connectTimeout: Double?
    /// Seconds the server may stay silent while the response is awaited or read; nil: the
    /// transport's policy decides.
    package var readTimeout: Double?
    /// Bytes read from disk at a time for a file body; nil: 1 MiB. Smaller keeps memory low when
    /// many uploads run at once (about two chunks of each are in memory).
    package var fileChunkSize: Int?
    /// Requests naming the same pool share connections, apart from other requests (nil: the
    /// common pool): file uploads keep their own warm connections while API calls run beside
    /// them, so a freed upload slot never waits for a connection an API call holds.
    package var connectionPool: String?
    /// With `connectionPool`: the connections the pool opens to one host at most (nil: 8), so
    /// that `n` uploads at a time reuse `n` connections.
    package var maxConnections: Int?
    /// Where a successful (2xx) answer's body is written as it arrives, instead of being
    /// collected in memory (downloads of release files); the response's `body` is then empty.
    /// Written anew on every attempt. nil: the body is collected.
    package var responseFile: String?
    /// With `responseFile`: the most bytes written; a larger answer (by its Content-Length, or as
    /// it arrives) fails with `HTTPTransportError.responseTooLarge` and its partial file is
    /// removed. nil: no limit.
    package var maxResponseFileBytes: Int64?
    /// Whether a 3xx answer is followed by the client (AsyncHTTPClient drops only `Authorization`
    /// and cookies on the way to another origin). false: the 3xx comes back to the caller, which
    /// follows it itself and decides which headers go on (a GitLab token goes to its own server only).
    package var followsRedirects = true

    /// Creates a request; `timeout` is in seconds.
    public init(
        method: HTTPRequestMethod,
        url: String,
        headers: [(name: String, value: String)] = [],
        body: HTTPRequestBody = .none,
        timeout: Double = 30
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        isRepeatable = method.isIdempotent
    }

    /// Creates a request with a JSON body encoded from `value`.
    /// - Throws: an encoding error when `value` cannot be encoded.
    package static func json<Value: Encodable>(
        _ method: HTTPRequestMethod, url: String, headers: [(name: String, value: String)] = [],
        value: Value, timeout: Double = 30
    ) throws -> HTTPRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return HTTPRequest(
            method: method, url: url,
            headers: headers + [("Content-Type", "application/json")],
            body: .bytes(Array(data)), timeout: timeout)
    }
}
