import AsyncHTTPClient
import Foundation
@testable import Shiplane

/// Records what the transport would have waited and the events it emitted, instead of sleeping.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var sleepsStorage: [Double] = []
    private var eventsStorage: [HTTPEvent] = []

    var sleeps: [Double] { lock.withLock { sleepsStorage } }
    var events: [HTTPEvent] { lock.withLock { eventsStorage } }

    func sleep(_ seconds: Double) { lock.withLock { sleepsStorage.append(seconds) } }
    func record(_ event: HTTPEvent) { lock.withLock { eventsStorage.append(event) } }
}

/// Runs `body` with a transport over a fresh `HTTPClient` (shut down afterwards) whose sleeps are recorded.
@discardableResult
func withTransport<T>(
    maxAttempts: Int = 4, maxServerWait: Double = 120, now: @escaping @Sendable () -> Date = { Date() },
    _ body: (HTTPTransport, Recorder) async throws -> T
) async throws -> T {
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let recorder = Recorder()
    let policy = RetryPolicy(maxAttempts: maxAttempts, baseDelay: 0.5, maxDelay: 8, maxServerWait: maxServerWait,
                             random: { $0.upperBound }, sleep: { recorder.sleep($0) })
    let transport = HTTPTransport(client: client, retryPolicy: policy, now: now, onEvent: { recorder.record($0) })
    do {
        let result = try await body(transport, recorder)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// A fresh temporary folder, removed after `body`.
@discardableResult
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("shiplane-net-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Writes `text` to `folder/name` and returns the path.
@discardableResult
func writeFile(_ folder: URL, _ name: String, _ text: String) throws -> String {
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// Runs `body` with a started fake GitHub, stopped afterwards.
@discardableResult
func withFakeGitHub<T>(_ body: (FakeGitHub) async throws -> T) async throws -> T {
    let github = FakeGitHub()
    try await github.start()
    defer { github.stop() }
    return try await body(github)
}
