import Foundation
internal import Git

/// Pushes the current branch and only the named tags to a remote, through libgit2.
///
/// Never pushes every local tag. HTTPS remotes authenticate with a token from the environment
/// (`SHIPLANE_GIT_TOKEN`, else `GITHUB_TOKEN`, `GH_TOKEN`, `GITLAB_TOKEN`; user name
/// `SHIPLANE_GIT_USERNAME`, else `x-access-token`); ssh remotes through the ssh agent; paths and
/// `file://` need none. On a detached HEAD (CI), HEAD is pushed to the branch the release goes to
/// (`HEAD:refs/heads/BRANCH`, see `ReleaseBranch`), once origin's branch is known not to have moved
/// past HEAD. Refused credentials fail at once (no endless retry); a ref the remote
/// rejects (non-fast-forward, protected) is an error naming it. The branch and the tags go in
/// one push. What the remote accepts is the run's point of no return, ref by ref: a run that stops
/// after it is finished by `shiplane resume`, never undone (others may already have fetched what
/// was pushed); a push the remote refused whole published nothing, so the run rolls back.
package struct Push: AsyncAction, CarriesObserversRefs {
    /// The action's name in steps and reports.
    package static let name = "push"
    /// The remote's name.
    package var remote: String
    /// Whether the current branch (on a detached HEAD: HEAD, to the release branch) is pushed.
    package var branch: Bool
    /// The tags pushed; each must exist.
    package var tags: [String]

    /// Creates the action that pushes the current branch (unless `branch` is false) and `tags` to `remote`.
    package init(remote: String = "origin", branch: Bool = true, tags: [String] = []) {
        self.remote = remote
        self.branch = branch
        self.tags = tags
    }

    /// The remote, and the branch and tags when they differ from the default.
    package var options: [StepOption] {
        var shown = [StepOption("remote", remote)]
        if !branch { shown.append(StepOption("branch", "false")) }
        if !tags.isEmpty { shown.append(StepOption("tags", tags.joined(separator: ", "))) }
        return shown
    }

    static let tokenVariables = ["SHIPLANE_GIT_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN"]

    /// Pushes in one go and passes the run's point of no return; in a dry run only notes what it would push.
    /// - Throws: when the remote or a tag is missing, HEAD is not on a branch, a git hook refuses, or the remote
    ///   refuses the credentials or a ref.
    package func run(in step: StepContext) async throws {
        // A monorepo package's release goes out branch first, put on top of whatever other
        // packages' releases pushed meanwhile, then its tags (`PackagePush`).
        if step.lane.package != nil, branch, !tags.isEmpty, !step.isDryRun {
            try await PackagePush(push: self).run(in: step)
            return
        }
        try await pushOnce(in: step, branch: branch, tags: tags)
    }

    /// One push of the branch (when `branch`) and `tags`, with what the run's observers carry when the branch goes.
    func pushOnce(in step: StepContext, branch: Bool, tags: [String]) async throws {
        let lane = step.lane
        let repository = try lane.repository()
        guard let url = try git({ try repository.remoteURL(named: remote) }) else {
            throw ShiplaneError("there is no remote named \(remote)", suggestion: "add it with `git remote add \(remote) URL`, or pass remote:")
        }
        var refspecs: [String] = []
        var pushedBranch: ReleaseBranch?
        if branch {
            // On a detached HEAD (CI), HEAD goes to the branch the CI's variables or --branch name.
            let head = try git { try repository.head() }
            if case .unborn(let name) = head { throw RepositoryProblem.noCommits(branch: name) }
            let release = try lane.releaseBranch(for: head)
            refspecs.append(release.refspec)
            pushedBranch = release
        }
        var missing: [String] = []
        for tag in tags {
            if try git({ try repository.tag(named: tag) }) == nil && !step.isDryRun { missing.append(tag) }
            refspecs.append("refs/tags/\(tag):refs/tags/\(tag)")
        }
        if !missing.isEmpty {
            throw ShiplaneError("tag\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) do\(missing.count == 1 ? "es" : "") not exist", suggestion: "create it with addGitTag before pushing")
        }
        guard !refspecs.isEmpty else {
            throw ValidationFailure(problems: ["push has nothing to push: branch is false and no tags are named"])
        }
        let shown = ([pushedBranch?.name].compactMap { $0 } + tags).joined(separator: ", ")
        if step.isDryRun {
            step.note("would push \(shown) to \(remote)")
            return
        }
        let credentials = Self.credentials(for: url, environment: lane.environment)
        // A push an earlier run took back may have landed in part since (origin held it).
        try PushMayStillLand.check(remote: remote, repository: repository, credentials: credentials, workTree: lane.workingDirectory)
        if let pushedBranch, pushedBranch.isDetached {
            try step.ensureRemoteBranchIsBehindHead(pushedBranch.name, remote: remote, url: url, credentials: credentials, in: repository)
        }
        let refs = refspecs.map { String($0.split(separator: ":").last ?? "") }
        // What the run's observers send with the release branch goes in the same push; it is
        // theirs, not the release's: what the remote makes of it goes back to them (`settle`).
        var carried: Set<String> = []
        if branch {
            for observer in lane.state.observers {
                let theirs = try observer.refspecsToCarry(pushing: "pushed \(shown) to \(remote)", to: remote, in: lane)
                refspecs += theirs
                carried.formUnion(theirs.map { String($0.split(separator: ":").last ?? "") })
            }
        }
        var effect: EffectHandle?
        let hooks = try lane.gitHooks(repository)
        let reason = "pushed \(shown) to \(remote)"
        // The point is this push's own unless something else passed it first (a published
        // release); a resumed push finds its earlier attempt's (a run killed while pushing).
        let earlier = lane.state.pointOfNoReturn
        let ownsPoint = earlier.map { lane.state.journal.holds(step: step.number, kind: RefsPushed.kind, description: $0) } ?? true
        var sent: [Repository.RefUpdate] = []
        var pushedBefore: Set<String> = []
        let outcome: PushOutcome
        do {
            outcome = try await gitOffThePool {
                try repository.pushReportingRefs(remote: remote, refspecs: refspecs, credentials: credentials, beforeChecks: { updates in
                    // Past a point of no return already (a resumed run, a release published first),
                    // the remote may hold this run's own tags from before.
                    pushedBefore = Set(lane.state.journal.effects(RefsPushed.self).filter { $0.remote == remote }.flatMap(\.refs))
                    if earlier == nil {
                        try Self.refuseTagsAnotherRunPushed(updates, remote: remote, pushedBefore: pushedBefore)
                    }
                }) { updates in
                    sent = updates
                    try hooks?.beforePush(remote: remote, url: url, updates: updates) { step.log($0) }
                    // What is sent now, others may see: a run stopped from here until the remote
                    // answers is past its point of no return (`settle` narrows it to what the remote
                    // accepted). A refused login or a ref git refuses before sending stops earlier.
                    try step.passPointOfNoReturn(reason)
                    let released = updates.filter { refs.contains($0.remoteRef) }
                    effect = try step.record(RefsPushed(
                        remote: remote, refs: refs,
                        sent: Dictionary(released.compactMap { update in update.local.map { (update.remoteRef, $0.hex) } }) { first, _ in first },
                        before: Dictionary(released.compactMap { update in update.remote.map { (update.remoteRef, $0.hex) } }) { first, _ in first }
                    ), reason)
                }
            }
        } catch let failure as GitFailure where failure.code == .rejected && earlier != nil && ownsPoint {
            // Refused before anything was sent, by a resumed push whose earlier attempt was cut short.
            if let unlanded = try takeBackUnlanded(in: step, repository: repository, credentials: credentials) { throw unlanded }
            if try publishedWithoutBranch(in: step, repository: repository, credentials: credentials) { return }
            throw failure
        }
        let (settled, takenTags) = try Self.sameValueRefusals(
            in: outcome, carried: carried, sent: sent, pushedBefore: pushedBefore, ownsPoint: ownsPoint, repository: repository, remote: remote, credentials: credentials)
        try settle(settled, carried: carried, effect: effect, ownsPoint: ownsPoint, takenTags: takenTags, in: step, repository: repository, credentials: credentials)
        step.note("\(shown) → \(remote)")
    }

    /// The earlier attempt of this push, cut short before the remote answered, when the remote now
    /// proves it never landed (`UnlandedPush`): settled as not having happened, the point of no
    /// return taken back (the run rolls back), and the run's observers told (what the earlier
    /// attempt carried for them is theirs to withdraw). Nil when the earlier attempt may have landed.
    private func takeBackUnlanded(in step: StepContext, repository: Repository, credentials: PushCredentials) throws -> UnlandedPush? {
        let lane = step.lane
        guard let attempt = lane.state.journal.earlierAttempt(step: step.number, kind: RefsPushed.kind), attempt.status == .intended,
              let pushed = attempt.effect.as(RefsPushed.self), let unlanded = UnlandedPush.look(pushed, in: repository, credentials: credentials)
        else { return nil }
        lane.state.journal.settleUnsettled(step: step.number, kind: RefsPushed.kind, note: "\(remote) never accepted it: \(remote) holds other objects")
        try step.amendPointOfNoReturn(nil)
        if let runID = lane.state.journal.recorder?.current.id {
            if let warning = PushMayStillLand.remember(unlanded, runID: runID, workTree: lane.workingDirectory) { step.log(warning, level: .warning) }
        }
        tellObservers(CarriedPush(release: .takenBack(unlanded), remote: remote), in: step)
        return unlanded
    }

    /// Tells each of the run's observers what became of a push that may have carried their refs.
    private func tellObservers(_ push: CarriedPush, in step: StepContext) {
        for observer in step.lane.state.observers { observer.carriedPushSettled(push, in: step) }
    }

    /// A resumed push whose earlier attempt published every tag (the release) while the remote
    /// refused its branch, when the remote's branch has since moved on to a commit without this
    /// run's (another run released, or someone pushed): the branch update can never land, and
    /// waiting for it would keep the run past its point of no return for ever (exit 75 each
    /// time). The release is published and is finished as such: the push step is done, with a
    /// warning that the branch does not hold the release commit and how to bring it in.
    private func publishedWithoutBranch(in step: StepContext, repository: Repository, credentials: PushCredentials) throws -> Bool {
        let lane = step.lane
        let earlier = lane.state.journal.effects(RefsPushed.self).filter { $0.remote == remote }
        let accepted = Set(earlier.flatMap(\.refs)), refused = Set(earlier.flatMap { $0.refused ?? [] })
        let tagRefs = tags.map { "refs/tags/\($0)" }
        guard !tagRefs.isEmpty, tagRefs.allSatisfy(accepted.contains), !refused.isEmpty,
              refused.allSatisfy({ $0.hasPrefix("refs/heads/") && !accepted.contains($0) }),
              let head = try? lane.headCommit(of: repository),
              let has = try? git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false) })
        else { return false }
        // A branch this release commit still fast-forwards may yet take it (a protection lifted): keep waiting.
        for ref in refused {
            guard has[ref] != nil, has[ref] != head,
                  let relation = UnlandedPush.relation(of: ref, to: head.hex, remote: remote, repository, credentials: credentials),
                  !relation.contains, !relation.fastForward else { return false }
        }
        let branches = refused.sorted().map(PushRefused.shortName).joined(separator: ", ")
        let tagNames = tags.joined(separator: ", ")
        step.log(
            "\(remote)'s \(branches) moved on (another run released, or someone pushed) to a commit without this release's \(head.short), "
                + "so it can never take it; the release \(tagNames) is published at \(head.short) and the run finishes it. "
                + "Bring the release commit into \(branches) (`git pull \(remote) \(branches)`, then `git merge \(tags[0])` and push) "
                + "if the branch should carry its version files",
            level: .warning)
        step.note("\(tagNames) → \(remote); \(branches) moved on without it")
        return true
    }

    /// Records what the remote accepted. All of it: done. None of the release's refs (what the
    /// observers carried aside): nothing was published, so the point of no return is taken back
    /// (the run rolls back), and the error names what the remote has. Some: the run is past its
    /// point of no return for those only, and the error names each ref (the run stops for
    /// `shiplane resume`). Each time, the run's observers hear what became of their refs, once the
    /// release's own are settled (`carriedPushSettled`).
    /// - Throws: `PushRefused` when the remote refused any of the release's refs.
    private func settle(
        _ outcome: PushOutcome, carried: Set<String>, effect: EffectHandle?, ownsPoint: Bool, takenTags: [String] = [], in step: StepContext,
        repository: Repository, credentials: PushCredentials
    ) throws {
        let refused = outcome.refused.filter { !carried.contains($0.ref) }
        let accepted = outcome.accepted.filter { !carried.contains($0) }
        func told(_ release: CarriedPush.Release) -> CarriedPush {
            CarriedPush(
                release: release, remote: remote, accepted: outcome.accepted.filter(carried.contains),
                refused: Dictionary(outcome.refused.filter { carried.contains($0.ref) }.map { ($0.ref, $0.reason) }) { first, _ in first })
        }
        guard !refused.isEmpty else {
            step.done(effect)
            tellObservers(told(.landed), in: step)
            return
        }
        let lane = step.lane
        let originHas = try? git { try repository.remoteReferences(remote: remote, credentials: credentials) }
        let failure = PushRefused(remote: remote, accepted: accepted, refused: refused.map { ($0.ref, $0.reason) }, remoteHas: originHas,
            remoteSaid: outcome.remoteMessages)
        if accepted.isEmpty && ownsPoint {
            step.didNotHappen(effect, "\(remote) refused every ref")
            lane.state.journal.settleUnsettled(step: step.number, kind: RefsPushed.kind, note: "\(remote) has none of it")
            try step.amendPointOfNoReturn(nil)
            tellObservers(told(.withdrawn), in: step)
            if !takenTags.isEmpty { throw Self.anotherRunReleased(takenTags, remote: remote) }
            throw failure
        }
        step.done(effect, RefsPushed(remote: remote, refs: accepted, refused: refused.map(\.ref)), description: failure.pointOfNoReturn)
        if ownsPoint { try step.amendPointOfNoReturn(failure.pointOfNoReturn) }
        tellObservers(told(.partlyLanded), in: step)
        throw failure
    }

    /// Two runs of one commit in the same second push identical refs, and the remote can take
    /// some refs of each (`cannot lock ref … reference already exists`). A ref refused while the
    /// remote now holds it at the very value this run sent is there as this run would have left
    /// it: accepted. But a release tag refused so, which this run never pushed before, was made by
    /// the other run: that run published the release, and this one stops before anything of its
    /// own counts (`AnotherRunReleased`; what it moved on the remote is identical to the other's).
    static func sameValueRefusals(
        in outcome: PushOutcome, carried: Set<String>, sent: [Repository.RefUpdate], pushedBefore: Set<String>, ownsPoint: Bool,
        repository: Repository, remote: String, credentials: PushCredentials
    ) throws -> (outcome: PushOutcome, takenTags: [String]) {
        let refused = outcome.refused.filter { !carried.contains($0.ref) }
        guard !refused.isEmpty, let has = try? git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false) })
        else { return (outcome, []) }
        // A tag made a moment later by the other run differs in its tag object (the tagger's time)
        // while naming the identical commit: it is the same release too.
        let peeledHas = refused.contains { $0.ref.hasPrefix("refs/tags/") && has[$0.ref] != nil }
            ? (try? git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: true) })) ?? [:] : [:]
        let same = Set(refused.map(\.ref).filter { ref in
            guard let update = sent.first(where: { $0.remoteRef == ref }), let value = update.local else { return false }
            if has[ref] == value { return true }
            guard ref.hasPrefix("refs/tags/"), let theirs = peeledHas[ref], let local = update.localRef,
                  let ours = try? git({ try repository.resolveCommit(local) }) else { return false }
            return theirs == ours
        })
        guard !same.isEmpty else { return (outcome, []) }
        let takenTags = same.filter { $0.hasPrefix("refs/tags/") && !pushedBefore.contains($0) }
        if ownsPoint, !takenTags.isEmpty {
            // Nothing of this run's own is on the remote: what it moved there is the other run's too.
            var lost = outcome
            lost.accepted = outcome.accepted.filter(carried.contains)
            return (lost, takenTags.sorted().map { String($0.dropFirst("refs/tags/".count)) })
        }
        var settled = outcome
        settled.refused = outcome.refused.filter { !same.contains($0.ref) }
        settled.accepted = outcome.accepted + same.sorted()
        return (settled, [])
    }

    /// A release tag the remote already has for the very commit being pushed, which this run never
    /// pushed: another run made the same release and published it first — with the identical tag
    /// (two runs of one commit in the same second make identical commits and tags), or with a tag
    /// object of its own for the same commit (made a moment later). Pushing would change nothing
    /// there, or be refused, and going on would announce that release a second time: the run stops
    /// before anything is sent.
    static func refuseTagsAnotherRunPushed(_ updates: [Repository.RefUpdate], remote: String, pushedBefore: Set<String>) throws {
        let taken = updates.filter { update in
            guard update.remoteRef.hasPrefix("refs/tags/"), update.remote != nil, !pushedBefore.contains(update.remoteRef) else { return false }
            return update.remote == update.local || (update.remoteCommit != nil && update.remoteCommit == update.localCommit)
        }
        guard !taken.isEmpty else { return }
        throw anotherRunReleased(taken.map { String($0.remoteRef.dropFirst("refs/tags/".count)) }, remote: remote)
    }

    /// The stop for release tags another run published: nothing of this run's own is on the remote.
    static func anotherRunReleased(_ names: [String], remote: String) -> ShiplaneError {
        ShiplaneError(
            "\(remote) already has \(names.joined(separator: ", ")) at this very commit, and this run did not push \(names.count == 1 ? "it" : "them"): another run released \(names.count == 1 ? "it" : "them") first",
            suggestion: "nothing of this run's own is on \(remote) (anything it sent is identical to what the other run pushed) and this run rolls back; fetch (`git fetch --tags \(remote)`) and look at the release there before running again")
    }

    static func credentials(for url: String, environment: LaneEnvironment) -> PushCredentials {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            for variable in tokenVariables {
                if let token = environment[variable], !token.isEmpty {
                    return .token(token, username: environment["SHIPLANE_GIT_USERNAME"] ?? "x-access-token")
                }
            }
            return .none
        }
        if lower.hasPrefix("ssh://") || (lower.contains("@") && lower.contains(":") && !lower.contains("://")) {
            return .sshAgent()
        }
        return .none
    }
}

extension LaneContext {
    /// Pushes the current branch (unless `branch: false`) and exactly the named tags.
    public func push(
        remote: String = "origin", branch: Bool = true, tags: [String] = [], file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Push(remote: remote, branch: branch, tags: tags), file: file, line: line)
    }
}

extension Push: DocumentedAction {
    /// How `lane.push` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Push the current branch and only the named tags (never every local tag); https with a token, ssh through the agent",
        signature: "try await lane.push(remote: String = \"origin\", branch: Bool = true, tags: [String] = [])",
        parameters: [
            .init(name: "remote", type: "String", defaultValue: "\"origin\"", help: "the remote's name"),
            .init(name: "branch", type: "Bool", defaultValue: "true", help: "push the current branch"),
            .init(name: "tags", type: "[String]", defaultValue: "[]", help: "tags to push"),
        ],
        example: #"try await lane.push(tags: ["v\(version)"])"#,
        dryRun: "says what it would push", rollback: "what the remote accepted is never undone (the point of no return, per ref; a run stopped after it is finished by `shiplane resume`); a push refused whole rolls the run back"
    )
}
