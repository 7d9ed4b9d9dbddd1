import Foundation
internal import Git

/// A release push that was cut short before the remote answered (the run killed while a hook
/// held it), proved never to have landed: the remote holds, under every ref the push sent, an
/// object other than the one sent and other than the one it held when the push was sent — or,
/// when that holds for every tag it sent, a branch still at the value it held then; or, the
/// reverse, when it holds for every branch it sent (and that branch does not contain the commit
/// sent), tags it still does not have. Each ref update of a push is a compare-and-swap from the old
/// value to the new one, so that release can no longer land whole: another run released (or
/// someone pushed) instead, and this run never passed its point of no return (what the remote
/// accepted). The one check `shiplane resume` (the push step run again), `shiplane rollback` and
/// the supervisor make, so none stays stuck past a point that was never passed.
///
/// Receive-pack applies each ref of a push on its own, so a push the remote still holds (its hook
/// sleeping) can yet create the refs still at their old value — a tag alone, at a commit the
/// branch never got. Those are `mayStillLand`: the run remembers them (`PushMayStillLand`) and the
/// next push from this checkout checks for them.
package struct UnlandedPush: ReportableError {
    /// The remote's name.
    package var remote: String
    /// Each ref the push sent, with the commit the remote names by it now (a tag peeled), short;
    /// nil when the remote has no such ref.
    package var remoteHas: [(ref: String, commit: String?)]
    /// The refs sent that the remote still holds at the value it held when the push was sent (a
    /// tag it does not have), with the object sent: a push the remote still holds could create them.
    package var mayStillLand: [String: String] = [:]
    /// Whether the push is refuted by the branch: the remote's branch moved to a commit that does
    /// not contain this run's, and it has none of the tags sent (another run released, or someone
    /// pushed, in between).
    package var branchMovedOn = false

    /// Asks the remote what it holds under the refs `pushed` sent; the verdict when none of them
    /// can ever take this push's value, nil when one may (or the remote cannot be asked, or the
    /// record is older than the values it needs).
    static func look(_ pushed: RefsPushed, in repository: Repository, credentials: PushCredentials) -> UnlandedPush? {
        guard let sent = pushed.sent, !sent.isEmpty,
              let has = try? git({ try repository.remoteReferences(remote: pushed.remote, credentials: credentials, peeled: false) })
        else { return nil }
        func heldByAnother(_ ref: String, _ value: String) -> Bool {
            guard let now = has[ref]?.hex else { return false }
            return now != value && now != pushed.before?[ref]
        }
        // The release is its tags: when another object holds every tag sent, this push can never
        // publish it, and a branch still at its old value has nothing of this run either (another
        // run released with a tag alone, or its branch update was refused). Landing late, the
        // held push could move that branch only to a commit no tag of the release names.
        func asBefore(_ ref: String) -> Bool { has[ref]?.hex == pushed.before?[ref] }
        let tags = sent.filter { $0.key.hasPrefix("refs/tags/") }
        let branches = sent.filter { $0.key.hasPrefix("refs/heads/") }
        let releaseTaken = !tags.isEmpty && tags.allSatisfy { heldByAnother($0.key, $0.value) }
        // The reverse: the branch moved on (another run released without this version's tag, or
        // someone pushed) and no tag sent is there. The branch's compare-and-swap can never pass,
        // so this release commit never becomes the branch's; the tags alone would name a commit
        // off every branch, which is no release either.
        let branchMovedOn = !releaseTaken && !branches.isEmpty && branches.allSatisfy { heldByAnother($0.key, $0.value) }
            && tags.allSatisfy { asBefore($0.key) }
        let refuted = sent.allSatisfy { ref, value in
            heldByAnother(ref, value) || (releaseTaken && ref.hasPrefix("refs/heads/") && asBefore(ref))
                || (branchMovedOn && ref.hasPrefix("refs/tags/"))
        }
        guard refuted else { return nil }
        // A branch that moved on from this run's own commit (the push landed, someone built on it)
        // holds the release: only a branch that does not contain it refutes the push.
        if branchMovedOn || !releaseTaken,
           branches.contains(where: { landedUnder($0.key, commit: $0.value, remote: pushed.remote, repository, credentials: credentials) }) {
            return nil
        }
        let peeled = (try? git({ try repository.remoteReferences(remote: pushed.remote, credentials: credentials, peeled: true) })) ?? has
        var unlanded = UnlandedPush(remote: pushed.remote, remoteHas: sent.keys.sorted().map { ($0, (peeled[$0] ?? has[$0])?.short) })
        unlanded.mayStillLand = sent.filter { asBefore($0.key) }
        unlanded.branchMovedOn = branchMovedOn
        return unlanded
    }

    /// Whether the remote's `ref` contains `commit`; true when that cannot be told, so a push
    /// that may have landed is never taken back.
    static func landedUnder(
        _ ref: String, commit: String, remote: String, _ repository: Repository, credentials: PushCredentials
    ) -> Bool {
        guard let relation = relation(of: ref, to: commit, remote: remote, repository, credentials: credentials) else { return true }
        return relation.contains
    }

    /// How the remote's `ref` stands to `commit`: whether it contains it, and whether `commit`
    /// contains it (a push of `commit` would be a fast-forward); fetched into a scratch ref,
    /// deleted after. Nil when that cannot be told; both false when the remote has no such ref.
    static func relation(
        of ref: String, to commit: String, remote: String, _ repository: Repository, credentials: PushCredentials
    ) -> (contains: Bool, fastForward: Bool)? {
        let scratch = "refs/shiplane/unlanded-check"
        // By its address, as `ensureRemoteBranchIsBehindHead` fetches: the remote's own
        // tracking branches stay as they are.
        guard let sent = ObjectID(hex: commit), let url = (try? git({ try repository.remoteURL(named: remote) })) ?? nil,
              let found = try? git({ try repository.fetchIfPresent(remote: url, source: ref, destination: scratch, credentials: credentials) })
        else { return nil }
        guard found else { return (false, false) }
        defer { try? git { try repository.deleteReference(scratch) } }
        guard let tip = try? git({ try repository.resolveCommit(scratch) }),
              let contains = try? git({ try repository.reachable([sent], from: tip) }).contains(sent),
              let fastForward = try? git({ try repository.reachable([tip], from: sent) }).contains(tip) else { return nil }
        return (contains, fastForward)
    }

    /// `look` for a run's record in any process: opens the work tree and takes the push's
    /// credentials from `environment` as the push did.
    static func look(_ pushed: RefsPushed, workTree: String, environment: LaneEnvironment) -> UnlandedPush? {
        guard let repository = try? RepositoryAccess.open(at: workTree),
              let url = try? git({ try repository.remoteURL(named: pushed.remote) }) else { return nil }
        return look(pushed, in: repository, credentials: Push.credentials(for: url, environment: environment))
    }

    /// The release tag the remote holds, for the suggestion (the first tag sent).
    private var tag: String? {
        remoteHas.first { $0.ref.hasPrefix("refs/tags/") }.map { PushRefused.shortName($0.ref) }
    }

    private var branch: String? {
        remoteHas.first { $0.ref.hasPrefix("refs/heads/") }.map { PushRefused.shortName($0.ref) }
    }

    package var message: String {
        let held = remoteHas.map { has in has.commit.map { "\(PushRefused.shortName(has.ref)) at \($0)" } ?? "no \(PushRefused.shortName(has.ref))" }
            .joined(separator: ", ")
        if branchMovedOn {
            return "\(remote) never accepted this run's push, which was cut short before \(remote) answered: \(remote) now has \(held); "
                + "its \(branch ?? "branch") moved on (another run released, or someone pushed) to a commit without this run's, "
                + "so this release can never be published as made; nothing of it was, and it rolls back"
        }
        return "\(remote) never accepted this run's push, which was cut short before \(remote) answered: \(remote) now has \(held), "
            + "which another run pushed, so nothing of this run was published and it rolls back"
    }

    package var info: [(key: String, value: String)] {
        remoteHas.map { (key: "\(remote) has", value: "\($0.ref) at \($0.commit ?? "(none)")") }
    }

    package var suggestion: String? {
        let pull = "`git pull --tags \(remote) \(branch ?? "BRANCH")`"
        if branchMovedOn {
            let late = mayStillLand.keys.filter { $0.hasPrefix("refs/tags/") }.sorted().map(PushRefused.shortName)
            let caution = late.isEmpty ? "" : "; should \(remote) still hold this push (a hook), it may yet create \(late.joined(separator: ", ")) alone, "
                + "and the next push from this checkout looks for that and says so"
            return "bring this checkout level with \(remote) (\(pull)) and release again: the version and notes are decided again "
                + "from \(remote)'s \(branch ?? "branch")\(caution)"
        }
        let from = tag.map { " from \(remote)'s \($0)" } ?? ""
        return "bring this checkout level with \(remote) (\(pull)); the next release continues\(from)"
    }

    /// One line for `shiplane rollback`'s report.
    package var line: String { "\(message). Next: \(suggestion ?? "")." }
}
