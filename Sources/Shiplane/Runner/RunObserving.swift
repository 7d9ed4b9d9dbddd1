import Foundation

/// Hears a run at the moments that durability and fault injection care about — a step finished
/// and recorded, an effect under way that a retry must know of — so that the runner and the lane
/// context name neither.
package protocol RunObserving: Sendable {
    /// Step `record` finished and its result is in the run's record. `replayed`: a resumed run
    /// handed back what its earlier process recorded; `carriedRefs`: the step's own push carried
    /// what the observers gave it (`CarriesObserversRefs`).
    func stepFinished(_ record: StepRecord, replayed: Bool, carriedRefs: Bool, in lane: LaneContext)
    /// Within a step, an effect that a retry elsewhere must know of is written down in the record
    /// (`what`: a message about to go, a multipart upload begun): the record leaves this machine now.
    func effectUnderWay(_ what: String, in lane: LaneContext)
    /// A push of the release branch is about to pass the run's point of no return (`reason`):
    /// the refspecs to send in the same push (the run's record, so any clone finds it).
    /// - Throws: when what must go with the push cannot be made ready (the push does not start).
    func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String]
    /// A push that passed the run's point of no return, or an earlier attempt of it, is settled
    /// (`push.release`), and with it what the remote made of the refs carried for the observers
    /// (`refspecsToCarry`): each observer takes care of its own (corrects or withdraws them).
    /// Heard by the pushing step, after its own effect is settled; never throws (the release is settled).
    func carriedPushSettled(_ push: CarriedPush, in step: StepContext)
}

extension RunObserving {
    package func effectUnderWay(_ what: String, in lane: LaneContext) {}
    package func refspecsToCarry(pushing reason: String, to remote: String, in lane: LaneContext) throws -> [String] { [] }
    package func carriedPushSettled(_ push: CarriedPush, in step: StepContext) {}
}

/// What became of a push that carried refs for the run's observers, and of those refs.
package struct CarriedPush: Sendable {
    /// What became of the release's own refs.
    package enum Release: Sendable {
        /// The remote took every one.
        case landed
        /// The remote took some: the run is past its point of no return for those only.
        case partlyLanded
        /// The remote took none: nothing was published, the point of no return is taken back and the run rolls back.
        case withdrawn
        /// An earlier attempt of the push, cut short before the remote answered, never landed
        /// (`UnlandedPush`): taken back as not having happened (the run rolls back). What it carried is unknown.
        case takenBack(UnlandedPush)
    }

    package var release: Release
    /// The remote's name.
    package var remote: String
    /// The carried refs the remote took.
    package var accepted: [String] = []
    /// The carried refs the remote refused, each with its reason.
    package var refused: [String: String] = [:]
}

/// An action whose step carries the run's observers' refs to the remote in its own push (the
/// same transaction), so nothing sends them again after that step.
package protocol CarriesObserversRefs {}

/// The observers of every run, in the order they hear each moment: the remote's copy of the record
/// follows the run first, then a planned fault fires ("once step N is recorded as finished, here
/// and on the remote").
package enum RunObservers {
    package static let standard: [any RunObserving] = [RemoteRecordFollower(), PlannedFault()]
}
