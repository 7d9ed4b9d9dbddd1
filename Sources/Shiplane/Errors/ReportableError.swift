import Foundation

/// An error that can explain itself: a one-line message, facts, what to do next, and its causes.
///
/// Every error Shiplane shows to a person conforms. The CLI renders the tree (`allErrors`) for
/// people, JSON for tools and JUnit for CI, and maps the error to an exit code in one place.
public protocol ReportableError: Error, CustomStringConvertible {
    /// What went wrong, in one line, without a trailing period.
    var message: String { get }
    /// Facts that help: file paths, versions, refs, HTTP statuses. Ordered as they should print.
    var info: [(key: String, value: String)] { get }
    /// What the user can do about it, when that is known ("set GITHUB_TOKEN").
    var suggestion: String? { get }
    /// The errors this one wraps or aggregates.
    var underlyingErrors: [any Error] { get }
    /// What kind of failure this is; the exit code is folded from the categories of the tree.
    var category: ErrorCategory { get }
}

extension ReportableError {
    /// No facts, unless the error has some to tell.
    public var info: [(key: String, value: String)] { [] }
    /// No suggestion, unless the error knows what to do.
    public var suggestion: String? { nil }
    /// No causes, unless the error wraps some.
    public var underlyingErrors: [any Error] { [] }
    /// A plain failure, unless the error says otherwise.
    public var category: ErrorCategory { .failure }
    /// The error's message, so `String(describing:)` and interpolation show it.
    public var description: String { message }

    /// True when the error is a defect in Shiplane rather than a mistake or a condition the user
    /// can fix; such errors are shown with the details needed for a bug report.
    public var isBug: Bool { category == .defect }

    /// This error followed by every error beneath it, depth first.
    public var allErrors: [any Error] {
        var result: [any Error] = [self]
        for error in underlyingErrors {
            if let reportable = error as? any ReportableError {
                result.append(contentsOf: reportable.allErrors)
            } else {
                result.append(error)
            }
        }
        return result
    }
}

/// A plain error with a message, facts and a suggestion; for failures that need no type of their own.
public struct ShiplaneError: ReportableError {
    /// What went wrong, in one line.
    public var message: String
    /// Facts that help, in the order they should print.
    public var info: [(key: String, value: String)]
    /// What the user can do about it, if known.
    public var suggestion: String?
    /// The errors this one wraps.
    public var underlyingErrors: [any Error]

    /// Creates an error with a message and, optionally, facts, a suggestion and its causes.
    public init(
        _ message: String,
        info: [(key: String, value: String)] = [],
        suggestion: String? = nil,
        underlying: [any Error] = []
    ) {
        self.message = message
        self.info = info
        self.suggestion = suggestion
        self.underlyingErrors = underlying
    }
}
