/// What kind of failure an error is. The command line folds the categories of a whole error tree
/// into one exit code, so a defect or an interrupt deep inside a lane still decides the code.
///
/// Ordered by precedence: when a tree holds several, the highest wins (an interrupt over a
/// defect over a usage mistake … over a plain failure).
public enum ErrorCategory: Int, Sendable, Comparable, CaseIterable, Codable {
    /// Something went wrong while running; what the run changed was rolled back (exit 1).
    case failure
    /// Nothing to do: no releasable commit since the last release; nothing was changed (exit 5).
    case nothingToDo
    /// The environment is not usable: no repository, no `Lanes/`, a missing tool (exit 4).
    case environment
    /// The lanes do not compile (exit 3).
    case compile
    /// The command line, an option or an action's arguments are wrong (exit 2).
    case usage
    /// A defect in Shiplane itself, not a mistake the user can fix (exit 70).
    case defect
    /// The run was interrupted: a signal, or a cancelled task (exit 130).
    case interrupted
    /// Another run holds the repository's lock (exit 6).
    case locked
    /// An earlier run in this repository is unfinished: resume it or roll it back first (exit 7).
    case unfinished
    /// The run stopped past its point of no return; `shiplane resume` finishes it (exit 75).
    case resumable

    /// Orders categories by precedence: the higher one wins when a tree is folded.
    public static func < (lhs: ErrorCategory, rhs: ErrorCategory) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The category of an error tree: the highest category of the error and everything beneath it.
    package static func folded(_ error: any Error) -> ErrorCategory {
        if error is CancellationError { return .interrupted }
        guard let reportable = error as? any ReportableError else { return .failure }
        return reportable.underlyingErrors.reduce(reportable.category) { max($0, folded($1)) }
    }
}
