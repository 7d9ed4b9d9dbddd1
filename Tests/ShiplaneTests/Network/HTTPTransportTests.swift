import Foundation
import Testing
@testable import Shiplane

@Suite("HTTP transport", .offThePool)
struct HTTPTransportTests {
    private func repoRequest(_ github: FakeGitHub, timeout: Double = 30) -> HTTPRequest {
        HTTPRequest(method: .get, url: github.baseURL + "/repos/acme/rocket",
                    headers: [("Authorization", "Bearer \(github.token)")], timeout: timeout)
    }

    @Test func retriesA502ThenSucceeds() async throws {
        try await withFakeGitHub { github in
            github.failNext(2, path: "/repos/acme/rocket")
            try await withTransport { transport, recorder in
                let response = try await transport.send(repoRequest(github))
                #expect(response.status == 200)
                #expect(github.log.count == 3)
                #expect(recorder.sleeps == [0.5, 1.0])
                let descriptions = recorder.events.map(\.description)
                #expect(descriptions.first?.contains("attempt 2 of 4 after 502, waiting 0.5 s") == true)
            }
        }
    }

    @Test(arguments: [404, 422, 400, 401])
    func neverRetriesOtherClientErrors(status: Int) async throws {
        try await withFakeGitHub { github in
            github.failNext(1, path: "/repos/acme/rocket", status: status, body: "{}", contentType: "application/json")
            try await withTransport { transport, recorder in
                let response = try await transport.send(repoRequest(github))
                #expect(response.status == status)
                #expect(github.log.count == 1)
                #expect(recorder.sleeps.isEmpty)
            }
        }
    }

    @Test func honoursRetryAfterSecondsOn429() async throws {
        try await withFakeGitHub { github in
            github.failNext(1, path: "/repos/acme/rocket", status: 429, headers: ["Retry-After": "7"], body: "slow down", contentType: "text/plain")
            try await withTransport { transport, recorder in
                let response = try await transport.send(repoRequest(github))
                #expect(response.status == 200)
                #expect(recorder.sleeps == [7])
            }
        }
    }

    @Test func honoursRetryAfterAsAnHTTPDate() async throws {
        let now = Date(timeIntervalSince1970: 1_445_412_450)  // Wed, 21 Oct 2015 07:27:30 GMT
        try await withFakeGitHub { github in
            github.failNext(1, path: "/repos/acme/rocket", status: 503, headers: ["Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"])
            try await withTransport(now: { now }) { transport, recorder in
                _ = try await transport.send(repoRequest(github))
                #expect(recorder.sleeps == [30])
            }
        }
    }

    @Test func waitsForGitHubSecondaryRateLimitReset() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        try await withFakeGitHub { github in
            github.failNext(1, path: "/repos/acme/rocket", status: 403,
                            headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000020"],
                            body: #"{"message":"API rate limit exceeded"}"#, contentType: "application/json")
            try await withTransport(now: { now }) { transport, recorder in
                let response = try await transport.send(repoRequest(github))
                #expect(response.status == 200)
                #expect(recorder.sleeps == [21])
            }
        }
    }

