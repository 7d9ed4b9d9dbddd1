import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import Shiplane

/// A server that is not there fails fast and says so in one sentence, with its host.
@Suite("Connection failures: fast, readable, the host shown", .offThePool)
struct ConnectFailureTests {
    /// Records the retry events and the waits of a transport (the waits are not spent).
    final class Events: @unchecked Sendable {
        // @unchecked: every field is touched under `lock`.
        private let lock = NSLock()
        private var retries: [String] = []
        private var waits: [Double] = []
        var retryDescriptions: [String] { lock.withLock { retries } }
        var sleeps: [Double] { lock.withLock { waits } }
        func record(_ event: HTTPEvent) { if case .retrying = event { lock.withLock { retries.append(event.description) } } }
        func sleep(_ seconds: Double) { lock.withLock { waits.append(seconds) } }
    }

    @Test func aClosedPortFailsWithinSecondsAfterShortWaitsSayingConnectionRefused() async throws {
        let port = try closedLoopbackPort()
        let events = Events()
        // The default policy, waits spent for real: what a lane run does.
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(), onEvent: { events.record($0) })
        let started = Date()
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .post, url: "http://127.0.0.1:\(port)/hook", body: .bytes(Array("{}".utf8))))
        } throws: { error in
            guard case .connectionFailed(_, _, let attempts, let reason)? = error as? HTTPTransportError else { return false }
            let message = (error as? HTTPTransportError)?.message ?? ""
            return attempts == 5 && reason == "connection refused by 127.0.0.1:\(port)"
                && message == "POST http://127.0.0.1:\(port)/hook failed: connection refused by 127.0.0.1:\(port) (5 attempts)"
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 15, "took \(elapsed) s (59 s before: five attempts of 10 s each)")
        #expect(events.retryDescriptions.count == 4, "\(events.retryDescriptions)")
        #expect(events.retryDescriptions.first?.contains("connection refused by 127.0.0.1:\(port)") == true, "\(events.retryDescriptions)")
    }

    @Test func connectWaitsStartShortDoubleAndStopWithinTheBudget() {
        let top = RetryPolicy(random: { $0.upperBound }, sleep: { _ in })
        #expect((1...5).map { top.connectBackoff(afterFailure: $0) } == [0.25, 0.5, 1, 2, nil])
        let many = RetryPolicy(maxAttempts: 20, random: { $0.upperBound }, sleep: { _ in })
        let waits = (1...20).compactMap { many.connectBackoff(afterFailure: $0) }
        #expect(waits.reduce(0, +) <= many.connectRetryBudget, "\(waits)")
        let none = RetryPolicy(baseDelay: 0, sleep: { _ in })
        #expect((1...4).map { none.connectBackoff(afterFailure: $0) } == [0, 0, 0, 0])
    }

    @Test func aClosedPortGivesUpWhenTheConnectBudgetIsSpentWhateverTheAttempts() async throws {
        let port = try closedLoopbackPort()
        let events = Events()
        let policy = RetryPolicy(maxAttempts: 20, random: { $0.upperBound }, sleep: { events.sleep($0) })
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: policy)
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .get, url: "http://127.0.0.1:\(port)/status"))
        } throws: { error in
            guard case .connectionFailed(_, _, let attempts, _)? = error as? HTTPTransportError else { return false }
            return attempts == 5
        }
        #expect(events.sleeps == [0.25, 0.5, 1, 2])
    }

    @Test func anUnknownHostIsNamed() async throws {
        let events = Events()
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(sleep: { events.sleep($0) }))
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .get, url: "https://example.invalid/status"))
        } throws: { error in
            let message = (error as? HTTPTransportError)?.message ?? "\(error)"
            // `.invalid` never resolves (RFC 6761); a resolver that cannot be reached says so instead.
            return message.contains("unknown host example.invalid") || message.contains("could not look up example.invalid")
        }
        #expect(events.sleeps.reduce(0, +) <= 5)
    }

    @Test(arguments: [
        (IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)") as any Error, "connection refused by 127.0.0.1:9", false),
        (IOError(errnoCode: ENETUNREACH, reason: "connect") as any Error, "cannot reach 127.0.0.1:9: the network is unreachable", false),
        (IOError(errnoCode: EHOSTUNREACH, reason: "connect") as any Error, "cannot reach 127.0.0.1:9: no route to the host", false),
        (ChannelError.connectTimeout(.seconds(10)) as any Error, "timed out connecting to 127.0.0.1:9 (no answer within 10 s)", true),
        (HTTPClientError.connectTimeout as any Error, "timed out connecting to 127.0.0.1:9 (no answer within 10 s)", true),
    ])
    func errorsThatMeanNoConnectionReadAsOneSentence(_ error: any Error, text: String, isTimeout: Bool) {
        var request = HTTPRequest(method: .get, url: "http://127.0.0.1:9/x")
        request.connectTimeout = 10
        let failure = HTTPTransport.classify(error, request: request)
        #expect(failure == AttemptFailure(text: text, isTimeout: isTimeout, mayHaveLanded: false))
        #expect(!failure.text.contains("errno") && !failure.text.contains("error set"))
    }

    @Test func lookupFailuresAndTargetsReadPlainly() {
        #expect(HTTPTransport.lookupFailureText(host: "example.invalid", code: EAI_NONAME, description: "Name or service not known") == "unknown host example.invalid")
        #expect(HTTPTransport.lookupFailureText(host: "example.com", code: EAI_AGAIN, description: "").hasPrefix("could not look up example.com"))
        #expect(HTTPTransport.target(of: "https://example.com/x").shown == "example.com:443")
        #expect(HTTPTransport.target(of: "http://example.com/x").shown == "example.com:80")
        #expect(HTTPTransport.target(of: "http://127.0.0.1:9/x").shown == "127.0.0.1:9")
    }

    @Test func aWebhookToAClosedPortShowsItsHostAndHidesItsPath() async throws {
        let port = try closedLoopbackPort()
        let url = "http://127.0.0.1:\(port)/hooks/T0AB12CD34/secretPathToken99"
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(baseDelay: 0, sleep: { _ in }))
        let notifier = try WebhookNotifier(url: url, transport: transport)
        await #expect {
            try await notifier.send(template: #"{"text": "hi"}"#, values: [:])
        } throws: { error in
            let text = allText(of: error)
            return text.contains("http://127.0.0.1:\(port)/***") && text.contains("connection refused by 127.0.0.1:\(port)")
                && !text.contains("secretPathToken99") && !text.contains("T0AB12CD34")
        }
    }
}
