import Shiplane
import Testing

/// The threads test bodies run on: many tests wait for a `shiplane` process synchronously
/// (`runProgram`), and on Swift's cooperative pool (two threads here) two such waits would stop
/// every stand-in server of the process, whose handlers need that pool.
@available(macOS 15.0, *)
enum TestBodyThreads {
    static let pool = BlockingThreadPool(name: "test-body")
}

/// Runs each test of a suite on `TestBodyThreads.pool`, so the suite runs in parallel with the others
/// without starving the cooperative pool. Every suite carries it (`SuiteTraitTests` checks).
struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if #available(macOS 15.0, *) {
            try await withTaskExecutorPreference(TestBodyThreads.pool) { try await function() }
        } else {
            try await function()
        }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the suite's tests on threads of their own (see `OffThePool`).
    static var offThePool: Self { OffThePool() }
}