    @Test func failsClearlyWhenTheRateLimitWaitIsTooLong() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        try await withFakeGitHub { github in
            github.failNext(1, path: "/repos/acme/rocket", status: 403,
                            headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700003600"],
                            body: "{}", contentType: "application/json")
            try await withTransport(maxServerWait: 60, now: { now }) { transport, recorder in
                await #expect {
                    _ = try await transport.send(repoRequest(github))
                } throws: { error in
                    guard case .waitTooLong(_, _, 403, let wait, 60)? = error as? HTTPTransportError else { return false }
                    return wait > 3000 && (error as? HTTPTransportError)?.message.contains("rate limited") == true
                }
                #expect(recorder.sleeps.isEmpty)
                #expect(github.log.count == 1)
            }
        }
    }

    @Test func givesUpAfterMaxAttemptsOnPersistent5xx() async throws {
        try await withFakeGitHub { github in
            github.failNext(10, path: "/repos/acme/rocket", status: 503)
            try await withTransport(maxAttempts: 3) { transport, recorder in
                await #expect {
                    _ = try await transport.send(repoRequest(github))
                } throws: { error in
                    guard case .retriesExhausted(_, _, 3, 503, let contentType, let snippet)? = error as? HTTPTransportError else { return false }
                    return contentType == "text/html" && snippet.contains("502 Bad Gateway")
                }
                #expect(github.log.count == 3)
                #expect(recorder.sleeps.count == 2)
            }
        }
    }

    @Test func retriesAfterAResponseSlowerThanTheTimeout() async throws {
        try await withFakeGitHub { github in
            github.inject(.init(method: "GET", pathContains: "/repos/acme/rocket", remaining: 1, action: .delay(seconds: 2)))
            try await withTransport { transport, recorder in
                let response = try await transport.send(repoRequest(github, timeout: 0.4))
                #expect(response.status == 200)
                #expect(recorder.sleeps.count == 1)
                #expect(recorder.events.first?.description.contains("no complete response within 0.4 s") == true, "\(recorder.events)")
            }
        }
    }

    @Test func connectionRefusedIsRetriedThenReported() async throws {
        try await withTransport(maxAttempts: 2) { transport, recorder in
            await #expect {
                _ = try await transport.send(HTTPRequest(method: .get, url: "http://127.0.0.1:1/nothing", timeout: 2))
            } throws: { error in
                guard case .connectionFailed(_, _, 2, _)? = error as? HTTPTransportError else { return false }
                return true
            }
            #expect(recorder.sleeps.count == 1)
        }
    }

    @Test func rejectsURLsWithoutHTTPSchemeOrHost() async throws {
        try await withTransport { transport, _ in
            for url in ["ftp://example.com/x", "not a url", "http:///path"] {
                await #expect(throws: HTTPTransportError.self) { _ = try await transport.send(HTTPRequest(method: .get, url: url)) }
            }
        }
    }

    @Test func backoffIsExponentialCappedAndJittered() {
        let top = RetryPolicy(baseDelay: 0.5, maxDelay: 3, random: { $0.upperBound }, sleep: { _ in })
        #expect((1...5).map(top.backoff(afterAttempt:)) == [0.5, 1, 2, 3, 3])
        let bottom = RetryPolicy(baseDelay: 0.5, maxDelay: 3, random: { $0.lowerBound }, sleep: { _ in })
        #expect(bottom.backoff(afterAttempt: 4) == 0)
        let middle = RetryPolicy(baseDelay: 1, maxDelay: 100, random: { ($0.lowerBound + $0.upperBound) / 2 }, sleep: { _ in })
        #expect(middle.backoff(afterAttempt: 3) == 2)
    }

    @Test func parsesRetryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_445_412_450)
        #expect(HTTPTransport.parseRetryAfter("120", now: now) == 120)
        #expect(HTTPTransport.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == 30)
        #expect(HTTPTransport.parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)
        #expect(HTTPTransport.parseRetryAfter("soon", now: now) == nil)
    }
}

@Suite("HTTP timeouts: which one fired, and requests that may not be repeated", .serialized, .offThePool)
struct HTTPTimeoutTests {
    private func transport(readTimeout: Double, connectTimeout: Double = 10) -> HTTPTransport {
        HTTPTransport(
            sender: LiveHTTPClient(),
            retryPolicy: RetryPolicy(maxAttempts: 5, baseDelay: 0, connectTimeout: connectTimeout, readTimeout: readTimeout, sleep: { _ in })
        )
    }

    @Test func aSilentServerFailsAGetAfterOneRetrySayingNoResponse() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let started = Date()
        await #expect {
            _ = try await transport(readTimeout: 0.5).send(HTTPRequest(method: .get, url: server.url + "/status"))
        } throws: { error in
            guard case .noResponse(_, _, let attempts, let reason)? = error as? HTTPTransportError else { return false }
            return attempts == 2 && reason == "no response within 0.5 s"
        }
        #expect(server.requests == ["GET /status HTTP/1.1", "GET /status HTTP/1.1"], "sent once, then once more: not five times")
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func aPostWhoseAnswerIsLostIsNotSentAgain() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        await #expect {
            _ = try await transport(readTimeout: 0.5).send(
                HTTPRequest(method: .post, url: server.url + "/hooks/release", body: .bytes(Array("{}".utf8))))
        } throws: { error in
            guard case .responseLost(_, _, let reason)? = error as? HTTPTransportError else { return false }
            return reason == "no response within 0.5 s"
                && (error as? HTTPTransportError)?.message.contains("not sent again") == true
        }
        #expect(server.requests == ["POST /hooks/release HTTP/1.1"])
    }

    @Test func aPostThatCouldNotConnectIsRetriedNothingWasSent() async throws {
        let url = "http://127.0.0.1:\(try closedLoopbackPort())"
        await #expect {
            // AsyncHTTPClient keeps trying a refused connection until the connect timeout.
            _ = try await transport(readTimeout: 0.5, connectTimeout: 0.5).send(HTTPRequest(method: .post, url: url + "/hooks", body: .bytes(Array("{}".utf8))))
        } throws: { error in
            guard case .connectionFailed(_, _, let attempts, _)? = error as? HTTPTransportError else { return false }
            return attempts == 5
        }
    }

    @Test func idempotenceFollowsTheMethod() {
        #expect(HTTPRequestMethod.get.isIdempotent && HTTPRequestMethod.put.isIdempotent && HTTPRequestMethod.delete.isIdempotent)
        #expect(!HTTPRequestMethod.post.isIdempotent && !HTTPRequestMethod.patch.isIdempotent)
    }
}
