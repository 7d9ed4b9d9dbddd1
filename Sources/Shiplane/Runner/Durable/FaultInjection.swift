import Foundation

/// Kills the run at a chosen moment, for the tests and `Scripts/faults` that prove a run killed
/// anywhere ends rolled back or resumable: `SHIPLANE_FAULT` is `after-step:N` (once step N is
/// recorded as finished), `before-effect:N` (once the Nth effect is recorded as about to happen)
/// or `after-effect:N` (once it is recorded as done). The process group gets SIGKILL, as a
/// cancelled CI job's would. Unset, nothing happens.
struct FaultInjection: Sendable {
    enum Moment: String, Sendable { case afterStep = "after-step", beforeEffect = "before-effect", afterEffect = "after-effect" }

    let moment: Moment
    let count: Int

    static let planned: FaultInjection? = {
        guard let text = ProcessInfo.processInfo.environment["SHIPLANE_FAULT"] else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let moment = Moment(rawValue: String(parts[0])), let count = Int(parts[1]) else { return nil }
        return FaultInjection(moment: moment, count: count)
    }()

    /// Kills the process group when `moment` number `count` has come.
    static func reached(_ moment: Moment, _ count: Int) {
        guard let planned, planned.moment == moment, planned.count == count else { return }
        kill(0, SIGKILL)
    }
}
