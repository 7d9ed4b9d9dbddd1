import Foundation

/// What happened to one effect when a run rolled back.
public struct RollbackEntry: Codable, Sendable, Equatable {
    /// What the undo does (`delete tag v1.2.0`).
    public var description: String
    /// True when the undo succeeded.
    public var undone: Bool
    /// Why it could not be undone, when it could not.
    public var error: String?
    /// True when it stays by design (a sent message, files on someone's server, what others may
    /// have past the point of no return), not because its undo failed; nil otherwise.
    public var stays: Bool?

    /// Creates the outcome of one undo.
    package init(description: String, undone: Bool, error: String?, stays: Bool = false) {
        self.description = description
        self.undone = undone
        self.error = error
        self.stays = stays ? true : nil
    }

    /// Undone, or staying by design: nothing is left for another rollback to try.
    package var isSettled: Bool { undone || stays == true }
}

/// The effects of a run and their one way back: every side effect is recorded here as a value
/// (and, when the run has a record on disk, written there first), and a rollback undoes them
/// newest first through each effect's own `undo(in:status:)`.
///
/// The same journal does the rollback in the run, in the supervisor after a kill and in
/// `shiplane rollback` (`RecordedRollback` fills one from the record): one path for every process.
/// An undo checks that the world is still as the action left it and refuses otherwise, so a
/// rollback never destroys someone else's work.
package final class Journal: @unchecked Sendable {
    // @unchecked: `entries`, `context` and `attachedRecorder` are only touched under `lock`.
    struct Entry {
        /// The number of the step that made it.
        var step: Int
        var description: String
        var effect: AnyEffect
        var status: RecordedEffect.Status
        var afterPointOfNoReturn: Bool
        /// Why it was settled without an undo (kept: it stays), when it was.
        var note: String?
        /// The effect's index in the run's record, when it has one.
        var recordIndex: Int?
        /// Lane code's own undo (`registerUndo`): only this process can run it.
        var closure: (@Sendable () async throws -> Void)?
        /// True for an effect an earlier process of the run recorded (a resumed run's).
        var adopted = false
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    /// Held while the check before the first effect runs: every effect waits for its verdict.
    private let gateLock = NSLock()
    private var gate: (@Sendable () throws -> Void)?
    private var gateVerdict: (any Error)?
    private var atFirstStep: (@Sendable () -> Void)?
    /// Why this run may make no effect at all (a pull-request pipeline), when it may not.
    private var refusal: (any Error)?
    private var context: EffectContext
    private var attachedRecorder: RunRecorder?
    /// Creates an empty journal whose undos reach the world through `context`.
    init(context: EffectContext) {
        self.context = context
    }

    /// The run's on-disk record, when it has one.
    package var recorder: RunRecorder? { lock.withLock { attachedRecorder } }

    /// What undos reach the world through.
    var effectContext: EffectContext { lock.withLock { context } }

    /// Ties the journal to the run's on-disk record: saved copies go to its folder. When the record
    /// is a resumed run's, what its earlier process's cut-short steps left is undone first, and
    /// the effects it left unsettled join the journal.
    /// - Throws: when what a step cut short left behind cannot be undone (the run must not resume).
    package func record(with recorder: RunRecorder, environment: LaneEnvironment) async throws {
        let recorded: EffectContext = lock.withLock {
            attachedRecorder = recorder
            let earlier = context
            context = EffectContext(
                workTree: earlier.workTree, environment: environment, fileSystem: earlier.fileSystem, http: earlier.http,
                retryPolicy: earlier.retryPolicy, savedCopies: recorder.store,
                gitFolder: (recorder.store.folder as NSString).deletingLastPathComponent
            )
            return context
        }
        try await recorder.undoUnfinishedSteps(in: recorded)
        adopt(recorder.pendingEffects)
    }

    /// Adds effects an earlier process recorded and left unsettled (`index`: their place in the
    /// record), oldest first, ahead of this process's own.
    func adopt(_ effects: [(index: Int, entry: RecordedEffect)]) {
        guard !effects.isEmpty else { return }
        lock.withLock {
            let adopted = effects.map {
                Entry(step: $0.entry.step, description: $0.entry.description, effect: $0.entry.effect, status: $0.entry.status,
                      afterPointOfNoReturn: $0.entry.afterPointOfNoReturn, note: $0.entry.note, recordIndex: $0.index, closure: nil,
                      adopted: true)
            }
            entries.insert(contentsOf: adopted, at: 0)
        }
    }

    // MARK: - Recording

    /// Writes an effect down before it happens (in the record first, when there is one); returns
    /// its handle for `done`.
    /// - Throws: when the record cannot be written: the effect must not happen unrecorded.
    func intend(step: Int, _ description: String, _ effect: AnyEffect, pastPointOfNoReturn: Bool,
                closure: (@Sendable () async throws -> Void)? = nil) throws -> Int {
        try checkRefusal()
        try checkBeforeFirstEffect()
        let recordIndex = try recorder?.intend(step: step, description: description, effect: effect)
        return lock.withLock {
            entries.append(Entry(step: step, description: description, effect: effect, status: .intended,
                                 afterPointOfNoReturn: pastPointOfNoReturn, note: nil, recordIndex: recordIndex, closure: closure))
            return entries.count - 1
        }
    }

    /// Writes several effects down before they happen, in one record write; returns their handles, in order.
    /// - Throws: when the record cannot be written: none of them may happen unrecorded.
    func intend(step: Int, _ effects: [(description: String, effect: AnyEffect)], pastPointOfNoReturn: Bool) throws -> [Int] {
        try checkRefusal()
        try checkBeforeFirstEffect()
        guard !effects.isEmpty else { return [] }
        let recordIndexes: [Int?] = try recorder.map { try $0.intend(step: step, effects) } ?? effects.map { _ in nil }
        return lock.withLock {
            zip(effects, recordIndexes).map { item, recordIndex in
                entries.append(Entry(step: step, description: item.description, effect: item.effect, status: .intended,
                                     afterPointOfNoReturn: pastPointOfNoReturn, note: nil, recordIndex: recordIndex, closure: nil))
                return entries.count - 1
            }
        }
    }

    /// Makes the run's first effect (and its first command: see `Sh`) wait for `check`, which may
    /// throw to stop the run before it changes anything — the look at origin for an unfinished
    /// release (`ResumingFromOrigin`). A lane that only reads never runs it.
    ///
    /// `begin` runs once, when the lane starts its first step (before that step's first effect):
    /// the work behind `check` starts there, so a lane with no step never pays for it.
    package func holdFirstEffect(begin: (@Sendable () -> Void)? = nil, until check: @escaping @Sendable () throws -> Void) {
        gateLock.withLock {
            // A run refused every effect has none to hold (`refuseEffects`).
            guard refusal == nil else { return }
            gate = check
            gateVerdict = nil
            atFirstStep = begin
        }
    }

    /// Refuses every effect of this run with `error`, before it happens: the run may read, build
    /// and test, but not write a file, commit, tag, push, publish or send (a pull-request
    /// pipeline, `PullRequestPipeline`). Such a run has no effect to wait for origin's answer
    /// before, so the check set with `holdFirstEffect` never runs.
    package func refuseEffects(_ error: any Error) {
        gateLock.withLock {
            refusal = error
            gate = nil
            atFirstStep = nil
        }
    }

    /// Throws why this run may make no effect, when it may not (`refuseEffects`).
    package func checkRefusal() throws {
        if let refusal = gateLock.withLock({ refusal }) { throw refusal }
    }

    /// A step is starting: runs the `begin` given to `holdFirstEffect(begin:until:)`, the first time.
    func stepStarting() {
        let begin: (@Sendable () -> Void)? = gateLock.withLock {
            defer { atFirstStep = nil }
            return atFirstStep
        }
        begin?()
    }

    /// Runs the check set with `holdFirstEffect(until:)` once, if it has not run, and throws what
    /// it threw (every later call throws the same). Nothing to do when there is none.
    package func checkBeforeFirstEffect() throws {
        try gateLock.withLock {
            if refusal != nil { return }
            if let check = gate {
                gate = nil
                do {
                    try check()
                } catch {
                    gateVerdict = error
                }
            }
            if let gateVerdict { throw gateVerdict }
        }
    }

    /// Writes down that an effect happened, with what became known (an id, a commit).
    /// `durable` false: see `RunRecorder.done`.
    func done(_ handle: Int, effect: AnyEffect?, description: String? = nil, durable: Bool = true) {
        let index: Int? = lock.withLock {
            guard entries.indices.contains(handle) else { return nil }
            entries[handle].status = .done
            if let effect { entries[handle].effect = effect }
            if let description { entries[handle].description = description }
            return entries[handle].recordIndex
        }
        if let index { recorder?.done(index, effect: effect, description: description, durable: durable) }
    }

    /// Writes down that an effect is settled without an undo: it did not happen after all
    /// (`undone`), or it can no longer be undone and stays (`why`).
    func settle(_ handle: Int, undone: Bool, note: String) {
        let index: Int? = lock.withLock {
            guard entries.indices.contains(handle) else { return nil }
            entries[handle].status = undone ? .undone : .kept
            entries[handle].note = note
            return entries[handle].recordIndex
        }
        if let index { recorder?.resolved(index, undone: undone, note: note) }
    }

    // MARK: - Reading

    private var pending: [Entry] {
        entries.filter { $0.status == .intended || $0.status == .done }
    }

    /// The number of effects a rollback would still undo or report (one settled as staying during
    /// the run, such as a build Apple accepted, is reported).
    package var count: Int { lock.withLock { pending.count + entries.filter { $0.status == .kept && $0.note != nil }.count } }

    /// What each unsettled effect's undo does, oldest first.
    package var descriptions: [String] { lock.withLock { pending.map(\.description) } }

    /// True when step `step` recorded an effect of `kind` described as `description` that is not
    /// undone: a resumed step finds what its earlier attempt wrote down (a push cut short).
    func holds(step: Int, kind: String, description: String) -> Bool {
        lock.withLock {
            entries.contains { $0.step == step && $0.effect.kind == kind && $0.description == description && $0.status != .undone }
        }
    }

    /// The newest commit this run made and still has (a release commit, or its copy put on top
    /// of origin's newer branch: `ReleaseReplayed`), nil when it made none.
    func madeCommit() -> String? {
        lock.withLock {
            for entry in entries.reversed() where entry.status == .done {
                if let replayed = entry.effect.as(ReleaseReplayed.self), let copy = replayed.copy { return copy }
                if let made = entry.effect.as(CommitMade.self), let commit = made.commit { return commit }
            }
            return nil
        }
    }

    /// Every effect of type `E` this run recorded that is not undone (done, or happening when it
    /// stopped), by any step, oldest first: what a feature asks of its own earlier effects (the
    /// refs a push sent) without the journal knowing the feature.
    func effects<E: Effect>(_ type: E.Type) -> [E] {
        lock.withLock { entries.filter { $0.status != .undone }.compactMap { $0.effect.as(type) } }
    }

    /// The newest effect of `kind` that step `step` recorded in an earlier process of this run and
    /// that is not undone: what a retried step finds of its earlier attempt (a message whose
    /// answer was lost). Its handle marks it done or settles it.
    func earlierAttempt(step: Int, kind: String) -> (handle: Int, effect: AnyEffect, status: RecordedEffect.Status, note: String?)? {
        lock.withLock {
            guard let position = entries.lastIndex(where: { $0.adopted && $0.step == step && $0.effect.kind == kind && $0.status != .undone })
            else { return nil }
            return (position, entries[position].effect, entries[position].status, entries[position].note)
        }
    }

    /// Writes down that the send of a recorded message is about to begin
    /// (`RecordedEffect.sendUnderWay`): before it, a killed attempt surely sent nothing.
    func markSendUnderWay(_ handle: Int) {
        let index: Int? = lock.withLock {
            guard entries.indices.contains(handle) else { return nil }
            entries[handle].note = RecordedEffect.sendUnderWay
            return entries[handle].recordIndex
        }
        if let index { recorder?.annotate(index, RecordedEffect.sendUnderWay) }
    }

    /// Settles as not having happened every unsettled effect of `kind` that step `step` recorded
    /// (an earlier attempt's push, once the remote showed it has none of it).
    func settleUnsettled(step: Int, kind: String, note: String) {
        let indexes: [Int] = lock.withLock {
            var settled: [Int] = []
            for position in entries.indices where entries[position].step == step && entries[position].effect.kind == kind
                && (entries[position].status == .intended || entries[position].status == .done) {
                entries[position].status = .undone
                entries[position].note = note
                if let index = entries[position].recordIndex { settled.append(index) }
            }
            return settled
        }
        for index in indexes { recorder?.resolved(index, undone: true, note: note) }
    }

    /// Forgets every entry: the run completed and its effects stay.
    package func commit() {
        lock.withLock { entries.removeAll() }
    }

    // MARK: - Rolling back

    /// Undoes every unsettled effect, newest first; keeps going past failures and reports each.
    package func rollback() async -> [RollbackEntry] {
        await rollback(pointOfNoReturn: nil).map(\.entry)
    }

    /// Undoes the unsettled effects, newest first, and says what became of each (`index`: its place
    /// in the record); an effect the run already settled as staying (a build Apple accepted, an
    /// edit committed) is reported as staying. Past a point of no return, what others may have
    /// stays: the effects made before it, and past it a release that may already be public
    /// (`shiplane resume` finishes it). An undo that fails leaves its effect unsettled in the
    /// record, with why, so `shiplane rollback` can try it again.
    /// `planOnly`: undoes nothing and records nothing; each effect the rules would undo is
    /// reported as undone (`shiplane rollback --dry-run`), each that stays as staying.
    func rollback(pointOfNoReturn: String?, planOnly: Bool = false) async -> [(index: Int?, entry: RollbackEntry)] {
        let (taken, context) = lock.withLock {
            let taken = entries.filter { $0.status == .intended || $0.status == .done || ($0.status == .kept && $0.note != nil) }
            entries.removeAll()
            return (taken, self.context)
        }
        var results: [(index: Int?, entry: RollbackEntry)] = []
        for entry in taken.reversed() {
            if entry.status == .kept {
                results.append((entry.recordIndex, RollbackEntry(description: entry.description, undone: false, error: entry.note, stays: true)))
                continue
            }
            let outcome = await undo(entry, context: context, pointOfNoReturn: pointOfNoReturn, planOnly: planOnly)
            results.append((entry.recordIndex, outcome))
            guard !planOnly, let index = entry.recordIndex else { continue }
            if outcome.isSettled {
                recorder?.resolved(index, undone: outcome.undone, note: outcome.error)
            } else {
                recorder?.noteFailedUndo(index, outcome.error ?? "")
            }
        }
        return results
    }

    private func undo(_ entry: Entry, context: EffectContext, pointOfNoReturn: String?, planOnly: Bool) async -> RollbackEntry {
        func stays(_ why: String) -> RollbackEntry {
            RollbackEntry(description: entry.description, undone: false, error: why, stays: true)
        }
        let effect = entry.effect.value
        if let noReturn = pointOfNoReturn {
            if !entry.afterPointOfNoReturn {
                return stays("not undone (\(entry.description)): done before the point of no return (\(noReturn)), so it stays")
            }
            if effect?.reach == .publication {
                return stays("not undone (\(entry.description)): past the point of no return it may be public; `shiplane resume` finishes the release")
            }
        }
        if planOnly { return RollbackEntry(description: entry.description, undone: true, error: nil) }
        do {
            if let closure = entry.closure {
                try await closure()
            } else if let effect {
                // Only what an earlier process left may have left a git lock file to clean.
                try await effect.undo(in: entry.adopted ? context : context.forThisProcessEffects, status: entry.status)
            } else if let elsewhere = context.undoElsewhere {
                try await elsewhere(entry.effect, entry.status)
            } else {
                throw ShiplaneError("\(entry.description): an effect of kind \(entry.effect.kind), which only the lane program that declared it can undo; left as it is")
            }
            return RollbackEntry(description: entry.description, undone: true, error: nil)
        } catch let staying as EffectStays {
            return stays(staying.message)
        } catch {
            return RollbackEntry(description: entry.description, undone: false, error: describe(error))
        }
    }
}

/// The one-line text of any error: a `ReportableError`'s message, another library's error in
/// words (`errorInWords`), else its description.
package func describe(_ error: any Error) -> String {
    if let reportable = error as? any ReportableError { return reportable.message }
    if let words = errorInWords(error) { return words }
    if let localized = error as? LocalizedError, let text = localized.errorDescription { return text }
    return String(describing: error)
}
