import Foundation

/// How often and how long to retry a failed request: bounded attempts, exponential backoff with full jitter.
///
/// Randomness and sleeping are injected so tests can record the waits instead of spending them.
package struct RetryPolicy: Sendable {
    /// Total attempts including the first one; at least 1.
    package var maxAttempts: Int
    /// Backoff base in seconds: attempt n waits a random time in `0...min(maxDelay, baseDelay * 2^(n-1))`.
    package var baseDelay: Double
    /// Upper bound of one computed backoff, in seconds.
    package var maxDelay: Double
    /// Longest wait the server may ask for (Retry-After, x-ratelimit-reset); beyond it the request fails.
    package var maxServerWait: Double
    /// Seconds to wait for a connection (`SHIPLANE_HTTP_CONNECT_TIMEOUT`).
    package var connectTimeout: Double
    /// Seconds a server may stay silent once the request is sent (`SHIPLANE_HTTP_READ_TIMEOUT`).
    package var readTimeout: Double
    /// How often a request that got no response in time is sent again (idempotent ones only);
    /// also how often a connection that timed out is tried again.
    package var timeoutRetries: Int
    /// The most a request waits in all between attempts that could not connect at all (refused,
    /// unknown host, unreachable), in seconds. Those waits start at a quarter of `baseDelay` and
    /// double: such failures come back at once, and a server that is down now is rarely up a
    /// second later, so they are retried quickly and give up within a few seconds.
    package var connectRetryBudget: Double
    /// Returns a number in the given range; the live value is uniform random.
    package var random: @Sendable (ClosedRange<Double>) -> Double
    /// Waits the given seconds; the live value is `Task.sleep`.
    package var sleep: @Sendable (Double) async throws -> Void

    /// Creates a policy; the defaults suit GitHub and Slack.
    package init(
        maxAttempts: Int = 5,
        baseDelay: Double = 1,
        maxDelay: Double = 30,
        maxServerWait: Double = 120,
        connectTimeout: Double = 10,
        readTimeout: Double = 30,
        timeoutRetries: Int = 1,
        connectRetryBudget: Double = 5,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) },
        sleep: @escaping @Sendable (Double) async throws -> Void = RetryPolicy.liveSleep
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxServerWait = max(0, maxServerWait)
        self.connectTimeout = max(0.001, connectTimeout)
        self.readTimeout = max(0.001, readTimeout)
        self.timeoutRetries = max(0, timeoutRetries)
        self.connectRetryBudget = max(0, connectRetryBudget)
        self.random = random
        self.sleep = sleep
    }

    /// The default policy with `SHIPLANE_HTTP_ATTEMPTS`, `SHIPLANE_HTTP_RETRY_DELAY`,
    /// `SHIPLANE_HTTP_CONNECT_TIMEOUT` and `SHIPLANE_HTTP_READ_TIMEOUT` (seconds) applied, as the
    /// command line reads them once per run.
    package init(environment: LaneEnvironment) {
        self.init(
            maxAttempts: Int(environment["SHIPLANE_HTTP_ATTEMPTS"] ?? "") ?? 5,
            baseDelay: Double(environment["SHIPLANE_HTTP_RETRY_DELAY"] ?? "") ?? 1,
            connectTimeout: Double(environment["SHIPLANE_HTTP_CONNECT_TIMEOUT"] ?? "") ?? 10,
            readTimeout: Double(environment["SHIPLANE_HTTP_READ_TIMEOUT"] ?? "") ?? 30
        )
    }

    /// A policy that sends each request once.
    package static var noRetries: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// Sleeps for real, honouring task cancellation.
    package static let liveSleep: @Sendable (Double) async throws -> Void = { seconds in
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    /// The longest wait after the `failure`-th attempt in a row that could not connect: a
    /// quarter of `baseDelay`, doubling (0.25, 0.5, 1, 2 s by default).
    package func connectBackoffCeiling(afterFailure failure: Int) -> Double {
        min(maxDelay, baseDelay / 4 * pow(2, Double(max(0, min(failure - 1, 30)))))
    }

    /// The wait after the `failure`-th attempt that could not connect (full jitter below the
    /// ceiling), or nil when waiting it would take the waits for connecting past
    /// `connectRetryBudget`: then the request fails.
    package func connectBackoff(afterFailure failure: Int) -> Double? {
        let spent = (1...max(1, failure)).map(connectBackoffCeiling(afterFailure:)).reduce(0, +)
        guard spent <= connectRetryBudget else { return nil }
        let ceiling = connectBackoffCeiling(afterFailure: failure)
        guard ceiling > 0 else { return 0 }
        return min(ceiling, max(0, random(0...ceiling)))
    }

    /// The backoff before attempt `attempt + 1`, after `attempt` failed attempts (full jitter).
    package func backoff(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        let ceiling = min(maxDelay, baseDelay * pow(2, exponent))
        guard ceiling > 0 else { return 0 }
        return min(ceiling, max(0, random(0...ceiling)))
    }
}
