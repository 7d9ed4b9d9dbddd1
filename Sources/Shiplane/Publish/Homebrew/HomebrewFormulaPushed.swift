import Foundation
internal import Git

/// A formula committed to a Homebrew tap and pushed: `commit` on top of `parent` on `branch`.
package struct HomebrewFormulaPushed: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "homebrew.formula"
    /// The tap's URL or path, with no credentials.
    package var tap: String
    package var branch: String
    /// The formula's path in the tap (`Formula/foo.rb`).
    package var path: String
    /// The tap's commit the formula commit sits on.
    package var parent: String
    /// The formula commit.
    package var commit: String

    package init(tap: String, branch: String, path: String, parent: String, commit: String) {
        self.tap = tap
        self.branch = branch
        self.path = path
        self.parent = parent
        self.commit = commit
    }

    /// Published where `brew update` reads it: stays once the run is past its point of no return.
    package var reach: EffectReach { .publication }

    /// Pushes a commit that puts `path` back as it was at `parent` (or removes it), on top of the
    /// formula commit while the tap's branch still ends with it: history is never rewritten, so
    /// a clone that fetched the formula fast-forwards. Nothing when the push never landed.
    /// - Throws: when the tap's branch moved on since (the formula is kept), or the tap refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let (clone, tip) = try await TapClone.fetch(tap, branch: branch, environment: context.environment)
        defer { clone.remove() }
        guard let tip, tip.hex != parent else { return }
        guard tip.hex == commit, let formulaCommit = ObjectID(hex: commit), let parentID = ObjectID(hex: parent) else {
            throw ShiplaneError("\(tap) \(branch) moved on after Shiplane's commit of \(path) (\(String(commit.prefix(7)))): the formula is kept",
                                suggestion: "revert it in the tap by hand if the release it names is not published")
        }
        let before = try clone.contents(path, at: parentID)
        let author = tapCommitSignature(clone.repository, environment: context.environment, role: .author)
        let committer = tapCommitSignature(clone.repository, environment: context.environment, role: .committer)
        _ = try clone.commit(path, contents: before, onTopOf: formulaCommit,
                             message: "Revert \(path): the release rolled back", author: author, committer: committer)
        let outcome = try await clone.push {}
        if !outcome.refused.isEmpty { throw clone.refusal(outcome, path: path) }
    }
}
