import Foundation
internal import Git

/// A protected tap: the formula goes to a branch of its own and a pull request on GitHub, as
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
    /// - Throws: `ShiplaneError` when no token is set, GitHub refuses, or the tap refuses the branch.
    func proposeByPullRequest(_ text: String, clone: TapClone, base: ObjectID, in step: StepContext) async throws -> String {
        let bytes = Data(text.utf8)
        let path = formula.path
        let variables = step.lane.environment.variables
        guard let token = HomebrewPullRequestOpened.token(from: variables) else {
            throw ValidationFailure(problems: ["no token for the tap's pull request: set SHIPLANE_TAP_TOKEN (or GITHUB_TOKEN)"],
                                    suggestion: "set the token; nothing was sent")
        }
        let repository = try GitHubRepository(remoteURL: tap)
        var transport = step.httpTransport()
        transport.redactor = transport.redactor.adding([token])
        let client = try GitHubClient(repository: repository, token: token, environment: variables, transport: transport,
                                      version: ShiplaneVersion.current)
        // Preflight, a dry run too: the token reaches the repository.
        try await client.checkAccess()
        let name = pullRequestBranch
        let (branchClone, tip) = try await clone.fetchBranch(name)
        let open = try await client.openPullRequests(branch: name, base: branch).first

        var effect = HomebrewPullRequestOpened(
            tap: tap, api: client.apiBaseURL, repository: repository.description, base: branch, branch: name, path: path,
            commit: tip?.hex ?? "", madeBranch: false, number: open?.number)
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
            step.note("would commit \(path) on a new branch \(name) of \(tap) (on \(branch), \(base.short)), push it and open a pull request into \(branch) of \(repository):\n\(text)")
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
                recorded.handle = try step.record(effect, "close the pull request from \(name) and delete the branch in \(tap)")
            }
            handle = recorded.handle
            guard outcome.refused.isEmpty else {
                step.didNotHappen(handle, "\(tap) refused it")
                throw branchClone.refusal(outcome, path: path)
            }
            sent.append("pushed \(name) (\(commit.short))")
        }
        let undoing = "close the pull request from \(name)" + (effect.madeBranch ? " and delete the branch" : "") + " in \(tap)"
        if let open {
            if sent.isEmpty {
                if adopted {
                    effect.number = open.number
                    step.done(try step.record(effect, undoing), effect)
                }
                step.note("pull request #\(open.number) (\(open.htmlURL ?? name)) already proposes this formula"
                          + (adopted ? " (pushed by this run before it was stopped)" : "") + ": nothing sent")
            } else {
                effect.number = open.number
                step.done(handle, effect)
                step.note("\(sent.joined()): pull request #\(open.number) shows it")
            }
            return text
        }
        if step.isDryRun {
            step.note("\(name) of \(tap) already holds this formula: would open a pull request from it into \(branch) of \(repository)")
            return text
        }
        if handle == nil {
            handle = try step.record(effect, adopted ? undoing : "close the pull request from \(name) in \(repository)")
        }
        let body = "\(formula.name) \(formula.version)\n\nWritten by Shiplane: every url and sha256 comes from the release's archives."
        let (pull, opened) = try await client.openPullRequest(title: "\(formula.name) \(formula.version)", body: body, branch: name, base: branch)
        effect.number = pull.number
        step.done(handle, effect)
        sent.append((opened ? "opened" : "found") + " pull request #\(pull.number) (\(pull.htmlURL ?? name))")
        step.note("\(path) → \(sent.joined(separator: ", "))")
        return text
    }
}

/// The effect handle recorded on the push's thread, read back after it.
private final class PullRequestHandleBox: @unchecked Sendable {
    // @unchecked: written once on the push's thread while this task waits for it, read after.
    var handle: EffectHandle?
}
