import Foundation
internal import Git

/// Counts the commits reachable from HEAD.
package struct NumberOfCommits: Action {
    /// The action's name in steps and reports.
    package static let name = "numberOfCommits"

    /// Returns the number of commits reachable from HEAD.
    /// - Throws: `RepositoryProblem` for a shallow clone or no commits; `GitFailure`.
    package func run(in step: StepContext) throws -> Int {
        let count = try step.lane.commitCount()
        step.note("\(count)")
        return count
    }
}

extension LaneContext {
    /// The number of commits reachable from HEAD.
    public func numberOfCommits(file: String = #fileID, line: Int = #line) throws -> Int {
        try run(NumberOfCommits(), file: file, line: line)
    }
}

extension NumberOfCommits: DocumentedAction {
    /// How `lane.numberOfCommits` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git", summary: "The number of commits reachable from HEAD",
        signature: "try lane.numberOfCommits() -> Int", parameters: [],
        example: "let count = try lane.numberOfCommits()", dryRun: "runs", rollback: "nothing to undo"
    )
}
