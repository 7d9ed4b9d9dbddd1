import Foundation

extension LaneContext {
    /// A failure summary for an `onError` hook, redacted: where the lane failed and why.
    public func failureSummary(_ failure: LaneFailure) -> String {
        var lines = ["\(failure.message)"]
        if let step = failure.failingStep {
            lines.append("at \(step.callSite?.description ?? step.step): \(describe(step.cause))")
        }
        let undone = failure.rollback.filter(\.undone).map(\.description)
        if !undone.isEmpty { lines.append("rolled back: " + undone.joined(separator: "; ")) }
        return SecretRedactor(secrets: Array(environment.secretValues)).redact(lines.joined(separator: "\n"))
    }
}
