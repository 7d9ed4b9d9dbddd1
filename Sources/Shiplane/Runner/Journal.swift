import Foundation

/// What happened to one registered undo when a run rolled back.
public struct RollbackEntry: Codable, Sendable, Equatable {
    /// What the undo does, as registered (`delete tag v1.2.0`).
    public var description: String
    /// True when the undo succeeded.
    public var undone: Bool
    /// Why it could not be undone, when it could not.
    public var error: String?
    /// True when it stays by design (a sent message, files on someone's server), not because its
    /// undo failed; nil otherwise.
    public var stays: Bool?

    /// Creates the outcome of one undo.
    public init(description: String, undone: Bool, error: String?, stays: Bool = false) {
        self.description = description
        self.undone = undone
        self.error = error
        self.stays = stays ? true : nil
    }

    /// Undone, or staying by design: nothing is left for another rollback to try.
    public var isSettled: Bool { undone || stays == true }
}

/// Thrown by an undo whose effect cannot be taken back by design — a message sent, files put on a
/// server that owns them: rollback reports it as staying, not as an undo that failed.
public struct EffectStays: ReportableError {
    /// What stays, and why.
    public var message: String

    /// Says what stays and why.
    public init(_ message: String) { self.message = message }
}

/// The undo log of a run: every side effect registers how to reverse it.
///
/// On failure or interrupt the runner undoes the entries in reverse order. An undo checks that
/// the world is still as the action left it (HEAD still the created commit, the tag still where
/// it was put) and refuses otherwise, so rollback never destroys someone else's work. When the run
/// is recorded on disk, each entry is tied to its recorded effect, and rollback writes down how
/// each one ended, so a rollback cut short can be finished by `shiplane rollback`.
public final class Journal: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`; `recorder` is set before the run starts.
    private struct Entry {
        var description: String
        var effectIndex: Int?
        var undo: () async throws -> Void
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    /// The run's on-disk record, when it has one.
    public private(set) var recorder: RunRecorder?

    /// Creates an empty journal, with no record on disk.
    public init() {}

    /// Records how to reverse a side effect that just happened (`effectIndex`: its recorded effect).
    public func register(_ description: String, undo: @escaping () async throws -> Void) {
        register(description, effectIndex: nil, undo: undo)
    }

    func register(_ description: String, effectIndex: Int?, undo: @escaping () async throws -> Void) {
        lock.lock()
        entries.append(Entry(description: description, effectIndex: effectIndex, undo: undo))
        lock.unlock()
    }

    /// Ties the journal to the run's on-disk record. When the record is a resumed run's, the
    /// effects its earlier process left unsettled join the journal, undone from their data.
    /// - Throws: when what a step cut short left behind cannot be undone (the run must not resume).
    public func record(with recorder: RunRecorder, workTree: String, environment: LaneEnvironment) async throws {
        self.recorder = recorder
        let undo = EffectUndo(store: recorder.store, workTree: workTree, environment: environment)
        try await recorder.undoUnfinishedSteps(undo)
        let pending = recorder.pendingEffects
        if !pending.isEmpty { adoptRecordedEffects(pending, undo: undo) }
    }

    /// Adds the effects an earlier process recorded and left unsettled, undone from their data;
    /// used when a run resumes, so a failure before the point of no return still undoes them.
    func adoptRecordedEffects(_ effects: [(index: Int, entry: RecordedEffect)], undo: EffectUndo) {
        lock.withLock {
            let adopted = effects.map { effect in
                Entry(description: effect.entry.description, effectIndex: effect.index, undo: { try await undo.undo(effect.entry) })
            }
            entries.insert(contentsOf: adopted, at: 0)
        }
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
                if let index = entry.effectIndex { recorder?.resolved(index, undone: true, note: nil) }
            } catch let stays as EffectStays {
                results.append(RollbackEntry(description: entry.description, undone: false, error: stays.message, stays: true))
                if let index = entry.effectIndex { recorder?.resolved(index, undone: false, note: stays.message) }
            } catch {
                results.append(RollbackEntry(description: entry.description, undone: false, error: describe(error)))
                if let index = entry.effectIndex { recorder?.resolved(index, undone: false, note: describe(error)) }
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
