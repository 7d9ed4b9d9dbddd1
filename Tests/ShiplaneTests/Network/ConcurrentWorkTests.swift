import Foundation
import Testing
@testable import Shiplane

private actor Gauge {
    var current = 0
    var peak = 0
    func enter() { current += 1; peak = max(peak, current) }
    func leave() { current -= 1 }
}

@Suite("Concurrent work", .offThePool)
struct ConcurrentWorkTests {
    @Test func aggregatesEveryFailureAndRespectsTheLimit() async throws {
        let gauge = Gauge()
        await #expect {
            _ = try await performConcurrently(Array(0..<9), limit: 3, what: "uploads") { item -> Int in
                await gauge.enter()
                try await Task.sleep(nanoseconds: 20_000_000)
                await gauge.leave()
                if item % 3 == 0 { throw ShiplaneError("item \(item) failed") }
                return item
            }
        } throws: { error in
            guard let aggregate = error as? AggregateError else { return false }
            let messages = aggregate.underlyingErrors.compactMap { ($0 as? ShiplaneError)?.message }
            return aggregate.message == "3 of 9 uploads failed"
                && messages == ["item 0 failed", "item 3 failed", "item 6 failed"]
        }
        #expect(await gauge.peak == 3)
    }

    @Test func returnsResultsInInputOrder() async throws {
        let results = try await performConcurrently([5, 1, 3], limit: 2) { value -> Int in
            try await Task.sleep(nanoseconds: UInt64(value) * 5_000_000)
            return value * 10
        }
        #expect(results == [50, 10, 30])
    }
}
