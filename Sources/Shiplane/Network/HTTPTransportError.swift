import Foundation

/// A request that could not be completed: connection failures, exhausted retries, rate limits.
package enum HTTPTransportError: ReportableError {
    /// The server could not be reached or dropped the connection on every attempt; `reason` is
    /// the last attempt's, as one sentence ("connection refused by 127.0.0.1:9").
    case connectionFailed(method: String, url: String, attempts: Int, reason: String)
    /// The server kept answering with a retryable status until the attempts ran out.
    case retriesExhausted(method: String, url: String, attempts: Int, status: Int, contentType: String?, bodySnippet: String)
    /// The server asked to wait longer than the policy allows (rate limit).
    case waitTooLong(method: String, url: String, status: Int, requestedWait: Double, maxWait: Double)
    /// A request that may not be repeated (POST, PATCH) was sent, and no answer came: it may or
    /// may not have taken effect, so it was not sent again.
    case responseLost(method: String, url: String, reason: String)
    /// The server accepted the request and stayed silent, on every attempt allowed.
    case noResponse(method: String, url: String, attempts: Int, reason: String)
    /// The URL could not be parsed or has no http/https scheme.
    case invalidURL(String)
    /// An upload body file could not be read, or a download's file written.
    case fileUnreadable(path: String, reason: String)
    /// A download was larger than its request allowed (`HTTPRequest.maxResponseFileBytes`).
    case responseTooLarge(method: String, url: String, limit: Int64)

    /// Names the request and what happened to it.
    package var message: String {
        switch self {
        case let .connectionFailed(method, url, attempts, reason):
            return "\(method) \(url) failed: \(reason) (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
        case let .retriesExhausted(method, url, attempts, status, _, _):
            return "\(method) \(url) still answered HTTP \(status) after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case let .waitTooLong(method, url, status, requested, _):
            return "\(method) \(url) is rate limited (HTTP \(status)) for \(Int(requested.rounded(.up))) s, longer than Shiplane waits"
        case let .responseLost(method, url, reason):
            return "\(method) \(url) was sent but got no answer (\(reason)); not sent again, as it may have taken effect"
        case let .noResponse(method, url, attempts, reason):
            return "\(method) \(url): \(reason) (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
        case let .invalidURL(url):
            return "invalid URL \(url)"
        case let .fileUnreadable(path, reason):
            // A download's file (`HTTPRequest.responseFile`) that cannot be written says so.
            return reason.hasPrefix("cannot be written") ? "cannot write download file \(path)" : "cannot read upload file \(path)"
        case let .responseTooLarge(method, url, limit):
            return "\(method) \(url) answered more than \(limit) bytes, the most allowed"
        }
    }

    /// The cause, the last status and body, the waits, or why a file was unreadable.
    package var info: [(key: String, value: String)] {
        switch self {
        case let .retriesExhausted(_, _, _, status, contentType, snippet):
            return [("status", String(status)), ("content-type", contentType ?? "none"), ("body", snippet)]
        case let .waitTooLong(_, _, _, requested, maxWait):
            return [("requested wait", "\(Int(requested.rounded(.up))) s"), ("maximum wait", "\(Int(maxWait)) s")]
        case .connectionFailed, .invalidURL, .responseLost, .noResponse, .responseTooLarge:
            return []
        case let .fileUnreadable(_, reason):
            return [("reason", reason)]
        }
    }

    /// What to do next; nil for an unreadable file, whose reason says it.
    package var suggestion: String? {
        switch self {
        case .connectionFailed: return "check that the server is up and the URL (host and port) is right, then run again"
        case .retriesExhausted: return "the service is failing; try again later"
        case .waitTooLong: return "wait for the rate limit to reset, then run again"
        case .invalidURL: return "use an absolute http:// or https:// URL"
        case .responseLost: return "check whether it took effect before running again; raise SHIPLANE_HTTP_READ_TIMEOUT for a slow server"
        case .noResponse: return "the server is not answering; try again later, or raise SHIPLANE_HTTP_READ_TIMEOUT for a slow server"
        case .fileUnreadable: return nil
        case .responseTooLarge: return "raise the limit if a file that large is expected"
        }
    }
}
