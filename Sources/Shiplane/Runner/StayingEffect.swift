import Foundation

extension StepContext {
    /// Runs `body`, which makes `effect` happen, with the effect written down before it starts: a
    /// message sent or files uploaded, which no rollback can take back (their undo says they
    /// stay). An error for which `nothingHappened` is true (a server that refused the one request)
    /// marks it as not done; any other leaves it as maybe done.
    func perform<E: Effect>(
        _ effect: E, _ description: String, nothingHappened: (any Error) -> Bool = { _ in false },
        _ body: () async throws -> Void
    ) async throws {
        let handle = try record(effect, description)
        do {
            try await body()
        } catch {
            if nothingHappened(error) { didNotHappen(handle, describe(error)) }
            throw error
        }
        done(handle)
    }
}
