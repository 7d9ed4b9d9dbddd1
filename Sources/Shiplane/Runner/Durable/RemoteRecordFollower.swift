import Foundation

/// Sends the run's record with the push that passes the point of no return (staged as
/// `refs/shiplane/run` and carried in the same push), then keeps the record on the remote following
/// the run: after each finished step, so a fresh clone replays what was done — a published release, a
/// sent message — instead of doing it again; and before a message goes, so a retry in a fresh
/// clone knows it may have been sent and keeps the step's delivery rule instead of sending it
/// blind. A failure to update it is a warning, not an error.
struct RemoteRecordFollower: RunObserving {
    func stepFinished(_ record: StepRecord, replayed: Bool, carriesRecord: Bool, in lane: LaneContext) {
        guard !replayed, !carriesRecord else { return }
        publish(in: lane, consequence: "a retry on a fresh clone may repeat the step after the push")
    }

    func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String] {
        guard let recorder = lane.state.journal.recorder else { return [] }
        try RemoteRunRecord.stage(recorder, in: try lane.repository(), pointOfNoReturn: reason, remote: remote, environment: lane.environment)
        let reference = RemoteRunRecord.reference(scope: recorder.current.packageScope)
        return ["+\(reference):\(reference)"]
    }

    func messageAboutToGo(in lane: LaneContext) {
        publish(in: lane, consequence: "a retry on a fresh clone may send it again", before: " before the message")
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
    func stepFinished(_ record: StepRecord, replayed: Bool, carriesRecord: Bool, in lane: LaneContext) {
        FaultInjection.reached(.afterStep, record.number)
    }
}
