import Foundation
internal import Git

/// Counts the commits reachable from HEAD.
public struct NumberOfCommits: Action {
    public static let name = "numberOfCommits"

    public func run(in step: StepContext) throws -> Int {
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
    public static let documentation = ActionDocumentation(
        domain: "Git", summary: "The number of commits reachable from HEAD",
        signature: "try lane.numberOfCommits() -> Int", parameters: [],
        example: "let count = try lane.numberOfCommits()", dryRun: "runs", rollback: "nothing to undo"
    )
}
