internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix

/// Sends HTTP requests through an injected `HTTPClient`, retrying transient failures per a `RetryPolicy`.
///
/// Retries connection errors, timeouts, 5xx, 429 (waiting for `Retry-After`, GitHub's
/// `x-ratelimit-reset` or GitLab's `RateLimit-Reset`) and GitHub's secondary rate limits (403 with
/// `retry-after`, or `x-ratelimit-remaining: 0` with `x-ratelimit-reset`); never other 4xx. Other
/// statuses come back as a response for the caller to interpret. The caller owns the client's lifecycle.
package struct HTTPTransport: Sendable {
    /// What sends each attempt: AsyncHTTPClient in a live run, a recorder in a lane test.
    package let sender: any HTTPSending
    /// How often, how long and after what pauses a failed request is sent again.
    package var retryPolicy: RetryPolicy
    /// Receives retries and streamed uploads, for the caller to show.
    package var onEvent: HTTPEventHandler
    /// The current time, for `Retry-After` dates and `x-ratelimit-reset` epochs.
    package var now: @Sendable () -> Date
    /// Hides secrets in URLs shown in events and errors.
    package var redactor: SecretRedactor
    /// Largest response body collected, in bytes.
    package var maxResponseBytes: Int

    /// Creates a transport over a sender (the live one is `LiveHTTPClient`).
    package init(
        sender: any HTTPSending,
        retryPolicy: RetryPolicy = RetryPolicy(),
        redactor: SecretRedactor = SecretRedactor(),
        now: @escaping @Sendable () -> Date = { Date() },
        maxResponseBytes: Int = 16 * 1024 * 1024,
        onEvent: @escaping HTTPEventHandler = { _ in }
    ) {
        self.sender = sender
        self.retryPolicy = retryPolicy
        self.redactor = redactor
        self.now = now
        self.maxResponseBytes = maxResponseBytes
        self.onEvent = onEvent
    }

    /// Creates a transport over an AsyncHTTPClient client the caller shuts down.
    init(
        client: HTTPClient, retryPolicy: RetryPolicy = RetryPolicy(), redactor: SecretRedactor = SecretRedactor(),
        now: @escaping @Sendable () -> Date = { Date() }, onEvent: @escaping HTTPEventHandler = { _ in }
    ) {
        self.init(sender: LiveHTTPClient(client: client), retryPolicy: retryPolicy, redactor: redactor, now: now, onEvent: onEvent)
    }

    // MARK: - Sending

    /// Sends `request`, retrying per the policy, and returns the first non-retryable response.
    /// - Throws: `HTTPTransportError` when the attempts run out, the server asks to wait too long, or the URL is invalid.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let shownURL = redactor.redact(request.url)
        guard let components = URLComponents(string: request.url),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              !Self.hostAsWritten(request.url).isEmpty else {
            throw HTTPTransportError.invalidURL(shownURL)
        }
        if case .file(let path) = request.body { _ = try Self.regularFileSize(path) }
        if case .wrappedFile(_, let path, _) = request.body { _ = try Self.regularFileSize(path) }
        if case .fileSlice(let path, let offset, let length) = request.body {
            let size = try Self.regularFileSize(path)
            guard offset >= 0, length >= 0, offset + length <= size else {
                throw HTTPTransportError.fileUnreadable(
                    path: path, reason: "bytes \(offset)..<\(offset + length) lie outside the file (\(size) bytes)")
            }
        }
        let policy = retryPolicy
        var request = request
        request.connectTimeout = request.connectTimeout ?? policy.connectTimeout
        request.readTimeout = request.readTimeout ?? policy.readTimeout
        var attempt = 0
        var timeouts = 0
        var connectFailures = 0
        while true {
            attempt += 1
            var reason = ""
            var serverWait: Double?
            var connectWait: Double?
            do {
                let response = try await sender.send(request, maxResponseBytes: maxResponseBytes, onEvent: onEvent)
                let decision = retryDecision(for: response)
                switch decision {
                case .done:
                    return response
                case .retry(let why, let wait):
                    reason = why
                    serverWait = wait
                    if let wait, wait > policy.maxServerWait {
                        throw HTTPTransportError.waitTooLong(
                            method: request.method.rawValue, url: shownURL, status: response.status,
                            requestedWait: wait, maxWait: policy.maxServerWait)
                    }
                    if attempt >= policy.maxAttempts {
                        throw HTTPTransportError.retriesExhausted(
                            method: request.method.rawValue, url: shownURL, attempts: attempt,
                            status: response.status, contentType: response.header("content-type"),
                            bodySnippet: redactor.redact(response.bodySnippet()))
                    }
                }
            } catch let error as HTTPTransportError {
                throw error
            } catch let error as ResponseFileTooLarge {
                throw HTTPTransportError.responseTooLarge(method: request.method.rawValue, url: shownURL, limit: error.limit)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let failure = Self.classify(error, request: request)
                if failure.mayHaveLanded && !request.isRepeatable {
                    // The request went out; whether it took effect is unknown. Sending it again
                    // could do it twice (a second release, a second message): the caller decides.
                    throw HTTPTransportError.responseLost(method: request.method.rawValue, url: shownURL, reason: failure.text)
                }
                let method = request.method.rawValue
                if failure.isTimeout {
                    // A server that let a whole timeout pass is tried once more, not five times.
                    timeouts += 1
                    if timeouts > policy.timeoutRetries || attempt >= policy.maxAttempts {
                        throw failure.mayHaveLanded
                            ? HTTPTransportError.noResponse(method: method, url: shownURL, attempts: attempt, reason: failure.text)
                            : HTTPTransportError.connectionFailed(method: method, url: shownURL, attempts: attempt, reason: failure.text)
                    }
                } else if failure.isConnectError {
                    // Refused, unknown host, unreachable: back at once, so retried after short
                    // waits that stop within `connectRetryBudget`.
                    connectFailures += 1
                    connectWait = policy.connectBackoff(afterFailure: connectFailures)
                    if connectWait == nil || attempt >= policy.maxAttempts {
                        throw HTTPTransportError.connectionFailed(method: method, url: shownURL, attempts: attempt, reason: failure.text)
                    }
                } else if attempt >= policy.maxAttempts {
                    throw HTTPTransportError.connectionFailed(method: method, url: shownURL, attempts: attempt, reason: failure.text)
                }
                reason = failure.text
            }
            let delay = serverWait ?? connectWait ?? policy.backoff(afterAttempt: attempt)
            onEvent(.retrying(
                method: request.method.rawValue, url: shownURL, attempt: attempt + 1,
                maxAttempts: policy.maxAttempts, reason: reason, delay: delay))
            try await policy.sleep(delay)
        }
    }

    // MARK: - Retry decisions

    enum RetryDecision: Equatable {
        case done
        /// Retry; `wait` is what the server asked for, nil to use the backoff.
        case retry(reason: String, wait: Double?)
    }

    /// Whether a response is worth retrying, and how long the server wants us to wait.
    func retryDecision(for response: HTTPResponse) -> RetryDecision {
        let status = response.status
        let retryAfter = response.header("retry-after").flatMap { Self.parseRetryAfter($0, now: now()) }
        let rateLimitWait: Double? = {
            guard response.header("x-ratelimit-remaining")?.trimmingCharacters(in: .whitespaces) == "0",
                  let reset = response.header("x-ratelimit-reset").flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            return max(0, reset - now().timeIntervalSince1970) + 1
        }()
        // GitLab's `RateLimit-Reset` (a Unix time) says when a 429's window ends.
        let resetWait: Double? = response.header("ratelimit-reset")
            .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .map { max(0, $0 - now().timeIntervalSince1970) + 1 }
        switch status {
        case 500...599:
            return .retry(reason: "\(status)", wait: retryAfter)
        case 429:
            return .retry(reason: "429 (rate limited)", wait: retryAfter ?? rateLimitWait ?? resetWait)
        case 403 where retryAfter != nil || rateLimitWait != nil:
            return .retry(reason: "403 (rate limited)", wait: retryAfter ?? rateLimitWait)
        default:
            return .done
        }
    }

    /// Parses `Retry-After` as delta seconds or an HTTP date; nil when it is neither.
    static func parseRetryAfter(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// The host of an absolute URL as written (between `://` and the path, without user and
    /// port): `URLComponents`' host getters would encode or decode an international name
    /// through ICU, whose data then stays mapped into the process.
    static func hostAsWritten(_ url: String) -> Substring {
        guard let start = url.firstRange(of: "://") else { return "" }
        let authority = url[start.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        if hostAndPort.hasPrefix("[") { return hostAndPort.prefix { $0 != "]" }.dropFirst() }
        return hostAndPort.prefix { $0 != ":" }
    }

    /// The size of a regular file.
    /// - Throws: `HTTPTransportError.fileUnreadable` when it is missing, a folder or unreadable.
    static func regularFileSize(_ path: String) throws -> Int64 {
        // lstat, as FileManager's attributes: a symbolic link is not a regular file. One call
        // each, not FileManager's dictionary (with the extended attributes it lists): every part
        // of an upload asks.
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw HTTPTransportError.fileUnreadable(path: path, reason: "the file does not exist or cannot be read")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw HTTPTransportError.fileUnreadable(path: path, reason: "not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw HTTPTransportError.fileUnreadable(path: path, reason: "permission denied")
        }
        return Int64(info.st_size)
    }
}
