import Foundation
import Hummingbird
import NIOCore

/// Faults a stand-in server (`FakeGitHub` and the others) applies to the next matching requests:
/// an error status with headers (a 5xx, a 429 with rate-limit headers), a delay, a reset
/// connection, an answer lost after the server stored the object, or a late answer.
final class StandInFaults: @unchecked Sendable {
    // @unchecked: `faults` is only touched under `lock`.
    private let lock = NSLock()
    private var faults: [FakeGitHub.Fault] = []

    func inject(_ fault: FakeGitHub.Fault) { lock.withLock { faults.append(fault) } }

    private func take(method: String, path: String) -> FakeGitHub.Fault.Action? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { ($0.method == nil || $0.method == method) && path.contains($0.pathContains) && ($0.exactPath == nil || $0.exactPath == path) && $0.remaining > 0 && ($0.when?() ?? true) })
            else { return nil }
            faults[index].remaining -= 1
            return faults[index].action
        }
    }

    /// Runs `route` under the fault that matches, if any.
    func apply(_ request: Request, _ context: FakeContext, method: String, target: String,
               route: () async throws -> Response) async throws -> Response {
        var dropResponse = false
        var answerDelay = 0.0
        var answerAfter: (@Sendable () async -> Void)?
        if let fault = take(method: method, path: target) {
            switch fault {
            case let .status(status, headers, body, contentType):
                _ = try await request.readBody(keeping: 0)
                return Reply.text(status, body, contentType: contentType, headers: headers)
            case .delay(let seconds):
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            case .dropResponse:
                dropResponse = true
            case .answerLate(let seconds):
                answerDelay = seconds
            case .answerAfter(let wait):
                answerAfter = wait
            case .reset:
                for try await chunk in request.body where chunk.readableBytes > 0 { break }
                try await context.channel.close()
                throw CancellationError()
            }
        }
        let response = try await route()
        if answerDelay > 0 { try await Task.sleep(nanoseconds: UInt64(answerDelay * 1_000_000_000)) }
        if let answerAfter { await answerAfter() }
        if dropResponse {
            try await context.channel.close()
            throw CancellationError()
        }
        return response
    }
}

extension Request {
    /// The path's segments as sent, each percent-decoded on its own (so `acme%2Frocket` stays one
    /// segment, as GitLab reads it), and the query.
    var rawSegments: (segments: [String], query: [String: String]) {
        let text = uri.description
        let pathPart = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        let segments = pathPart.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        return (segments, pathAndQuery.query)
    }
}
