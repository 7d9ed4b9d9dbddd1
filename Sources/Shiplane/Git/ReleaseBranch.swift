import Foundation
internal import Git

/// The branch a release commit goes to, and how it was known.
///
/// On a branch, that branch. On a detached HEAD (how most CIs check out), the branch named by
/// `lane.onBranch(_:)` (`--branch`), else by the CI's variables (`LaneEnvironment.ciBranch`): the
/// release commit is made on top of HEAD, HEAD stays detached and moves to it, and `push` sends
/// `HEAD:refs/heads/BRANCH`, as semantic-release does.
struct ReleaseBranch: Equatable {
    /// The branch's short name.
    var name: String
    /// True when HEAD is detached: the branch is only the push's destination.
    var isDetached: Bool
    /// Where the name came from: `HEAD`, `--branch`, or a CI variable.
    var source: String

    /// What `push` sends for it.
    var refspec: String { isDetached ? "HEAD:refs/heads/\(name)" : "refs/heads/\(name):refs/heads/\(name)" }
}

/// A release on a detached HEAD that would lose work on the remote: its branch has commits HEAD lacks.
struct RemoteBranchMovedOn: ReportableError {
    var remote: String
    var branch: String
    var head: String
    var tip: String

    var message: String {
        "\(remote)'s \(branch) has moved past this checkout: it is at \(tip), which HEAD (\(head)) does not contain, "
            + "so the release commit cannot be pushed to it without dropping those commits"
    }

    var info: [(key: String, value: String)] { [("HEAD", head), ("\(remote)/\(branch)", tip)] }

    /// A push to a branch that moved on is a failure of this run, nothing the user got wrong.
    var category: ErrorCategory { .failure }

    var suggestion: String? {
        "release from the branch's latest commit: re-run the pipeline for it (or fetch and check it out), then run again; nothing was pushed"
    }
}

extension LaneContext {
    /// The branch a release from `head` goes to.
    /// - Throws: `RepositoryProblem.detachedHead` on a detached HEAD when no branch is known (the
    ///   message names the variables looked at and `--branch`); a `ShiplaneError` when HEAD is on
    ///   another branch than the one `onBranch(_:)` names.
    func releaseBranch(for head: HeadState) throws -> ReleaseBranch {
        switch head {
        case .branch(let name, _), .unborn(let name):
            if let branchOverride, branchOverride != name {
                throw ShiplaneError(
                    "HEAD is on \(name), but the release was asked to go to \(branchOverride) (--branch)",
                    suggestion: "check out \(branchOverride) (`git switch \(branchOverride)`), or drop --branch"
                )
            }
            return ReleaseBranch(name: name, isDetached: false, source: "HEAD")
        case .detached(let commit):
            if let branchOverride { return ReleaseBranch(name: branchOverride, isDetached: true, source: "--branch") }
            guard let ci = environment.ciBranch else { throw RepositoryProblem.detachedHead(commit: commit.short) }
            return ReleaseBranch(name: ci.name, isDetached: true, source: ci.source)
        }
    }

    /// The branch a release from HEAD goes to: HEAD's branch, or on a detached HEAD the one
    /// `onBranch(_:)` or the CI's variables name. Call it before any effect to fail early.
    /// - Parameter pushing: true when the release will be pushed: a detached HEAD in a shallow
    ///   clone is refused then, since whether the remote branch moved past it cannot be known.
    /// - Throws: `RepositoryProblem.detachedHead` when HEAD is detached and no branch is known,
    ///   `.shallowClone` (see `pushing`), `.noCommits` on an unborn branch.
    public func releaseBranchName(pushing: Bool = false) throws -> String {
        let repository = try repository()
        let head = try git { try repository.head() }
        if case .unborn(let name) = head { throw RepositoryProblem.noCommits(branch: name) }
        let release = try releaseBranch(for: head)
        if pushing, release.isDetached, repository.isShallow { throw RepositoryProblem.shallowClone(path: workingDirectory) }
        return release.name
    }

    /// The release branch of the repository's HEAD now.
    func releaseBranch(in repository: Repository) throws -> ReleaseBranch {
        try releaseBranch(for: git { try repository.head() })
    }
}

extension StepContext {
    /// Refuses to push a detached HEAD to `branch` on `remote` when the remote branch has commits
    /// HEAD does not contain (the pipeline built an older commit). The remote's tip is fetched into
    /// a scratch ref, compared with HEAD's history, and the scratch ref deleted; a branch the remote
    /// does not have yet passes. The push's own fast-forward checks stay the backstop.
    /// - Throws: `RemoteBranchMovedOn`; `RepositoryProblem.shallowClone` (HEAD's history is cut
    ///   off, so the answer cannot be known); a `GitFailure` when the remote cannot be reached.
    /// - Parameter url: the remote's URL: fetching from it rather than from the named remote keeps
    ///   libgit2 from also moving the remote-tracking refs, so a refusal leaves every ref as it was.
    func ensureRemoteBranchIsBehindHead(
        _ branch: String, remote: String, url: String, credentials: PushCredentials, in repository: Repository
    ) throws {
        guard !repository.isShallow else { throw RepositoryProblem.shallowClone(path: lane.workingDirectory) }
        let scratch = "refs/shiplane/remote-branch"
        let found = try git {
            try repository.fetchIfPresent(remote: url, source: "refs/heads/\(branch)", destination: scratch, credentials: credentials)
        }
        guard found else { return }
        defer { try? git { try repository.deleteReference(scratch) } }
        let tip = try git { try repository.resolveCommit(scratch) }
        let head = try lane.headCommit(of: repository)
        guard try !git({ try repository.reachable([tip], from: head) }).contains(tip) else { return }
        throw RemoteBranchMovedOn(remote: remote, branch: branch, head: head.short, tip: tip.short)
    }
}
