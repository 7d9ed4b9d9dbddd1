import Foundation

/// What every step of one run shares: the step counter and records, the journal, the reporter.
final class RunState: @unchecked Sendable {
    // @unchecked: the `let`s are set once in `init`; every `var` is only touched under `lock`.
    let reporter: any Reporting
    let journal: Journal
    let now: @Sendable () -> Date
    /// Hear the run's moments (`RunObserving`): the runner names no integration.
    let observers: [any RunObserving]
    private let lock = NSLock()
    private var records: [StepRecord] = []
    private var releaseChanges: [any ReleaseChanges] = []
    private var bumped: SemanticVersion?
    private var noReturn: String?
    private var namedOutputs: [(name: String, value: String)] = []
    private var dryRunCommits = 0
    private var madeArtifacts: [(step: Int, artifact: Artifact)] = []

    init(reporter: any Reporting, journal: Journal, now: @escaping @Sendable () -> Date, observers: [any RunObserving] = RunObservers.standard) {
        self.reporter = reporter
        self.journal = journal
        self.now = now
        self.observers = observers
    }

    func start(name: String, callSite: CallSite?, options: [StepOption], depth: Int) -> StepRecord {
        journal.stepStarting()
        lock.lock()
        let record = StepRecord(
            number: records.count + 1, name: name, callSite: callSite, options: options,
            depth: depth, startedAt: now()
        )
        records.append(record)
        lock.unlock()
        reporter.report(.stepStarted(record))
        return record
    }

    func finish(_ number: Int, outcome: StepOutcome, error: String? = nil) {
        lock.lock()
        guard number >= 1, number <= records.count else {
            lock.unlock()
            return
        }
        var record = records[number - 1]
        record.outcome = outcome
        record.duration = now().timeIntervalSince(record.startedAt)
        record.error = error
        records[number - 1] = record
        lock.unlock()
        reporter.report(.stepFinished(record))
    }

    func setNote(_ number: Int, _ note: String) {
        lock.lock()
        if number >= 1, number <= records.count { records[number - 1].note = note }
        lock.unlock()
    }

    /// Keeps the result of a step that returned `ReleaseChanges`, so `commitVersionBump()` called
    /// without arguments commits what this run's release steps returned.
    func recordStepOutput<Output>(_ output: Output, step: Int) {
        if let artifact = output as? Artifact { register(artifact, step: step) }
        if let artifacts = output as? [Artifact] { for artifact in artifacts { register(artifact, step: step) } }
        guard let changes = output as? any ReleaseChanges else { return }
        lock.withLock { releaseChanges.append(changes) }
    }

    /// What release steps returned in this run that no commit took yet, in order.
    var uncommittedReleaseChanges: [any ReleaseChanges] { lock.withLock { releaseChanges } }

    /// The version this run's last `bumpVersion` moved to: the release being made, which notes
    /// rendered before `addGitTag` are titled with (so a dry run shows what the real run does).
    var bumpedVersion: SemanticVersion? {
        get { lock.withLock { bumped } }
        set { lock.withLock { bumped = newValue } }
    }

    /// Forgets the results whose files a commit took (all of `paths`).
    func markCommitted(_ paths: Set<String>) {
        lock.withLock { releaseChanges.removeAll { $0.fileChanges.allSatisfy { paths.contains($0.path) } } }
    }

    /// Notes that a dry run's commit step would have made a commit, so later steps that name HEAD
    /// say they would act on that commit rather than today's HEAD.
    func noteDryRunCommit() {
        lock.withLock { dryRunCommits += 1 }
    }

    /// True once a dry run's commit step would have made a commit.
    var dryRunMadeCommit: Bool { lock.withLock { dryRunCommits > 0 } }

    /// Sets a named output of the run (CI outputs: `version`, `tag`, `release_url`, the lane's own).
    func setOutput(_ name: String, _ value: String) {
        lock.withLock {
            namedOutputs.removeAll { $0.name == name }
            namedOutputs.append((name, value))
        }
    }

