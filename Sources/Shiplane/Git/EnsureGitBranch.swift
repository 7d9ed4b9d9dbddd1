import Foundation
internal import Git

/// Fails unless the current branch's whole name matches a regular expression.
///
/// Unlike fastlane's `ensure_git_branch`, the pattern is anchored: `main` matches `main` and not
/// `main-old`; write `main|release/.+` for alternatives. On a detached HEAD (as CI checks out),
/// the branch is the one the release goes to: `lane.onBranch(_:)` (`--branch`), else the CI's
/// variables (see `LaneEnvironment.ciBranch`).
package struct EnsureGitBranch: Action {
    /// The action's name in steps and reports.
    package static let name = "ensureGitBranch"
    /// An ICU regular expression matched against the whole branch name.
    package var pattern: String

    /// Creates the check that the current branch's whole name matches `pattern`.
    package init(matching pattern: String) {
        self.pattern = pattern
    }

    /// The pattern.
    package var options: [StepOption] { [StepOption("matching", pattern)] }

    /// Returns the branch name that matched.
    package func run(in step: StepContext) throws -> String {
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: "^(?:\(pattern))$")
        } catch {
            throw ValidationFailure(
                problems: ["invalid regular expression for the branch: \(pattern)"],
                suggestion: "write an ICU regular expression, e.g. \"main|release/.+\""
            )
        }
        let repository = try step.lane.repository()
        let head = try git { try repository.head() }
        if case .unborn(let name) = head { throw RepositoryProblem.noCommits(branch: name) }
        let release = try step.lane.releaseBranch(for: head)
        let (branch, source) = (release.name, release.source)
        let range = NSRange(branch.startIndex..., in: branch)
        guard regex.firstMatch(in: branch, range: range) != nil else {
            throw ShiplaneError(
                "branch \(branch) does not match \(pattern)",
                info: [("branch", branch), ("read from", source), ("pattern", "^(?:\(pattern))$ (whole name)")],
                suggestion: "switch to a matching branch, or change the pattern in the lane"
            )
        }
        // On a detached HEAD, say where the branch came from: which CI Shiplane thinks it is in.
        step.note(release.isDetached ? "\(branch) (HEAD detached; read from \(source))" : branch)
        return branch
    }
}

extension LaneContext {
    /// Fails unless the current branch's whole name matches `pattern`; returns the branch.
    @discardableResult
    public func ensureGitBranch(matching pattern: String, file: String = #fileID, line: Int = #line) throws -> String {
        try run(EnsureGitBranch(matching: pattern), file: file, line: line)
    }
}

extension EnsureGitBranch: DocumentedAction {
    /// How `lane.ensureGitBranch` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Fail unless the current branch's whole name matches a regular expression",
        signature: "try lane.ensureGitBranch(matching pattern: String) -> String",
        parameters: [.init(name: "matching", type: "String", defaultValue: nil, help: "ICU regular expression matched against the WHOLE branch name (anchored, unlike fastlane's)")],
        example: #"try lane.ensureGitBranch(matching: "main|release/.+")"#,
        dryRun: "runs (it only reads)", rollback: "nothing to undo"
    )
}
