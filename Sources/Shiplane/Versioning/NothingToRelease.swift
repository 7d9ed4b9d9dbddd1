import Foundation

/// No commit since the last release would change the version.
public struct NothingToRelease: ReportableError {
    public var lastTag: String?
    public var commitCount: Int
    /// The commit types that release (`feat, fix or perf` by default).
    public var releasingTypes: String

    public init(lastTag: String?, commitCount: Int, releasingTypes: String = "feat, fix or perf") {
        self.lastTag = lastTag
        self.commitCount = commitCount
        self.releasingTypes = releasingTypes
    }

    public var message: String {
        let since = lastTag.map { "since \($0)" } ?? "in the history"
        if commitCount == 0 { return "no commits \(since): nothing to release" }
        return "no releasable commits \(since): none of the \(commitCount) commit\(commitCount == 1 ? " is" : "s is") a \(releasingTypes) commit or a breaking change"
    }

    public var category: ErrorCategory { .nothingToDo }

    public var suggestion: String? { "pass a level (major, minor, patch) to release anyway, or commit a conventional feat/fix first" }
}
