import Foundation
internal import Git

/// A protected tap: the formula goes to a branch of its own and a pull request (GitHub, Gitea,
/// Bitbucket) or merge request (GitLab) through the forge contract's proposal operation (`ForgeProposals`), as
/// goreleaser's `brews.repository.pull_request` does.
///
/// The branch is named by the formula and version (`shiplane/<name>-<version>`), so a re-run finds
/// what an earlier one (or a killed one) made: a branch already holding the formula is not pushed
/// again, an open pull request from it is not opened again — then nothing is sent.
extension PublishHomebrewFormula {
    /// The branch a version's formula is proposed from.
    var pullRequestBranch: String { "shiplane/\(formula.name)-\(formula.version)" }

    /// Pushes the formula to its branch (or finds it there) and opens the pull request (or finds
    /// it open); returns the formula's Ruby source. `clone` holds the tap's `branch` at `base`.
    /// - Throws: `ShiplaneError` when no token is set, the forge refuses, or the tap refuses the branch.
    func proposeByPullRequest(_ text: String, clone: TapClone, base: ObjectID, in step: StepContext) async throws -> String {
        let bytes = Data(text.utf8)
        let path = formula.path
        let (forgeType, server, repositoryName) = try proposalTarget()
        guard let client = try forgeType.proposals(server: server, repository: repositoryName, variables: step.lane.environment.variables,
                                                   transport: step.httpTransport()) else {
            throw ShiplaneError("\(forgeType.displayName) has no pull requests Shiplane can open: the tap's formula cannot be proposed there",
                                suggestion: "push to the tap's branch (pullRequest: false), or host the tap on GitHub, GitLab, Gitea or Bitbucket; nothing was sent")
        }
        let repository = client.repository
        let noun = client.noun
        // Preflight, a dry run too: the token reaches the repository.
        try await client.checkAccess()
        let name = pullRequestBranch
        let (branchClone, tip) = try await clone.fetchBranch(name)
        let open = try await client.openProposals(branch: name, base: branch).first

        var effect = HomebrewPullRequestOpened(
            tap: tap, api: client.api, repository: repository, base: branch, branch: name, path: path,
            commit: tip?.hex ?? "", madeBranch: false, number: open?.number, forge: forgeType.kind == .github ? nil : forgeType.kind.rawValue)
        var handle: EffectHandle?
        var sent: [String] = []
        let runID = step.lane.state.journal.recorder?.current.id
        // True when the branch's tip is this run's own commit, pushed by an attempt of it whose
        // record this process does not have (a fresh clone resuming the run from origin's record):
        // the run takes the proposal back as its own, so its rollback undoes it. Another run's or
        // a person's branch is never taken over.
        var adopted = false
        if let tip, try branchClone.contents(path, at: tip) == bytes {
            // An earlier run (or a killed one) pushed this formula: the branch is the proposal.
            if !step.isDryRun, let runID, step.lane.state.journal.earlierAttempt(step: step.number, kind: HomebrewPullRequestOpened.kind) == nil,
               let made = try branchClone.branchMade(by: runID, tip: tip, base: base) {
                effect.madeBranch = made
                adopted = true
            }
        } else if step.isDryRun {
            step.note("would commit \(path) on a new branch \(name) of \(tap) (on \(branch), \(base.short)), push it and open a \(noun) into \(branch) of \(repository):\n\(text)")
            return text
        } else {
            let signatures = try step.signatures([.author, .committer], in: clone.repository, for: "tap's formula commit")
            // A new branch starts as the base's commit: the formula is committed on the clone's
            // base branch and pushed to the new name; an existing branch gets it on top.
            let committing = tip == nil ? clone : branchClone
            let commit = try committing.commit(path, contents: bytes, onTopOf: tip ?? base, message: formula.commitMessage(runID: runID),
                                               author: signatures[0], committer: signatures[1])
            effect.commit = commit.hex
            effect.madeBranch = tip == nil
            let recorded = PullRequestHandleBox()
            let outcome = try await committing.push(to: name) {
                recorded.handle = try step.record(effect, "close the \(noun) from \(name) and delete the branch in \(tap)")
            }
            handle = recorded.handle
            guard outcome.refused.isEmpty else {
                step.didNotHappen(handle, "\(tap) refused it")
                throw branchClone.refusal(outcome, path: path)
            }
            sent.append("pushed \(name) (\(commit.short))")
        }
        let undoing = "close the \(noun) from \(name)" + (effect.madeBranch ? " and delete the branch" : "") + " in \(tap)"
        if let open {
            if sent.isEmpty {
                if adopted {
                    effect.number = open.number
                    step.done(try step.record(effect, undoing), effect)
                }
                step.note("\(noun) \(client.reference(open.number)) (\(open.webURL ?? name)) already proposes this formula"
                          + (adopted ? " (pushed by this run before it was stopped)" : "") + ": nothing sent")
            } else {
                effect.number = open.number
                step.done(handle, effect)
                step.note("\(sent.joined()): \(noun) \(client.reference(open.number)) shows it")
            }
            return text
        }
        if step.isDryRun {
            step.note("\(name) of \(tap) already holds this formula: would open a \(noun) from it into \(branch) of \(repository)")
            return text
        }
        if handle == nil {
            handle = try step.record(effect, adopted ? undoing : "close the \(noun) from \(name) in \(repository)")
        }
        let body = "\(formula.name) \(formula.version)\n\nWritten by Shiplane: every url and sha256 comes from the release's archives."
        let (pull, opened) = try await client.openProposal(title: "\(formula.name) \(formula.version)", body: body, branch: name, base: branch)
        effect.number = pull.number
        step.done(handle, effect)
        sent.append((opened ? "opened" : "found") + " \(noun) \(client.reference(pull.number)) (\(pull.webURL ?? name))")
        step.note("\(path) → \(sent.joined(separator: ", "))")
        return text
    }
}

extension PublishHomebrewFormula {
    /// The forge the tap's proposal goes to, its server (nil: the forge's default) and the tap's
    /// repository there: `forge:` as given, else the forge of the tap URL's public host
    /// (gitlab.com, codeberg.org, …), else GitHub (GitHub Enterprise through `GITHUB_API_URL`);
    /// the repository is `forge:`'s, else the tap URL's path; a GitLab or Gitea server is
    /// `forge:`'s, else `https://` and the tap's host.
    /// - Throws: when the tap URL names no repository and `forge:` gives none.
    func proposalTarget() throws -> (forge: any Forge.Type, server: String?, repository: String) {
        let location = RemoteLinks.hostAndPath(of: tap)
        let kind = forge?.kind ?? location.flatMap { Forges.publicHost($0.host)?.forge.kind } ?? .github
        guard let forgeType = kind.forge else { throw ShiplaneError("no forge is named \(kind)") }
        let fromURL = location.flatMap { RemoteLinks.repositoryPathComponents($0.path) }.map { $0.joined(separator: "/") }
        guard let repository = forge?.repository ?? fromURL, repository.contains("/") else {
            throw ShiplaneError("cannot tell the tap's repository on \(forgeType.displayName) from \(tap)",
                                suggestion: "pass forge: with the repository, e.g. forge: .gitlab(server: \"https://gitlab.example.com\", project: \"acme/homebrew-tap\"); nothing was sent")
        }
        var server = forge?.server
        if server == nil, kind != .github, let host = location?.host { server = "https://\(host)" }
        return (forgeType, server, repository)
    }
}

/// The effect handle recorded on the push's thread, read back after it.
private final class PullRequestHandleBox: @unchecked Sendable {
    // @unchecked: written once on the push's thread while this task waits for it, read after.
    var handle: EffectHandle?
}
