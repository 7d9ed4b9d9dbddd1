import Foundation

/// What a changelog does with merge commits.
public enum MergeCommits: String, Sendable, CaseIterable, ExpressibleByArgument {
    /// Leave them out (the default, as conventional-changelog tools do: the merged commits speak).
    case exclude
    /// Keep them, shown under their type like any commit.
    case include
    /// Only merge commits (for projects that describe changes in pull-request merges).
    case only
}
