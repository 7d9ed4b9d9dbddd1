/// An action that failed, with the line of the lane file that called it and the cause.
public struct StepFailure: ReportableError {
    /// The name of the step that failed (`ensureGitBranch`, or `lane <name>` for a lane it called).
    public var step: String
    /// Where the lane file called the action, when known.
    public var callSite: CallSite?
    /// The error the action threw.
    public var cause: any Error

    /// Creates the failure of `step`, called at `callSite`, caused by `cause`.
    package init(step: String, callSite: CallSite?, cause: any Error) {
        self.step = step
        self.callSite = callSite
        self.cause = cause
    }

    /// The step and, when known, the lane file line that called it.
    public var message: String {
        if let callSite { return "\(step) failed at \(callSite)" }
        return "\(step) failed"
    }

    /// The cause, as the one error beneath this one.
    public var underlyingErrors: [any Error] { [cause] }
}

/// A lane that did not complete: the failing step (or plain error), and what rollback did.
public struct LaneFailure: ReportableError {
    /// The name of the lane.
    public var lane: String
    /// The errors that stopped the lane.
    public var causes: [any Error]
    /// What rollback did with each undo the run had registered.
    public var rollback: [RollbackEntry]
    /// True when a signal or a cancelled task stopped the lane.
    public var interrupted: Bool
    /// When the run stopped past its point of no return, what passed it (`pushed main, v1.5.0 to
    /// origin`): nothing was undone, and `shiplane resume` finishes the run.
    public var pointOfNoReturn: String?

    /// Creates the failure of `lane` with its causes and, optionally, what rollback did.
    package init(
        lane: String, causes: [any Error], rollback: [RollbackEntry] = [], interrupted: Bool = false,
        pointOfNoReturn: String? = nil
    ) {
        self.lane = lane
        self.causes = causes
        self.rollback = rollback
        self.interrupted = interrupted
        self.pointOfNoReturn = pointOfNoReturn
    }

    /// Says whether the lane failed or was interrupted, and whether it stopped past its point of no return.
    public var message: String {
        let what = interrupted ? "lane \(lane) was interrupted" : "lane \(lane) failed"
        guard pointOfNoReturn != nil else { return what }
        return what + " past its point of no return: nothing was undone, the release is unfinished"
    }

    /// Past the point of no return, how to finish or undo the run; otherwise nil.
    public var suggestion: String? {
        guard pointOfNoReturn != nil else { return nil }
        return "run `shiplane resume` (or the same command again) to finish it; `shiplane rollback` undoes what can still be undone and lists what stays"
    }

    /// The point of no return, what was rolled back, and each undo that failed with its reason.
    public var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = []
        if let pointOfNoReturn { facts.append(("point of no return", pointOfNoReturn)) }
        let undone = rollback.filter(\.undone)
        let kept = rollback.filter { !$0.isSettled }
        if !undone.isEmpty { facts.append(("rolled back", undone.map(\.description).joined(separator: "; "))) }
        for entry in rollback where entry.stays == true { facts.append(("stays", entry.error ?? entry.description)) }
        for entry in kept { facts.append(("could not roll back", "\(entry.description): \(entry.error ?? "unknown")")) }
        return facts
    }

    /// The causes.
    public var underlyingErrors: [any Error] { causes }

    /// Resumable past the point of no return, else interrupted or a plain failure.
    public var category: ErrorCategory {
        if pointOfNoReturn != nil { return .resumable }
        return interrupted ? .interrupted : .failure
    }

    /// The deepest step failure in the tree: where the lane file went wrong.
    public var failingStep: StepFailure? {
        var found: StepFailure?
        func visit(_ error: any Error) {
            if let step = error as? StepFailure { found = step }
            if let reportable = error as? any ReportableError { reportable.underlyingErrors.forEach(visit) }
        }
        causes.forEach(visit)
        return found
    }
}

/// A plain Swift error thrown by lane code: wrapped so its text and type are not lost.
package struct ThrownError: ReportableError {
    /// The error the lane threw.
    package var error: any Error
    /// Where the lane file threw it, when known.
    package var callSite: CallSite?

    /// Wraps `error`, thrown at `callSite`.
    package init(_ error: any Error, callSite: CallSite? = nil) {
        self.error = error
        self.callSite = callSite
    }

    /// Names the thrown error's type and describes it.
    package var message: String { "the lane threw \(type(of: error)): \(describe(error))" }
}

/// Options that did not pass a lane's or an action's checks; every problem is listed at once.
public struct ValidationFailure: ReportableError {
    /// Each problem found, as one line.
    public var problems: [String]
    /// What to do about them, if known.
    public var suggestion: String?

    /// Creates a failure listing every problem at once.
    public init(problems: [String], suggestion: String? = nil) {
        self.problems = problems
        self.suggestion = suggestion
    }

    /// A usage mistake.
    public var category: ErrorCategory { .usage }

    /// The one problem, or the count followed by each problem on its own line.
    public var message: String {
        problems.count == 1 ? problems[0] : "\(problems.count) problems:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
