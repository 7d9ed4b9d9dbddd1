import Shiplane
import Testing

/// The threads test bodies run on: many tests wait for a `shiplane` process synchronously
/// (`runProgram`), and on Swift's cooperative pool (two threads here) two such waits would stop
/// every stand-in server of the process, whose handlers need that pool.
let testBodyThreads = BlockingThreadPool(name: "test-body")

/// Runs each test of a suite on `testBodyThreads`, so the suite runs in parallel with the others
/// without starving the cooperative pool. Every suite carries it (`SuiteTraitTests` checks).
struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(testBodyThreads) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the suite's tests on threads of their own (see `OffThePool`).
    static var offThePool: Self { OffThePool() }
}