    /// The run's named outputs, in the order they were first set.
    var outputs: [(name: String, value: String)] { lock.withLock { namedOutputs } }

    /// Sets the outputs a step's result gives the run (`Action.runOutputs(of:)`: the version a
    /// bump made, the tag, a forge's release URL); the runner names no action.
    func setOutputs(_ outputs: [(name: String, value: String)]) {
        for (name, value) in outputs { setOutput(name, value) }
    }

    // MARK: - Artifacts

    /// Keeps an artifact step `step` made (or a resumed run's step made before): it replaces an
    /// earlier one at the same path, which the file no longer holds.
    func register(_ artifact: Artifact, step: Int) {
        lock.withLock {
            madeArtifacts.removeAll { $0.artifact.path == artifact.path }
            madeArtifacts.append((step, artifact))
        }
    }

    /// Forgets the artifacts of a step that failed: what it wrote is not the release's.
    func forgetArtifacts(madeBy step: Int) {
        lock.withLock { madeArtifacts.removeAll { $0.step == step } }
    }

    /// Every artifact the run made so far, in the order they were made.
    var artifacts: [Artifact] { lock.withLock { madeArtifacts.map(\.artifact) } }

    /// The artifacts step `step` made.
    func artifacts(madeBy step: Int) -> [Artifact] {
        lock.withLock { madeArtifacts.filter { $0.step == step }.map(\.artifact) }
    }

    /// Checks that the files a step made again (a fresh clone reruns the steps that make local
    /// artifacts) hold the bytes the run's record says the first time made: what may already be
    /// published is never silently replaced by different bytes.
    /// - Throws: `ArtifactChanged` naming the file and both digests.
    func checkRemadeArtifacts(_ record: StepRecord) throws {
        guard let recorded = journal.recorder?.recordedArtifacts(step: record.number, name: record.name), !recorded.isEmpty else { return }
        let made = artifacts(madeBy: record.number)
        for before in recorded {
            guard let now = made.first(where: { $0.path == before.path }), now.sha256 != before.sha256 else { continue }
            throw ArtifactChanged(path: before.path, recorded: before.sha256, found: now.sha256, when: "the run's record says step \(record.number) made")
        }
    }

    /// Why the run passed its point of no return, or nil while everything can still be undone.
    /// A resumed run is past it when the run it resumes was (its record says so).
    var pointOfNoReturn: String? { lock.withLock { noReturn } ?? journal.recorder?.current.pointOfNoReturn }

    func passPointOfNoReturn(_ reason: String) {
        lock.withLock { if noReturn == nil { noReturn = reason } }
    }

    /// Replaces the reason, or (nil) takes the point back: see `StepContext.amendPointOfNoReturn`.
    func amendPointOfNoReturn(_ reason: String?) {
        lock.withLock { noReturn = reason }
    }

    /// The result a resumed run's earlier process recorded for this step, when it can be used.
    func replay<Output>(_ record: StepRecord, as type: Output.Type, makesLocalArtifacts: Bool) -> Output? {
        guard let recorder = journal.recorder,
              let step = recorder.replayedStep(number: record.number, name: record.name, makesLocalArtifacts: makesLocalArtifacts),
              let output = StepOutputCoding.decode(step, as: type) else { return nil }
        for artifact in step.artifacts ?? [] { register(artifact, step: record.number) }
        return output
    }

    /// Writes a finished step (and its result, when it can be saved) to the run's record.
    func recordFinished<Output>(_ record: StepRecord, outcome: StepOutcome, output: Output?) {
        guard let recorder = journal.recorder else { return }
        let returnsNothing = StepOutputCoding.returnsNothing(Output.self)
        recorder.stepFinished(RecordedStep(
            number: record.number, name: record.name, callSite: record.callSite, outcome: outcome,
            output: returnsNothing ? nil : output.flatMap { StepOutputCoding.encode($0) },
            returnsNothing: returnsNothing, artifacts: outcome == .succeeded ? artifacts(madeBy: record.number) : []
        ))
    }

    var steps: [StepRecord] {
        lock.lock()
        defer { lock.unlock() }
        return records
    }
}
