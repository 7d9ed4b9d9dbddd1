import Foundation

/// Something the HTTP layer did that a caller may want to show: a retry, a wait, a streamed upload.
///
/// The library never prints; a caller passes an `HTTPEventHandler` and renders these as it sees fit.
public enum HTTPEvent: Sendable, Equatable, CustomStringConvertible {
    /// A request failed with a retryable condition and will be sent again after `delay` seconds.
    case retrying(method: String, url: String, attempt: Int, maxAttempts: Int, reason: String, delay: Double)
    /// An upload body is being streamed from a file on disk (never loaded whole into memory).
    case streamingUpload(path: String, bytes: Int64)

    /// A one-line, human-readable account of the event.
    public var description: String {
        switch self {
        case let .retrying(method, url, attempt, maxAttempts, reason, delay):
            return "\(method) \(url): attempt \(attempt) of \(maxAttempts) after \(reason), waiting \(Self.format(seconds: delay)) s"
        case let .streamingUpload(path, bytes):
            return "streaming \(bytes) bytes from \(path)"
        }
    }

    static func format(seconds: Double) -> String {
        String(format: "%.1f", seconds)
    }
}

/// Receives HTTP events; called from any task, so it must be thread-safe.
public typealias HTTPEventHandler = @Sendable (HTTPEvent) -> Void
