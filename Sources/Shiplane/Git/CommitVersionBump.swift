import Foundation
internal import Git

/// Commits exactly the files release steps changed: the `ReleaseChanges` it is given (what
/// `bumpVersion`, `incrementBuildNumber` and `writeChangelog` return), or, given none, every such
/// change this run's steps returned that no commit has taken yet.
///
/// Refuses when other files are dirty (listing them) unless `allowOtherChanges`; the other files
/// are then left uncommitted. Author and committer come from git config (`user.name`,
/// `user.email`), overridden by `GIT_AUTHOR_*` and `GIT_COMMITTER_*` as git does. Rollback moves
/// the branch back, if HEAD is still this commit.
package struct CommitVersionBump: Action {
    /// The action's name in steps and reports.
    package static let name = "commitVersionBump"
    /// The release steps' results whose files are committed; empty: what this run's release steps changed and no commit has taken.
    package var changes: [any ReleaseChanges]
    /// The commit message; nil: `chore(release): VERSION`.
    package var message: String?
    /// True to commit even when other files are dirty; they stay uncommitted.
    package var allowOtherChanges: Bool
    /// True to sign the commit, false not to; nil: as git config's `commit.gpgSign` says.
    package var sign: Bool?

    /// Creates the action that commits the files of `changes`.
    package init(_ changes: [any ReleaseChanges] = [], message: String? = nil, allowOtherChanges: Bool = false, sign: Bool? = nil) {
        self.changes = changes
        self.message = message
        self.allowOtherChanges = allowOtherChanges
        self.sign = sign
    }

    /// The message, `allowOtherChanges` and `sign`, when set.
    package var options: [StepOption] {
        (message.map { [StepOption("message", $0)] } ?? []) + (allowOtherChanges ? [StepOption("allowOtherChanges", "true")] : [])
            + (sign.map { [StepOption("sign", "\($0)")] } ?? [])
    }

    /// Returns the new commit's id (in a dry run, `nil`).
    package func run(in step: StepContext) throws -> String? {
        let lane = step.lane
        let taken = changes.isEmpty ? lane.state.uncommittedReleaseChanges : changes
        let fileChanges = taken.flatMap(\.fileChanges)
        var changed: [String] = []
        for change in fileChanges where !changed.contains(change.displayPath) { changed.append(change.displayPath) }
        guard !changed.isEmpty else {
            throw ShiplaneError(
                "no version file or changelog was changed in this run: there is nothing to commit",
                suggestion: "call bumpVersion, incrementBuildNumber or writeChangelog before commitVersionBump"
            )
        }
        let repository = try lane.repository()
        // On a detached HEAD the commit is made there when a branch to release to is known.
        _ = try lane.releaseBranch(in: repository)
        let text = try message ?? defaultMessage(taken, lane)
        if !allowOtherChanges {
            let others = try git { try repository.status() }.filter { !changed.contains($0.path) }
            // The real tree is read in a dry run too: the overlay's version files are not dirty on
            // disk, so what shows is exactly what would stop the real run.
            if !others.isEmpty {
                throw ShiplaneError(
                    "other files are dirty: the version bump commit would not be the only change",
                    info: [("files", others.prefix(20).map { "\($0.shortCode) \($0.path)" }.joined(separator: "\n"))],
                    suggestion: "commit or stash them first, or pass allowOtherChanges: true (they stay uncommitted)"
                )
            }
        }
        let signing = try step.commitSigning(sign, in: repository)
        if step.isDryRun {
            lane.state.noteDryRunCommit()
            step.note("would commit \(changed.joined(separator: ", ")): \(text)" + (signing.map { ", signed with the \($0.origin)" } ?? ""))
            return nil
        }
        let commit = try step.commitJournaled(paths: changed, message: text, in: repository, signing: signing, undoing: "drop the version bump commit")
        lane.state.markCommitted(Set(fileChanges.map(\.path)))
        step.note("\(commit.short) \(text)")
        return commit.hex
    }

    /// "chore(release): X" (a conventional commit, left out of changelogs), X from the bump among the changes, else from the version files.
    private func defaultMessage(_ taken: [any ReleaseChanges], _ lane: LaneContext) throws -> String {
        // As the files write it (`7.77`), like the tag.
        let bumped = taken.compactMap { $0 as? VersionBumpResult }.last?.description
        return "chore(release): \(try bumped ?? lane.readVersion(nil).shown)"
    }
}

