import Foundation

/// Kills the run at a chosen moment, for the tests and `Scripts/faults` that prove a run killed
/// anywhere ends rolled back or resumable: `SHIPLANE_FAULT` is `after-step:N` (once step N is
/// recorded as finished, here and on the remote), `before-effect:N` (once the Nth effect is recorded as about to happen)
/// or `after-effect:N` (once it is recorded as done), `after-saved-copy:N` (once the Nth saved copy
/// is written, before the intent that names it is), optionally followed by `:TERM` or `:INT`.
/// The process group gets SIGKILL, as a cancelled CI job's would, or the signal named, which the
/// run handles as it handles one from outside. Unset, nothing happens.
struct FaultInjection: Sendable {
    enum Moment: String, Sendable {
        case afterStep = "after-step", beforeEffect = "before-effect", afterEffect = "after-effect", afterSavedCopy = "after-saved-copy"
    }

    let moment: Moment
    let count: Int
    let signal: Int32

    static let planned: FaultInjection? = {
        guard let text = ProcessEnvironment.value("SHIPLANE_FAULT") else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2 || parts.count == 3, let moment = Moment(rawValue: String(parts[0])), let count = Int(parts[1]) else { return nil }
        let signal: Int32 = parts.count == 3 ? (parts[2] == "TERM" ? SIGTERM : parts[2] == "INT" ? SIGINT : SIGKILL) : SIGKILL
        return FaultInjection(moment: moment, count: count, signal: signal)
    }()

    /// Kills the process group when `moment` number `count` has come.
    static func reached(_ moment: Moment, _ count: Int) {
        guard let planned, planned.moment == moment, planned.count == count else { return }
        kill(0, planned.signal)
        // A caught signal is handled on another thread: give it the moment a signal from outside
        // would have had, so it lands here and not a step later.
        if planned.signal != SIGKILL { usleep(300_000) }
    }
}
