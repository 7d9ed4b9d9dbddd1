import Foundation

/// Undoes a recorded run from its data, newest effect first, in any process.
///
/// Before the point of no return everything goes. Past it, what was there when the run passed
/// it stays (others may have it: the pushed commit and tag, the files in them), and what came
/// after is undone where it is local (a file written after the push).
package struct RecordedRollback: Sendable {
    let store: RunStore
    let workTree: String
    let environment: LaneEnvironment
    /// Undoes lane code's own effect kinds in the lane program that declares them.
    let undoElsewhere: UndoElsewhere?

    /// Creates a rollback over the run folder `store` of the work tree `workTree`; `environment` gives
    /// a network undo its token; `undoElsewhere` undoes the effects of kinds this process does not know.
    package init(store: RunStore, workTree: String, environment: LaneEnvironment = LaneEnvironment(variables: [:]), undoElsewhere: UndoElsewhere? = nil) {
        self.store = store
        self.workTree = workTree
        self.environment = environment
        self.undoElsewhere = undoElsewhere
    }

    /// What a rollback did: the record as it left it, and what became of each unsettled effect,
    /// newest first (undone; staying, by design; or kept because its undo failed).
    package struct Outcome: Sendable {
        /// The record with each effect's new status (`undone` or `kept`).
        package var record: RunRecord
        /// Each effect's result, and whether it stays by design (published, or undoable only by
        /// the process that made it) rather than because its undo failed.
        var results: [(entry: RollbackEntry, staysByDesign: Bool)] = []
        /// Why the rollback went further than the record said it could: the push that passed its
        /// point of no return never landed (`UnlandedPush`).
        package var pointTakenBack: UnlandedPush?

        /// What became of each unsettled effect, newest first.
        package var entries: [RollbackEntry] { results.map(\.entry) }
        /// The effects that stay by design.
        package var stays: [String] { results.filter(\.staysByDesign).map(\.entry.description) }
        /// The effects whose undo failed, with why: the record keeps them for another try.
        package var failed: [String] {
            results.filter { !$0.entry.undone && !$0.staysByDesign }.map { "\($0.entry.description): \($0.entry.error ?? "unknown")" }
        }

        /// One line per effect, for the terminal.
        package var lines: [String] {
            (pointTakenBack.map { ["not past the point of no return after all: " + $0.line] } ?? []) + results.map { result in
                if result.entry.undone { return "undone: \(result.entry.description)" }
                if result.staysByDesign { return "stays: \(result.entry.error ?? result.entry.description)" }
                return "kept: \(result.entry.description): \(result.entry.error ?? "unknown")"
            }
        }
    }

    /// Undoes the unsettled effects of `record`, newest first, and says what became of each:
    /// through the same journal, and each effect's same undo, as a rollback in the run.
    ///
    /// An undo that fails is reported in the outcome, not thrown.
    /// `planOnly`: a dry run, which undoes and writes nothing: the outcome says which effects
    /// the same rules would undo (as undone) and which stay.
    package func run(_ record: RunRecord, planOnly: Bool = false) async throws -> Outcome {
        // A dry run writes nothing down, so it does not look whether the push was cut short: it
        // takes the record's point of no return as it stands.
        let (record, takenBack): (RunRecord, UnlandedPush?) = planOnly ? (record, nil) : Self.takingBackUnlandedPush(record, workTree: workTree, environment: environment)
        var outcome = Outcome(record: record)
        outcome.pointTakenBack = takenBack
        var context = EffectContext.live(store: store, workTree: workTree, environment: environment)
        context.undoElsewhere = undoElsewhere
        let journal = Journal(context: context)
        journal.adopt(record.effects.enumerated().filter { $0.element.status != .undone }.map { ($0.offset, $0.element) })
        for (index, entry) in await journal.rollback(pointOfNoReturn: record.pointOfNoReturn, planOnly: planOnly) {
            outcome.results.append((entry, entry.stays == true))
            guard !planOnly, let index else { continue }
            // A failed undo leaves its effect unsettled, for another try.
            if entry.isSettled { outcome.record.effects[index].status = entry.undone ? .undone : .kept }
            outcome.record.effects[index].note = entry.error
        }
        return outcome
    }

    /// `record` with its point of no return taken back when the push that passed it was cut short
    /// and is proved never to have landed (`UnlandedPush`), and the proof; else `record` as it is.
    /// The one check before a recorded run is settled past its point: `run` makes it, and so does
    /// the supervisor after its lane program died (a run killed while origin held its push, when
    /// another run released meanwhile), so neither leaves the run for a resume that can only fail.
    package static func takingBackUnlandedPush(
        _ record: RunRecord, workTree: String, environment: LaneEnvironment
    ) -> (record: RunRecord, takenBack: UnlandedPush?) {
        guard let noReturn = record.pointOfNoReturn, let index = record.effects.lastIndex(where: {
            $0.status == .intended && $0.description == noReturn && $0.effect.kind == RefsPushed.kind
        }), let pushed = record.effects[index].effect.as(RefsPushed.self),
           let unlanded = UnlandedPush.look(pushed, workTree: workTree, environment: environment) else { return (record, nil) }
        let warnings = [
            PushMayStillLand.remember(unlanded, runID: record.id, workTree: workTree),
            TakenBackRecord.remember(runID: record.id, remote: unlanded.remote, record: RemoteRunRecord.reference(scope: record.packageScope), workTree: workTree),
        ].compactMap { $0 }
        var record = record
        record.effects[index].status = .undone
        record.effects[index].note = (["\(pushed.remote) never accepted it: \(pushed.remote) holds other objects"] + warnings).joined(separator: "; ")
        record.pointOfNoReturn = nil
        return (record, unlanded)
    }
}
