import Foundation
internal import Git

/// How a monorepo package's release is pushed while other jobs push other packages' releases to
/// the same branch: origin takes one push at a time, so a job whose branch push is refused
/// because origin's branch moved (`non-fast-forward`, `fetch first`, or the server's lock on the
/// ref) fetches the new tip, puts its release commit on top of it (`ReleaseReplayed`: a three-way
/// merge, so the other packages' releases stay; a conflict stops the run), moves its tags to the
/// copy, and pushes again — until origin takes it. The branch goes first, with the package's run
/// record (`refs/shiplane/packages/NAME/run`); the tags follow once the branch landed, so a tag
/// never names a commit origin's branch does not have. A tag origin already has means another job
/// released this package: the run stops before anything is sent and rolls back.
struct PackagePush {
    var push: Push

    /// How many times a job puts its release on a newer tip before it gives up: more than the
    /// jobs that can land before it in any round.
    static let attempts = 100

    func run(in step: StepContext) async throws {
        let lane = step.lane
        let repository = try lane.repository()
        guard let url = try git({ try repository.remoteURL(named: push.remote) }) else {
            throw ShiplaneError("there is no remote named \(push.remote)", suggestion: "add it with `git remote add \(push.remote) URL`, or pass remote:")
        }
        let credentials = Push.credentials(for: url, environment: lane.environment)
        let remote = push.remote
        if lane.state.pointOfNoReturn == nil {
            let has = try await gitOffThePool { try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false) }
            let taken = push.tags.filter { has["refs/tags/" + $0] != nil }
            if !taken.isEmpty {
                throw ShiplaneError(
                    "\(remote) already has \(taken.joined(separator: ", ")): another job released \(lane.package?.name ?? "this package") first",
                    suggestion: "nothing of this run's was pushed and it rolls back; fetch (`git fetch --tags \(remote)`) and plan again (`shiplane version --changed`)")
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await push.pushOnce(in: step, branch: true, tags: [])
                break
            } catch where attempt < Self.attempts && Self.branchMoved(error) {
                guard try await replay(in: step, repository: repository, credentials: credentials) else { throw error }
                // Many jobs refused at once would meet again at once: spread them.
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(min(attempt, 8)) * 25_000_000))
            }
        }
        try await push.pushOnce(in: step, branch: false, tags: push.tags)
    }

    /// True when `error` says origin's branch moved since it was read: git's refusal before
    /// sending, or the server's refusal of the branch alone.
    static func branchMoved(_ error: any Error) -> Bool {
        if let failure = error as? GitFailure, failure.code == .rejected {
            return failure.detail.contains("non-fast-forward") || failure.detail.contains("fetch first")
        }
        if let refused = error as? PushRefused {
            return refused.accepted.isEmpty && refused.refused.allSatisfy { $0.ref.hasPrefix("refs/heads/") }
        }
        return false
    }

    /// Where a signed tag's signature starts in its message as libgit2 reads it (the message,
    /// then the ASCII armor git appends: OpenPGP, SSH or X.509); nil for an unsigned tag.
    static func signatureStart(in message: String) -> String.Index? {
        for marker in ["-----BEGIN PGP SIGNATURE-----", "-----BEGIN SSH SIGNATURE-----", "-----BEGIN SIGNED MESSAGE-----"] {
            if message.hasPrefix(marker) { return message.startIndex }
            if let range = message.range(of: "\n" + marker, options: .backwards) { return message.index(after: range.lowerBound) }
        }
        return nil
    }

    /// Fetches origin's branch and puts this run's release commit (HEAD) on top of it, with its
    /// tags. False when origin's branch did not move past HEAD's parent (the refusal was not a race).
    private func replay(in step: StepContext, repository: Repository, credentials: PushCredentials) async throws -> Bool {
        let lane = step.lane
        let head = try lane.headCommit(of: repository)
        let branch = try lane.releaseBranch(for: try git { try repository.head() })
        let fetched = "refs/shiplane/fetched-branch"
        let remote = push.remote
        guard try await gitOffThePool({
            try repository.fetchIfPresent(remote: remote, source: "refs/heads/" + branch.name, destination: fetched, credentials: credentials)
        }) else { return false }
        defer { try? git { try repository.deleteReference(fetched) } }
        let tip = try git { try repository.resolveCommit(fetched) }
        let parents = try git { try repository.commitParentsAndMessage(head) }.parents
        guard lane.state.journal.madeCommit() == head.hex else {
            throw ShiplaneError("HEAD (\(head.short)) is not the release commit this run made, so it cannot be put on top of \(remote)'s \(branch.name)",
                                suggestion: "make the release commit in the same run that pushes it (commitVersionBump before push)")
        }
        guard tip != head, parents.first != tip else { return false }
        // A signature names one object's text: the copy of a signed release commit, and a signed
        // tag moved to it, are signed again with the key that signed them (git's configuration,
        // as `commitVersionBump` and `addGitTag` resolve it), before anything moves.
        let commitSigning = try git({ try repository.commitIsSigned(head) }) ? try step.objectSigning(.commit, true, in: repository) : nil
        var tags: [ReleaseReplayed.MovedTag] = []
        var tagSigning: GitObjectSigning?
        for name in push.tags {
            guard let tag = try git({ try repository.tag(named: name) }), tag.target == head else { continue }
            if let text = tag.message, Self.signatureStart(in: text) != nil, tagSigning == nil { tagSigning = try step.objectSigning(.tag, true, in: repository) }
            tags.append(.init(name: name, before: tag.object.hex, after: nil))
        }
        var effect = ReleaseReplayed(commit: head.hex, base: tip.hex, copy: nil, tags: tags)
        let handle = try step.record(effect, "put the release commit on top of \(remote)'s \(branch.name) (\(tip.short))")
        let copy = try git {
            try repository.replayHeadCommit(head, onto: tip, sign: commitSigning.map { signing in { try signing.sign($0) } })
        }
        effect.copy = copy.hex
        for index in effect.tags.indices {
            guard let tag = try git({ try repository.tag(named: effect.tags[index].name) }) else { continue }
            var message = tag.message
            var sign: ((String) throws -> String)?
            if let text = message, let start = Self.signatureStart(in: text), let tagSigning {
                message = String(text[..<start])
                sign = { try tagSigning.sign($0) }
            }
            let moved = try git {
                try repository.createTag(name: tag.name, target: copy, message: message, tagger: tag.tagger, force: true, sign: sign)
            }
            effect.tags[index].after = moved.object.hex
        }
        step.done(handle, effect)
        step.log("\(remote)'s \(branch.name) moved to \(tip.short) (another release landed first): the release commit is now \(copy.short) on top of it")
        return true
    }
}
