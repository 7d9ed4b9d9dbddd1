import Foundation
internal import Git

/// Finds the nearest release tag reachable from HEAD.
package struct LastGitTag: Action {
    /// The action's name in steps and reports.
    package static let name = "lastGitTag"
    /// Whether prerelease tags (`v2.0.0-rc.1`) count as releases.
    package var includePrereleases: Bool

    /// Returns the tag's name, or nil when no release tag is reachable.
    /// - Throws: `RepositoryProblem` for a shallow clone or no commits; `GitFailure`.
    package func run(in step: StepContext) throws -> String? {
        let tag = try step.lane.lastReleaseTag(includePrereleases: includePrereleases)
        step.note(tag?.name ?? "none")
        return tag?.name
    }
}

extension LaneContext {
    /// The nearest release tag reachable from HEAD (a SemVer name, `v` optional), or nil.
    public func lastGitTag(includePrereleases: Bool = true, file: String = #fileID, line: Int = #line) throws -> String? {
        try run(LastGitTag(includePrereleases: includePrereleases), file: file, line: line)
    }
}

extension LastGitTag: DocumentedAction {
    /// How `lane.lastGitTag` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git", summary: "The nearest release tag (SemVer name, v optional) reachable from HEAD",
        signature: "try lane.lastGitTag(includePrereleases: Bool = true) -> String?", parameters: [.init(name: "includePrereleases", type: "Bool", defaultValue: "true", help: "count v1.2.0-rc.1 as a release")],
        example: "let previous = try lane.lastGitTag()", dryRun: "runs", rollback: "nothing to undo"
    )
}
