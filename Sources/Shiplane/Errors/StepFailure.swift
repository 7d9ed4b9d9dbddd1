/// An action that failed, with the line of the lane file that called it and the cause.
public struct StepFailure: ReportableError {
    public var step: String
    public var callSite: CallSite?
    public var cause: any Error

    public init(step: String, callSite: CallSite?, cause: any Error) {
        self.step = step
        self.callSite = callSite
        self.cause = cause
    }

    public var message: String {
        if let callSite { return "\(step) failed at \(callSite)" }
        return "\(step) failed"
    }

    public var underlyingErrors: [any Error] { [cause] }
}

/// A lane that did not complete: the failing step (or plain error), and what rollback did.
public struct LaneFailure: ReportableError {
    public var lane: String
    public var causes: [any Error]
    public var rollback: [RollbackEntry]
    public var interrupted: Bool
    /// When the run stopped past its point of no return, what passed it (`pushed main, v1.5.0 to
    /// origin`): nothing was undone, and `shiplane resume` finishes the run.
    public var pointOfNoReturn: String?

    public init(
        lane: String, causes: [any Error], rollback: [RollbackEntry] = [], interrupted: Bool = false,
        pointOfNoReturn: String? = nil
    ) {
        self.lane = lane
        self.causes = causes
        self.rollback = rollback
        self.interrupted = interrupted
        self.pointOfNoReturn = pointOfNoReturn
    }

    public var message: String {
        let what = interrupted ? "lane \(lane) was interrupted" : "lane \(lane) failed"
        guard pointOfNoReturn != nil else { return what }
        return what + " past its point of no return: nothing was undone, the release is unfinished"
    }

    public var suggestion: String? {
        guard pointOfNoReturn != nil else { return nil }
        return "run `shiplane resume` (or the same command again) to finish it; `shiplane rollback` undoes what can still be undone and lists what stays"
    }

    public var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = []
        if let pointOfNoReturn { facts.append(("point of no return", pointOfNoReturn)) }
        let undone = rollback.filter(\.undone)
        let kept = rollback.filter { !$0.undone }
        if !undone.isEmpty { facts.append(("rolled back", undone.map(\.description).joined(separator: "; "))) }
        for entry in kept { facts.append(("could not roll back", "\(entry.description): \(entry.error ?? "unknown")")) }
        return facts
    }

    public var underlyingErrors: [any Error] { causes }

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
public struct ThrownError: ReportableError {
    public var error: any Error
    public var callSite: CallSite?

    public init(_ error: any Error, callSite: CallSite? = nil) {
        self.error = error
        self.callSite = callSite
    }

    public var message: String { "the lane threw \(type(of: error)): \(describe(error))" }
}

/// Options that did not pass a lane's or an action's checks; every problem is listed at once.
public struct ValidationFailure: ReportableError {
    public var problems: [String]
    public var suggestion: String?

    public init(problems: [String], suggestion: String? = nil) {
        self.problems = problems
        self.suggestion = suggestion
    }

    public var category: ErrorCategory { .usage }

    public var message: String {
        problems.count == 1 ? problems[0] : "\(problems.count) problems:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
