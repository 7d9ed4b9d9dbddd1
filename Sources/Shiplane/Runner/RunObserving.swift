import Foundation

/// Hears a run at the moments that durability and fault injection care about — a step finished
/// and recorded, a message about to go — so that the runner and the lane context name neither.
package protocol RunObserving: Sendable {
    /// Step `record` finished and its result is in the run's record. `replayed`: a resumed run
    /// handed back what its earlier process recorded; `carriesRecord`: the step took the record to
    /// the remote itself (`CarriesRunRecord`).
    func stepFinished(_ record: StepRecord, replayed: Bool, carriesRecord: Bool, in lane: LaneContext)
    /// A message is about to go out (`deliverOnce`), written down in the record as intended.
    func messageAboutToGo(in lane: LaneContext)
    /// A push of the release branch is about to pass the run's point of no return (`reason`):
    /// the refspecs to send in the same push (the run's record, so any clone finds it).
    /// - Throws: when what must go with the push cannot be made ready (the push does not start).
    func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String]
}

extension RunObserving {
    package func messageAboutToGo(in lane: LaneContext) {}
    package func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String] { [] }
}

/// An action whose step takes the run's record to the remote itself (a push carries it in the
/// same transaction), so nothing publishes the record again after that step.
package protocol CarriesRunRecord {}

/// The observers of every run, in the order they hear each moment: the remote's copy of the record
/// follows the run first, then a planned fault fires ("once step N is recorded as finished, here
/// and on the remote").
package enum RunObservers {
    package static let standard: [any RunObserving] = [RemoteRecordFollower(), PlannedFault()]
}
