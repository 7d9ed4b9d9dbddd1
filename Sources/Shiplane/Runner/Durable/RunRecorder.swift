import Foundation

/// Keeps the on-disk record of a live run up to date: steps and their results, effects before
/// and after they happen, the point of no return. One per run; every write is durable.
///
/// The record is written whole once (the first step or effect, or a resume), then each change is
/// one line appended to it and synced (`RecordChange`, `RunStore.append`): a run of a thousand
/// steps writes a thousand short lines, not a thousand copies of a growing record. Every line is
/// written before the call returns (a killed process loses none); an effect's intent waits until
/// it, every line before it and the saved copies it names are on the disk (one group of `fsync`
/// calls on this thread), while a finished step's line, or a local effect's done, is not synced
/// by itself: nothing waits on it but the next intent, whose `fsync` of the log covers it.
package final class RunRecorder: @unchecked Sendable {
    // @unchecked: every `var` is only touched under `lock`.
    /// The run folder the record is written to.
    package let store: RunStore
    private let lock = NSLock()
    private var record: RunRecord
    /// The steps of the run being resumed, by number; empty for a fresh run.
    private var replaySteps: [Int: RecordedStep]
    private var replaying: Bool
    /// True when resuming a record from the remote in a fresh clone: steps that make local
    /// artifacts (`MakesLocalArtifacts`) run again.
    private let rerunsLocalArtifacts: Bool
    /// Set when a record write failed: the run must not go on blind.
    private var writeFailure: (any Error)?
    /// Redacts every secret the run knows from the record before it is written.
    private let redactor: SecretRedactor

    /// Starts recording a run: a fresh one, or `resuming` an unfinished one (its steps replay).
    package init(store: RunStore, record: RunRecord, resuming previous: RunRecord? = nil, redactor: SecretRedactor = SecretRedactor()) throws {
        self.store = store
        self.redactor = redactor
        rerunsLocalArtifacts = previous?.fetchedFromRemote == true
        var record = record
        if let previous {
            record.id = previous.id
            record.startedAt = previous.startedAt
            record.pointOfNoReturn = previous.pointOfNoReturn
            record.effects = previous.effects
            record.steps = previous.steps
            record.resumes = previous.resumes + 1
            record.remoteRecord = previous.remoteRecord
        }
        self.record = record
        secretObserver = -1
        replaySteps = Dictionary((previous?.steps ?? []).filter { $0.outcome == .succeeded }.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
        replaying = previous != nil
        // A fresh run writes its record at its first step or effect: a lane that does nothing
        // recorded pays no disk write at start. A resumed one keeps its record up to date at once.
        if previous != nil {
            try store.save(record, redactor: redactor)
            written = true
            wholeWriteNeeded = false
        }
        // A value registered as a secret later in the run may be in a line written before: the
        // record is written again whole, redacted, as soon as it is registered.
        secretObserver = RuntimeSecrets.observe { [weak self] values in self?.rewriteHolding(values) }
    }

    deinit {
        RuntimeSecrets.stopObserving(secretObserver)
    }

    /// The observer of new secrets (`RuntimeSecrets.observe`).
    private var secretObserver: Int

    /// Writes the record again whole, redacted with every secret known now, when a line on disk
    /// holds one of `values`, secrets registered after it was written (a token a step printed,
    /// then registered): the old lines go with the file they were in (the new one is written
    /// beside it and renamed over it). Lines appended later are redacted as they are written.
    private func rewriteHolding(_ values: [String]) {
        lock.withLock {
            guard written, !wholeWriteNeeded, store.recordHolds(anyOf: values) else { return }
            wholeWriteNeeded = true
            persist()
        }
    }

    /// True once the record is on disk.
    private var written = false
    /// True while the file on disk cannot take appended changes: none written yet, or a write
    /// failed part-way. The next write then writes the record whole.
    private var wholeWriteNeeded = true
    /// Effects changed with `durable: false` since the last write: they go with the next one.
    private var unwrittenEffects: Set<Int> = []

    /// The record as it stands.
    package var current: RunRecord { lock.withLock { record } }

    /// True once the run has done something others can see.
    package var isPastPointOfNoReturn: Bool { lock.withLock { record.pointOfNoReturn != nil } }

    // MARK: - Steps

    /// The recorded step a replay hands back for step `number` named `name`, or nil when the step
    /// must run: a fresh run, a step that had not finished, a result that could not be saved (the
    /// step runs again; later steps still replay). The first step that is missing or named
    /// otherwise ends the replay: everything after it runs for real.
    func replayedStep(number: Int, name: String, makesLocalArtifacts: Bool) -> RecordedStep? {
        lock.withLock {
            guard replaying else { return nil }
            // In a fresh clone the files such a step made are not there: it runs again.
            if rerunsLocalArtifacts && makesLocalArtifacts { return nil }
            guard let step = replaySteps[number], step.name == name else {
                replaying = false
                return nil
            }
            return step.output != nil || step.returnsNothing ? step : nil
        }
    }

    /// The artifacts the run being resumed recorded for step `number` named `name` (nil: none, or a
    /// fresh run): a step that runs again must make the same bytes.
    func recordedArtifacts(step number: Int, name: String) -> [Artifact]? {
        lock.withLock {
            guard let step = replaySteps[number], step.name == name else { return nil }
            return step.artifacts
        }
    }

    /// Records a finished step and, when it can be saved, its result.
    func stepFinished(_ step: RecordedStep) {
        lock.withLock {
            let change = RecordChange.step(step)
            try? record.apply(change)
            // No effect waits on it: synced with the next intent (see `persist`).
            persist([change], waitForDisk: false)
        }
    }

    // MARK: - Effects

    /// Records an effect about to happen; returns its index for `done`.
    func intend(step: Int, description: String, effect: AnyEffect) throws -> Int {
        try intend(step: step, [(description: description, effect: effect)])[0]
    }

    /// Records several effects about to happen in one durable write (the requests that make them
    /// go out only after it); returns their indexes for `done`, in order.
    func intend(step: Int, _ effects: [(description: String, effect: AnyEffect)]) throws -> [Int] {
        try lock.withLock {
            let first = record.effects.count
            let added = effects.map { description, effect in
                RecordedEffect(step: step, description: description, effect: effect, status: .intended,
                               afterPointOfNoReturn: record.pointOfNoReturn != nil)
            }
            record.effects += added
            persist(.effects(added, from: first))
            if let writeFailure { throw writeFailure }
            for index in first..<record.effects.count { FaultInjection.reached(.beforeEffect, index + 1) }
            return Array(first..<record.effects.count)
        }
    }

    /// Records that the effect happened, with what became known (a commit id, a tag object).
    /// `durable` false keeps the change in memory until the record's next write (the end of the
    /// step at the latest): for effects whose undo finds them without what `done` adds, so a
    /// kill before that write loses nothing rollback needs.
    ///
    /// The line of a local effect (a file, a commit, a tag: its undo finds it in the repository
    /// from the intent alone) is synced in the background; that of an effect elsewhere (a release,
    /// an upload: what `done` adds may be the only way back to it) is waited for.
    func done(_ index: Int, effect: AnyEffect? = nil, description: String? = nil, durable: Bool = true) {
        update(index, persisting: durable, waitForDisk: { $0.effect.value?.reach != .local }) {
            $0.status = .done
            if let effect { $0.effect = effect }
            if let description { $0.description = description }
        }
        FaultInjection.reached(.afterEffect, index + 1)
    }

    /// Records how rollback left an effect.
    func resolved(_ index: Int, undone: Bool, note: String?) {
        update(index) {
            $0.status = undone ? .undone : .kept
            $0.note = note
        }
    }

    /// Records why an effect's undo failed; the effect stays unsettled, for another rollback.
    func noteFailedUndo(_ index: Int, _ why: String) {
        update(index) { $0.note = why }
    }

    /// Writes a note on an effect that is still unsettled (`RecordedEffect.sendUnderWay`).
    func annotate(_ index: Int, _ note: String) {
        update(index) { $0.note = note }
    }

    /// Records that from here on the run does what others can see; `reason` says what.
    func passPointOfNoReturn(_ reason: String) throws {
        try lock.withLock {
            guard record.pointOfNoReturn == nil else { return }
            record.pointOfNoReturn = reason
            persist(.pointOfNoReturn(reason))
            if let writeFailure { throw writeFailure }
        }
    }

    /// Replaces the reason the run is past its point of no return, or (nil) takes it back: a push
    /// whose every ref the remote refused published nothing, so the run can still be undone.
    /// Only the push that passed the point calls this, once the remote has answered.
    func amendPointOfNoReturn(_ reason: String?) throws {
        try lock.withLock {
            record.pointOfNoReturn = reason
            if reason == nil { record.remoteRecord = nil }
            persist(.pointOfNoReturn(reason), reason == nil ? .remoteRecord(nil) : nil)
            if let writeFailure { throw writeFailure }
        }
    }

    /// Records that the remote refused the copy of the record the push carried: nothing on the
    /// remote is this run's (no later step updates it, and no check takes its absence there for
    /// a run finished elsewhere).
    func remoteRefusedRecord() {
        lock.withLock {
            record.remoteRecord = nil
            persist(.remoteRecord(nil))
        }
    }

    /// The record as the push that passes the point of no return carries it to `remote`; from then
    /// on the record says it is there, so the end of the run deletes it.
    func snapshotForRemote(pointOfNoReturn: String, remote: String, redactor: SecretRedactor) throws -> Data {
        try lock.withLock {
            let data = try RemoteRunRecord.snapshot(record, pointOfNoReturn: pointOfNoReturn, remote: remote, redactor: redactor)
            record.remoteRecord = remote
            persist(.remoteRecord(remote))
            return data
        }
    }

    // MARK: - The end of the run

    /// The run completed: the record goes.
    package func finishedCompletely() {
        lock.withLock { if written { store.clear() } }
    }

    /// The run stopped and was not (or not wholly) undone: the record stays for resume or rollback.
    package func stoppedUnfinished() {
        lock.withLock {
            record.state = .unfinished
            persist(.state(.unfinished))
        }
    }

    /// Undoes the local effects of the steps that had not finished when the earlier process
    /// stopped (a file half the bump wrote, a commit whose step was cut short), so those steps run
    /// again from where they started. Pushes and effects outside the repository stay: the step
    /// that made them checks the world when it runs again.
    func undoUnfinishedSteps(in context: EffectContext) async throws {
        let finished = lock.withLock { Set(record.steps.filter { $0.outcome == .succeeded }.map(\.number)) }
        for (index, entry) in pendingEffects.reversed() where !finished.contains(entry.step) {
            guard let effect = entry.effect.value, effect.reach == .local else { continue }
            do {
                try await effect.undo(in: context, status: entry.status)
            } catch {
                throw ShiplaneError(
                    "cannot resume: what the interrupted step left could not be undone: \(describe(error))",
                    suggestion: "put it back by hand and run again, or run `shiplane rollback`"
                )
            }
            resolved(index, undone: true, note: "undone before its step ran again")
        }
    }

    /// Effects the record holds that rollback has not settled, newest last.
    var pendingEffects: [(index: Int, entry: RecordedEffect)] {
        lock.withLock {
            record.effects.enumerated().filter { $0.element.status == .intended || $0.element.status == .done }
                .map { ($0.offset, $0.element) }
        }
    }

    private func update(_ index: Int, persisting: Bool = true, waitForDisk: (RecordedEffect) -> Bool = { _ in true },
                        _ change: (inout RecordedEffect) -> Void) {
        lock.withLock {
            guard record.effects.indices.contains(index) else { return }
            change(&record.effects[index])
            if persisting {
                persist([.effect(record.effects[index], at: index)], waitForDisk: waitForDisk(record.effects[index]))
            } else {
                unwrittenEffects.insert(index)
            }
        }
    }

    /// Writes `changes` (already made to `record`), with the effects changed since the last write,
    /// as lines appended to the record; or the whole record when it cannot take lines yet.
    /// Called under `lock`.
    private func persist(_ changes: RecordChange?...) {
        persist(changes, waitForDisk: true)
    }

    /// `persist(_:)`; with `waitForDisk` false for a change no effect waits on (a step finished,
    /// a local effect done): its line is written before this returns, so it survives the process being
    /// killed, and is not synced by itself. Every intent, point of no return and whole write still
    /// waits for the disk, and its `fsync` covers every line written before it: an effect happens
    /// only once all of them are on the disk.
    private func persist(_ changes: [RecordChange?], waitForDisk: Bool) {
        do {
            if wholeWriteNeeded {
                try store.save(record, redactor: redactor)
                wholeWriteNeeded = false
            } else {
                let pending = unwrittenEffects.sorted().map { RecordChange.effect(record.effects[$0], at: $0) }
                try store.append(pending + changes.compactMap { $0 }, redactor: redactor, waitForDisk: waitForDisk)
            }
            unwrittenEffects = []
            written = true
        } catch {
            wholeWriteNeeded = true
            writeFailure = error
        }
    }
}

// MARK: - Step results as data

/// A step result a resumed run hands back instead of running the step again. It is written in the
/// run's record as JSON text, so every secret the run knows is redacted from it before the record
/// leaves the machine; a result that is not `ReplayableOutput` is not written down, and its step
/// runs again on resume.
public protocol ReplayableOutput: Codable, Sendable {}

extension String: ReplayableOutput {}
extension Bool: ReplayableOutput {}
extension Int: ReplayableOutput {}
extension Int64: ReplayableOutput {}
extension Optional: ReplayableOutput where Wrapped: ReplayableOutput {}
extension Dictionary: ReplayableOutput where Key == String, Value == String {}
extension Array: ReplayableOutput where Element: ReplayableOutput {}

/// A step's result wrapped for JSON (so `nil`, numbers and strings encode at the top level too).
private struct OutputBox<Value: Encodable>: Encodable {
    let value: Value
}

private struct DecodedBox<Value: Decodable>: Decodable {
    let value: Value
}

enum StepOutputCoding {
    /// The result as JSON text, or nil when it is not replayable.
    static func encode<Output>(_ output: Output) -> String? {
        guard let replayable = output as? any ReplayableOutput else { return nil }
        return encodeOpened(replayable)
    }

    private static func encodeOpened<Value: ReplayableOutput>(_ value: Value) -> String? {
        (try? RunStore.encoder.encode(OutputBox(value: value))).map { String(decoding: $0, as: UTF8.self) }
    }

    static func returnsNothing<Output>(_ type: Output.Type) -> Bool {
        type == Void.self
    }

    /// The saved result as `Output`, or nil when it cannot be read back.
    static func decode<Output>(_ step: RecordedStep, as type: Output.Type) -> Output? {
        if step.returnsNothing { return () as? Output }
        guard let text = step.output, let decodable = type as? any ReplayableOutput.Type else { return nil }
        return decodeOpened(decodable, Data(text.utf8)) as? Output
    }

    private static func decodeOpened<Value: ReplayableOutput>(_ type: Value.Type, _ data: Data) -> Value? {
        try? RunStore.decoder.decode(DecodedBox<Value>.self, from: data).value
    }
}
