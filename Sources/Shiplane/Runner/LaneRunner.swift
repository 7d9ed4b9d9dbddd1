import Foundation

/// The outcome of running a lane from the command line: steps, timing, failure and rollback.
public struct LaneRunResult: Sendable {
    /// The lane's name.
    public var lane: String
    /// True for a dry run.
    public var dryRun: Bool
    /// When the lane started, by the context's clock.
    public var startedAt: Date
    /// How long the lane took, hooks included, in seconds.
    public var duration: TimeInterval
    /// Every step recorded, in start order.
    public var steps: [StepRecord]
    /// Why the lane did not complete; nil when it succeeded.
    public var failure: LaneFailure?
    /// The files a dry run would have written, relative to the working directory.
    public var plannedWrites: [String]
    /// The run's named outputs (`version`, `tag`, `release_url`, the lane's own), in order.
    public var outputs: [(name: String, value: String)] = []

    /// Creates a result; `outputs` starts empty.
    package init(
        lane: String, dryRun: Bool, startedAt: Date, duration: TimeInterval, steps: [StepRecord],
        failure: LaneFailure?, plannedWrites: [String]
    ) {
        self.lane = lane
        self.dryRun = dryRun
        self.startedAt = startedAt
        self.duration = duration
        self.steps = steps
        self.failure = failure
        self.plannedWrites = plannedWrites
    }

    /// True when the lane completed.
    public var succeeded: Bool { failure == nil }
    /// True when a signal or a cancelled task stopped the lane.
    public var interrupted: Bool { failure?.interrupted ?? false }
}