extension LaneContext {
    /// Commits exactly the files of `changes` (what `bumpVersion`, `incrementBuildNumber` and
    /// `writeChangelog` returned); with none, what this run's release steps changed. Returns the
    /// commit id.
    @discardableResult
    public func commitVersionBump(
        _ changes: any ReleaseChanges..., message: String? = nil, allowOtherChanges: Bool = false, sign: Bool? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> String? {
        try run(CommitVersionBump(changes, message: message, allowOtherChanges: allowOtherChanges, sign: sign), file: file, line: line)
    }

    /// `commitVersionBump(_:message:allowOtherChanges:)` for a list built up as the lane goes.
    @discardableResult
    public func commitVersionBump(
        _ changes: [any ReleaseChanges], message: String? = nil, allowOtherChanges: Bool = false, sign: Bool? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> String? {
        try run(CommitVersionBump(changes, message: message, allowOtherChanges: allowOtherChanges, sign: sign), file: file, line: line)
    }
}

extension CommitVersionBump: DocumentedAction {
    /// How `lane.commitVersionBump` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Commit exactly the files of the release steps' results it is given (bumpVersion, incrementBuildNumber, writeChangelog), or of this run's; refuses when other files are dirty",
        signature: "try lane.commitVersionBump(_ changes: any ReleaseChanges..., message: String? = nil, allowOtherChanges: Bool = false, sign: Bool? = nil) -> String?",
        parameters: [
            .init(name: "changes", type: "any ReleaseChanges... or [any ReleaseChanges]", defaultValue: "what this run's release steps returned", help: "the results of bumpVersion, incrementBuildNumber and writeChangelog: exactly their files are committed"),
            .init(name: "message", type: "String?", defaultValue: "\"chore(release): X\"", help: "the commit message"),
            .init(name: "allowOtherChanges", type: "Bool", defaultValue: "false", help: "commit even when other files are dirty (they stay uncommitted)"),
            .init(name: "sign", type: "Bool?", defaultValue: "git config commit.gpgSign", help: "sign the commit (SSH natively, OpenPGP with gpg, as gpg.format says)"),
        ],
        example: #"try lane.commitVersionBump(message: "chore(release): \(version)")"#,
        dryRun: "says which files it would commit", rollback: "moves the branch back if HEAD is still the commit"
    )
}

extension StepContext {
    /// Commits exactly `paths` on the current branch (or on a detached HEAD, when a branch to
    /// release to is known) with git's hooks, journaled before and after (branch, parent,
    /// message; then the commit), with its undo registered: HEAD moves back only while it is still
    /// that commit.
    /// - Throws: `RepositoryProblem.detachedHead` when no branch is known, or what libgit2 or a hook reports.
    func commitJournaled(
        paths: [String], message given: String, in repository: Repository, signing: GitObjectSigning?, undoing description: String
    ) throws -> ObjectID {
        // What is committed may be pushed: a secret the run knows never goes into a message.
        let message = lane.redactor.redact(given)
        let head = try git { try repository.head() }
        let release = try lane.releaseBranch(for: head)
        let (branchName, parent): (String?, String)
        switch head {
        case .branch(let name, let commit): (branchName, parent) = (name, commit.hex)
        case .unborn(let name): (branchName, parent) = (name, "")
        case .detached(let commit): (branchName, parent) = (nil, commit.hex)
        }
        if release.isDetached { log("HEAD is detached: the commit goes on top of it, for \(release.name), read from \(release.source)") }
        let identities = try git { try signatures([.author, .committer], in: repository, for: "commit") }
        let (author, committer) = (identities[0], identities[1])
        let indexBefore = try CommitMade.indexEntries(of: paths, in: repository)
        let effect = try record(CommitMade(branch: branchName, parent: parent, message: message, commit: nil, indexBefore: indexBefore), description)
        let commit = try git {
            let hooks = try lane.gitHooks(repository)
            let sign = signing.map { signing in { (text: String) throws -> String in try signing.sign(text) } }
            return try repository.commit(paths: paths, message: message, author: author, committer: committer, sign: sign) { text in
                try hooks?.aroundCommit(message: text) { self.log($0) } ?? text
            }
        }
        done(effect, CommitMade(branch: branchName, parent: parent, message: message, commit: commit.hex, indexBefore: indexBefore))
        if let signing { log("signed with the \(signing.origin)") }
        return commit
    }

    /// How this step's commit is signed: as `sign` says, or as git config's `commit.gpgSign`
    /// does when it is nil; nil for an unsigned commit.
    /// - Throws: `SigningError` when signing is asked for and no key can sign.
    func commitSigning(_ sign: Bool?, in repository: Repository) throws -> GitObjectSigning? {
        try objectSigning(.commit, sign, in: repository)
    }

    /// The same for a commit or a tag.
    func objectSigning(_ kind: GitObjectSigning.Kind, _ sign: Bool?, in repository: Repository) throws -> GitObjectSigning? {
        let identity = try git { try repository.configuredIdentity(environment: lane.environment.variables, role: .committer) }
        let committer = "\(identity.name ?? "") <\(identity.email ?? "")>"
        return try GitObjectSigning.resolve(kind, option: sign, repository: repository, environment: lane.environment, committer: committer)
    }
}
