import Foundation

/// No commit since the last release would change the version.
package struct NothingToRelease: ReportableError {
    /// The last release tag, or nil when there is none.
    package var lastTag: String?
    /// How many commits were looked at.
    package var commitCount: Int
    /// The commit types that release (`feat, fix or perf` by default).
    package var releasingTypes: String

    /// Creates the error for the commits since `lastTag`.
    package init(lastTag: String?, commitCount: Int, releasingTypes: String = "feat, fix or perf") {
        self.lastTag = lastTag
        self.commitCount = commitCount
        self.releasingTypes = releasingTypes
    }

    /// Says that no commit, or none of the commits, calls for a release.
    package var message: String {
        let since = lastTag.map { "since \($0)" } ?? "in the history"
        if commitCount == 0 { return "no commits \(since): nothing to release" }
        return "no releasable commits \(since): none of the \(commitCount) commit\(commitCount == 1 ? " is" : "s is") a \(releasingTypes) commit or a breaking change"
    }

    /// Nothing to do: nothing was changed.
    package var category: ErrorCategory { .nothingToDo }

    /// Pass a level, or commit a releasable change first.
    package var suggestion: String? { "pass a level (major, minor, patch) to release anyway, or commit a conventional feat/fix first" }
}
