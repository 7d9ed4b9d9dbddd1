import Foundation

/// Undoes a recorded run from its data, newest effect first, in any process.
///
/// Before the point of no return everything goes. Past it, what was there when the run passed
/// it stays (others may have it: the pushed commit and tag, the files in them), and what came
/// after is undone where it is local (a file written after the push).
public struct RecordedRollback: Sendable {
    let store: RunStore
    let workTree: String
    let environment: LaneEnvironment

    /// Creates a rollback over the run folder `store` of the work tree `workTree`; `environment` gives
    /// a network undo its token.
    public init(store: RunStore, workTree: String, environment: LaneEnvironment = LaneEnvironment(variables: [:])) {
        self.store = store
        self.workTree = workTree
        self.environment = environment
    }

    /// What a rollback did: the record as it left it, and what became of each unsettled effect,
    /// newest first (undone; staying, by design; or kept because its undo failed).
    public struct Outcome: Sendable {
        /// The record with each effect's new status (`undone` or `kept`).
        public var record: RunRecord
        /// Each effect's result, and whether it stays by design (published, or undoable only by
        /// the process that made it) rather than because its undo failed.
        var results: [(entry: RollbackEntry, staysByDesign: Bool)] = []

        /// What became of each unsettled effect, newest first.
        public var entries: [RollbackEntry] { results.map(\.entry) }
        /// The effects that stay by design.
        public var stays: [String] { results.filter(\.staysByDesign).map(\.entry.description) }
        /// The effects whose undo failed, with why: the record keeps them for another try.
        public var failed: [String] {
            results.filter { !$0.entry.undone && !$0.staysByDesign }.map { "\($0.entry.description): \($0.entry.error ?? "unknown")" }
        }

        /// One line per effect, for the terminal.
        public var lines: [String] {
            results.map { result in
                if result.entry.undone { return "undone: \(result.entry.description)" }
                if result.staysByDesign { return "stays: \(result.entry.error ?? result.entry.description)" }
                return "kept: \(result.entry.description): \(result.entry.error ?? "unknown")"
            }
        }
    }

    /// Undoes the unsettled effects of `record`, newest first, and says what became of each.
    ///
    /// An undo that fails is reported in the outcome, not thrown.
    public func run(_ record: RunRecord) async throws -> Outcome {
        var outcome = Outcome(record: record)
        let undo = EffectUndo(store: store, workTree: workTree, environment: environment)
        func stay(_ index: Int, _ why: String) {
            outcome.results.append((RollbackEntry(description: record.effects[index].description, undone: false, error: why), true))
            outcome.record.effects[index].status = .kept
        }
        for index in record.effects.indices.reversed() {
            let entry = record.effects[index]
            guard entry.status == .intended || entry.status == .done else { continue }
            if let noReturn = record.pointOfNoReturn {
                if !entry.afterPointOfNoReturn {
                    stay(index, "\(Self.describe(entry)) (done before the point of no return: \(noReturn))")
                    continue
                }
                if case .githubRelease(_, _, _, let tag) = entry.effect {
                    // Past the point of no return a release may be public: it stays, for resume to finish.
                    stay(index, "the GitHub release \(tag) (past the point of no return: `shiplane resume` finishes it)")
                    continue
                }
            }
            do {
                try await undo.undo(entry)
                outcome.results.append((RollbackEntry(description: entry.description, undone: true, error: nil), false))
                outcome.record.effects[index].status = .undone
            } catch {
                let reason = Shiplane.describe(error)
                switch entry.effect {
                case .push, .external: stay(index, reason)
                default: outcome.results.append((RollbackEntry(description: entry.description, undone: false, error: reason), false))
                }
            }
        }
        return outcome
    }

    static func describe(_ entry: RecordedEffect) -> String {
        switch entry.effect {
        case .push(let remote, let refs): "pushed \(refs.joined(separator: ", ")) to \(remote)"
        case .commit(let branch, _, let message, let commit): "commit \(commit.map { String($0.prefix(7)) } ?? "") on \(branch): \(message)"
        case .tag(let name, let target, _, _): "tag \(name) → \(target.prefix(7))"
        case .file(let path, _, _): "the new \(path.split(separator: "/").last.map(String.init) ?? path)"
        default: entry.description
        }
    }
}
