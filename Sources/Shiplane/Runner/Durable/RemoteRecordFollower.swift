import Foundation
internal import Git

/// Sends the run's record with the push that passes the point of no return (staged as
/// `refs/shiplane/run` and carried in the same push), then keeps the record on the remote following
/// the run: after each finished step, so a fresh clone replays what was done — a published release, a
/// sent message — instead of doing it again; and within a step when an effect is under way (a
/// message about to go, a multipart upload begun), so a retry in a fresh clone knows it may have
/// happened: it keeps the step's delivery rule instead of sending blind, or continues the upload.
/// A failure to update it is a warning, not an error.
///
/// What the remote makes of the carried record is handled here too (`carriedPushSettled`): a
/// refused record is forgotten with a warning; a push that landed in part has the remote's record
/// rewritten to say so; a push that published nothing (refused whole, or an earlier attempt that
/// never landed) has the record withdrawn from both sides.
struct RemoteRecordFollower: RunObserving {
    func stepFinished(_ record: StepRecord, replayed: Bool, carriedRefs: Bool, in lane: LaneContext) {
        guard !replayed, !carriedRefs else { return }
        publish(in: lane, consequence: "a retry on a fresh clone may repeat the step after the push")
    }

    func carriedPushSettled(_ push: CarriedPush, in step: StepContext) {
        let lane = step.lane, remote = push.remote
        let recorder = lane.state.journal.recorder
        let reference = RemoteRunRecord.reference(scope: recorder?.current.packageScope)
        let accepted = push.accepted.contains(reference)
        let refusal = push.refused[reference]
        if refusal != nil { recorder?.remoteRefusedRecord() }
        switch push.release {
        case .landed:
            if let refusal {
                step.log("\(remote) refused the run record \(reference) (\(refusal)): a retry on a fresh clone will not find this run", level: .warning)
            }
        case .partlyLanded:
            guard accepted, let recorder else { return }
            do {
                try RemoteRunRecord.publish(recorder, in: try lane.repository(), remote: remote, environment: lane.environment)
            } catch {
                step.log("could not correct the run record on \(remote): \(describe(error)); it may name refs \(remote) refused", level: .warning)
            }
        case .withdrawn:
            if accepted, let runID = recorder?.current.id {
                if let warning = RemoteRunRecord.remove(workTree: lane.workingDirectory, remote: remote, environment: lane.environment, runID: runID) {
                    step.log(warning, level: .warning)
                }
            } else {
                deleteLocalCopy(reference, in: lane)
            }
        case .takenBack:
            if let runID = recorder?.current.id {
                if let warning = TakenBackRecord.remember(runID: runID, remote: remote, record: reference, workTree: lane.workingDirectory) {
                    step.log(warning, level: .warning)
                }
            }
            // Only this run's record goes; one another run put there stays (`remove` compares and swaps).
            if let runID = recorder?.current.id,
               let warning = RemoteRunRecord.remove(workTree: lane.workingDirectory, remote: remote, environment: lane.environment, runID: runID) {
                step.log(warning, level: .warning)
            } else {
                deleteLocalCopy(reference, in: lane)
            }
        }
    }

    private func deleteLocalCopy(_ reference: String, in lane: LaneContext) {
        guard let repository = try? lane.repository() else { return }
        try? git { try repository.deleteReference(reference) }
    }

    func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String] {
        guard let recorder = lane.state.journal.recorder else { return [] }
        try RemoteRunRecord.stage(recorder, in: try lane.repository(), pointOfNoReturn: reason, remote: remote, environment: lane.environment)
        let reference = RemoteRunRecord.reference(scope: recorder.current.packageScope)
        return ["+\(reference):\(reference)"]
    }

    func effectUnderWay(_ what: String, in lane: LaneContext) {
        publish(in: lane, consequence: "a retry on a fresh clone may not know of it", before: " with \(what)")
    }

    private func publish(in lane: LaneContext, consequence: String, before: String = "") {
        guard !lane.isDryRun, let recorder = lane.state.journal.recorder,
              let remote = recorder.current.remoteRecord, recorder.isPastPointOfNoReturn else { return }
        do {
            try RemoteRunRecord.publish(recorder, in: try lane.repository(), remote: remote, environment: lane.environment)
        } catch {
            lane.log("could not update the run record on \(remote)\(before): \(describe(error)); \(consequence)", level: .warning)
        }
    }
}

/// Kills the run once step N is recorded as finished, when `SHIPLANE_FAULT` plans it (`FaultInjection`).
struct PlannedFault: RunObserving {
    func stepFinished(_ record: StepRecord, replayed: Bool, carriedRefs: Bool, in lane: LaneContext) {
        FaultInjection.reached(.afterStep, record.number)
    }
}
