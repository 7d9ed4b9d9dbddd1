import Foundation

/// What happened to one registered undo when a run rolled back.
public struct RollbackEntry: Codable, Sendable, Equatable {
    public var description: String
    public var undone: Bool
    /// Why it could not be undone, when it could not.
    public var error: String?
}

/// The undo log of a run: every side effect registers how to reverse it.
///
/// On failure or interrupt the runner undoes the entries in reverse order. An undo checks that
/// the world is still as the action left it (HEAD still the created commit, the tag still where
/// it was put) and refuses otherwise, so rollback never destroys someone else's work.
public final class Journal: @unchecked Sendable {
    private struct Entry {
        var description: String
        var undo: () async throws -> Void
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    public init() {}

    /// Records how to reverse a side effect that just happened.
    public func register(_ description: String, undo: @escaping () async throws -> Void) {
        lock.lock()
        entries.append(Entry(description: description, undo: undo))
        lock.unlock()
    }

    /// The number of side effects that can still be undone.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    /// The descriptions of the registered undos, oldest first.
    public var descriptions: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.description)
    }

    /// Forgets every entry: the run completed and its effects stay.
    public func commit() {
        lock.lock()
        entries.removeAll()
        lock.unlock()
    }

    /// Undoes every entry, newest first; keeps going past failures and reports each outcome.
    public func rollback() async -> [RollbackEntry] {
        let pending = lock.withLock {
            let taken = entries
            entries.removeAll()
            return taken
        }
        var results: [RollbackEntry] = []
        for entry in pending.reversed() {
            do {
                try await entry.undo()
                results.append(RollbackEntry(description: entry.description, undone: true, error: nil))
            } catch {
                results.append(RollbackEntry(description: entry.description, undone: false, error: describe(error)))
            }
        }
        return results
    }
}

/// The one-line text of any error: a `ReportableError`'s message, else its description.
public func describe(_ error: any Error) -> String {
    if let reportable = error as? any ReportableError { return reportable.message }
    if let localized = error as? LocalizedError, let text = localized.errorDescription { return text }
    return String(describing: error)
}
