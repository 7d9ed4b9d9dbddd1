import Foundation

/// Origin holds the unfinished run of this very command, at this checkout's commit: the run
/// stops before its first effect (it changed nothing) and the command starts again as that run's
/// resume, so a fresh clone finishes the release instead of making a second one.
///
/// Thrown by the check the command sets with `Journal.holdFirstEffect(until:)`; `LaneRunner`
/// settles such a run quietly (no rollback, no `onError` hooks) for the command to restart.
package struct ResumingFromOrigin: ReportableError {
    /// The record found on origin, rebased onto this checkout.
    package var record: RunRecord

    /// Creates the stop for `record`.
    package init(record: RunRecord) {
        self.record = record
    }

    /// Says what was found and that nothing here was changed.
    package var message: String {
        "origin holds the unfinished run of `\(record.commandLine)` (\(RemoteRunRecord.reference)): " + Self.ending
    }

    /// How the message ends: a step stopped with it did not fail (the reporter shows it so).
    package static let ending = "this attempt changed nothing and resumes it"

    /// An unfinished run decides what happens next.
    package var category: ErrorCategory { .unfinished }
}

extension LaneFailure {
    /// The unfinished run on origin this run stopped for, to be resumed, when that is why it stopped.
    package var resumingFromOrigin: ResumingFromOrigin? {
        causes.lazy.compactMap { $0 as? ResumingFromOrigin }.first
    }
}