/// Runs a top lane: hooks around it, rollback when it fails, and the record of what happened.
package struct LaneRunner {
    /// Whether a failed run undoes its side effects (`--no-rollback` turns it off).
    package var rollbackOnFailure: Bool
    /// The signing keys the lane's code names (found in the lane sources when they were
    /// compiled), checked before the first step with the configured ones.
    package var namedSigningKeys: [NamedSigningKey]

    /// Creates a runner; rollback on failure is on unless turned off.
    package init(rollbackOnFailure: Bool = true, namedSigningKeys: [NamedSigningKey] = []) {
        self.rollbackOnFailure = rollbackOnFailure
        self.namedSigningKeys = namedSigningKeys
    }

    /// Runs `lane` with its hooks and, when it fails before its point of no return, rolls back what it did
    /// (unless `rollbackOnFailure` is off or the run is a dry run).
    ///
    /// Never throws: a failure, and what rollback did, are in the result, and the run's record on disk
    /// is settled (finished, or left for `shiplane resume` or `shiplane rollback`).
    ///
    /// The lane runs on `BlockingThreadPool.lanes`: lane code that blocks (a history walk, a
    /// synchronous call) holds a thread of its own, not one of Swift's cooperative pool.
    package func run<L: Lane>(_ lane: L, in context: LaneContext) async -> LaneRunResult {
        await onLaneThreads { await runHere(lane, in: context) }
    }

    private func runHere<L: Lane>(_ lane: L, in context: LaneContext) async -> LaneRunResult {
        let info = LaneInfo(name: L.name, depth: 0)
        let state = context.state
        let started = state.now()
        state.reporter.report(.laneStarted(name: L.name, depth: 0, dryRun: context.isDryRun))

        var failure: LaneFailure?
        let recorder = context.journal.recorder
        context.fanOut.laneName = L.name
        do {
            // Every signing key the run is configured with, before its first effect: a key that
            // cannot sign stops it here, not at its signing step after the commit and the tag.
            // The keys the lane's options name come with `namedSigningKeys` (`shiplane bump
            // --sign`): asking the lane (`lane as? any P`) looked for a conformance the lane
            // types of a lane program never have, a walk over every conformance record of the
            // program at every lane's start.
            try SigningKeyCheck.check(context, named: namedSigningKeys)
            var partRecorded = false
            do {
                _ = try await context.perform(lane)
                try context.fanOut.laneEnded()
            } catch {
                // A plan that knows every part, a part job whose part is on origin: done.
                guard let stop = FanOutStop.find(in: error) else { throw error }
                if case .partRecorded = stop.kind { partRecorded = true }
            }
            if partRecorded && !context.isDryRun && context.journal.count > 0 {
                // A part job leaves its checkout as it found it: what it changed to build the part
                // (a bumped version file, build outputs) was for the record on origin alone.
                state.reporter.report(.rollbackStarted(count: context.journal.count))
                state.reporter.report(.rollbackFinished(await Self.rollBack(context.journal)))
            } else {
                context.journal.commit()
            }
            if context.fanOut.mode == .fanIn, !context.isDryRun {
                // Published once: origin says so, and the parts' records are retired
                // (compare-and-swap), before the run's own record goes.
                for warning in await context.fanOut.retire(context) { context.log(warning, level: .warning) }
            }
            if let current = recorder?.current, let remote = current.remoteRecord,
               let warning = RemoteRunRecord.remove(workTree: context.workingDirectory, remote: remote, environment: context.environment, runID: current.id) {
                context.log(warning, level: .warning)
            }
            recorder?.finishedCompletely()
        } catch {
            let interrupted = Self.isCancellation(error) || Task.isCancelled
            var causes: [any Error] = [(error is any ReportableError) ? error : ThrownError(error)]
            // A run that stops before its first effect ("nothing to release", a dirty tree) may be
            // a fresh clone of a half-published release: origin's record is the better answer.
            if !interrupted, context.journal.count == 0, !(error is ResumingFromOrigin) {
                do {
                    try context.journal.checkBeforeFirstEffect()
                } catch let found as ResumingFromOrigin {
                    causes = [found]
                } catch {
                    causes.append(error)
                }
            }
            if let found = causes.first as? ResumingFromOrigin {
                // Nothing was changed: the command starts again as the found run's resume.
                recorder?.finishedCompletely()
                failure = LaneFailure(lane: L.name, causes: [found], rollback: [], interrupted: false, pointOfNoReturn: nil)
                let duration = state.now().timeIntervalSince(started)
                return LaneRunResult(
                    lane: L.name, dryRun: context.isDryRun, startedAt: started, duration: duration,
                    steps: context.steps, failure: failure, plannedWrites: []
                )
            }
            var rollback: [RollbackEntry] = []
            let noReturn = state.pointOfNoReturn
            if noReturn == nil && rollbackOnFailure && !context.isDryRun && context.journal.count > 0 {
                state.reporter.report(.rollbackStarted(count: context.journal.count))
                rollback = await Self.rollBack(context.journal)
                state.reporter.report(.rollbackFinished(rollback))
            }
            if let recorder {
                if noReturn == nil && rollback.allSatisfy(\.isSettled) && (rollbackOnFailure || context.journal.count == 0) {
                    recorder.finishedCompletely()
                } else {
                    recorder.stoppedUnfinished()
                }
            }
            failure = LaneFailure(
                lane: L.name, causes: causes, rollback: rollback, interrupted: interrupted, pointOfNoReturn: noReturn
            )
            if let failure {
                for hook in context.hooks { await hook.onError(info, failure: failure, context: context) }
            }
        }
        let outcome: LaneOutcome = failure.map { .failed($0) } ?? .succeeded
        for hook in context.hooks { await hook.always(info, outcome: outcome, context: context) }
        let duration = state.now().timeIntervalSince(started)
        state.reporter.report(.laneFinished(name: L.name, depth: 0, succeeded: failure == nil, duration: duration))
        let root = context.workingDirectory + "/"
        var result = LaneRunResult(
            lane: L.name, dryRun: context.isDryRun, startedAt: started, duration: duration,
            steps: context.steps, failure: failure,
            plannedWrites: context.plannedWrites.map { $0.path.hasPrefix(root) ? String($0.path.dropFirst(root.count)) : $0.path }
        )
        result.outputs = context.outputs
        return result
    }

    /// How long a rollback may take before the rest is left to `shiplane rollback`.
    static let rollbackDeadline: Duration = .seconds(120)

    /// Rolls back in a task of its own: an interrupt cancels the lane, not its rollback (whose
    /// network undos would otherwise fail with a cancellation at once). Bounded by a deadline.
    static func rollBack(_ journal: Journal) async -> [RollbackEntry] {
        let work = Task.detached { await journal.rollback() }
        let deadline = Task.detached {
            try? await Task.sleep(for: rollbackDeadline)
            if !Task.isCancelled { work.cancel() }
        }
        let results = await work.value
        deadline.cancel()
        return results
    }

    /// True when the error, or any error under it, is a cancellation (an interrupt).
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let reportable = error as? any ReportableError {
            return reportable.underlyingErrors.contains(where: isCancellation)
        }
        return false
    }
}
