import Foundation

extension LaneContext {
    /// A failure summary for an `onError` hook, redacted: where the lane failed, why, and what
    /// rollback did — as text.
    public func failureSummary(_ failure: LaneFailure) -> String {
        FailureNotification(failure).text(redactor: redactor)
    }

    /// The same summary as a notification: Slack blocks (`slackMessage`), template values, text.
    public func failureNotification(_ failure: LaneFailure) -> FailureNotification {
        FailureNotification(failure)
    }
}
