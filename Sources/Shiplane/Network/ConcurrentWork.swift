import Foundation

/// Runs `operation` on every item with at most `limit` running at once and returns results in input order.
///
/// Every item runs even when some fail; all failures are thrown together as one `AggregateError`.
/// - Throws: `AggregateError` naming how many of the items failed, holding every failure.
package func performConcurrently<Item: Sendable, Output: Sendable>(
    _ items: [Item],
    limit: Int,
    what: String = "tasks",
    _ operation: @escaping @Sendable (Item) async throws -> Output
) async throws -> [Output] {
    let width = max(1, limit)
    let outcomes = await withTaskGroup(of: (Int, Result<Output, any Error>).self) { group in
        var results = [Result<Output, any Error>?](repeating: nil, count: items.count)
        var nextIndex = 0
        func addNext() {
            let index = nextIndex
            let item = items[index]
            nextIndex += 1
            group.addTask {
                do { return (index, .success(try await operation(item))) } catch { return (index, .failure(error)) }
            }
        }
        while nextIndex < min(width, items.count) { addNext() }
        for await (index, result) in group {
            results[index] = result
            if nextIndex < items.count { addNext() }
        }
        return results
    }
    var outputs: [Output] = []
    var failures: [any Error] = []
    for outcome in outcomes {
        switch outcome {
        case .success(let output)?: outputs.append(output)
        case .failure(let error)?: failures.append(error)
        case nil: failures.append(ShiplaneError("a concurrent task produced no result"))
        }
    }
    if !failures.isEmpty {
        throw AggregateError("\(failures.count) of \(items.count) \(what) failed", errors: failures)
    }
    return outputs
}
