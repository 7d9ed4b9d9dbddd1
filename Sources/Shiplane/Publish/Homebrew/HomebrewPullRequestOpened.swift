import Foundation
internal import Git

/// A formula change proposed to a protected tap: `commit` pushed to `branch` of the tap and a pull
/// request (a merge request on GitLab) from it into `base` on `forge` (`api`, `repository`).
/// Written down before the push, and again before the proposal is opened (`number` nil until the
/// forge answers).
package struct HomebrewPullRequestOpened: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "homebrew.pull-request"
    /// The tap's URL or path, with no credentials.
    package var tap: String
    /// The API base the pull request was opened through.
    package var api: String
    /// The tap's repository on the forge, `owner/name` (a GitLab project path).
    package var repository: String
    /// The branch the pull request merges into.
    package var base: String
    /// The branch holding the formula commit (`shiplane/<name>-<version>`).
    package var branch: String
    /// The formula's path in the tap.
    package var path: String
    /// The branch's tip holding this run's formula.
    package var commit: String
    /// True when this run pushed the branch into being (its undo deletes it).
    package var madeBranch: Bool
    /// The pull request, once the forge answered; nil before (a kill in between: found by its branch).
    package var number: Int?
    /// The forge (`gitlab`, `gitea`); nil: GitHub (records written before other forges had this).
    package var forge: String?

    package init(tap: String, api: String, repository: String, base: String, branch: String, path: String, commit: String,
                 madeBranch: Bool, number: Int?, forge: String? = nil) {
        self.forge = forge
        self.tap = tap
        self.api = api
        self.repository = repository
        self.base = base
        self.branch = branch
        self.path = path
        self.commit = commit
        self.madeBranch = madeBranch
        self.number = number
    }

    /// An open pull request is undone through the API before the point of no return; once merged
    /// it is the tap's history.
    package var reach: EffectReach { .service }

    /// Closes the pull request while it is still open with this run's commit at its head, then
    /// deletes the branch while it still ends with that commit (compare and swap, both): a pull
    /// request someone merged, or a branch someone pushed to since, is kept and the rollback says so.
    /// - Throws: when either moved on, no token is set, or the forge or the tap refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let kind = ForgeKind(forge ?? ForgeKind.github.rawValue)
        guard let forgeType = kind.forge else { throw ShiplaneError("the pull request from \(branch) in \(repository) stays: no forge is named \(kind)") }
        let client: any ForgeProposals
        do {
            guard let made = try forgeType.proposals(server: api, repository: repository, variables: context.environment.variables,
                                                     transport: context.transport()) else {
                throw ShiplaneError("\(forgeType.displayName) has no pull requests")
            }
            client = made
        } catch {
            throw ShiplaneError("the pull request from \(branch) in \(repository) stays: \((error as? any ReportableError)?.message ?? "\(error)")",
                                suggestion: "set SHIPLANE_TAP_TOKEN (or the forge's token) so rollback can close it, or close it by hand")
        }
        try await client.closeAsLeft(number: number, branch: branch, base: base, commit: commit)
        guard madeBranch else { return }
        let (clone, _) = try await TapClone.fetch(tap, branch: base, environment: context.environment)
        defer { clone.remove() }
        let branchClone = TapClone(tap: clone.tap, branch: branch, credentials: clone.credentials, repository: clone.repository, folder: clone.folder)
        _ = try await branchClone.deleteBranch(expecting: commit)
    }
}
