import Foundation
internal import Git

/// A release push that was cut short before the remote answered (the run killed while a hook
/// held it), proved never to have landed: the remote holds, under every ref the push sent, an
/// object other than the one sent and other than the one it held when the push was sent — or,
/// when that holds for every tag it sent, a branch still at the value it held then. Each
/// ref update of a push is a compare-and-swap from the old value to the new one, so that push can
/// no longer apply anywhere: another run released instead, and this run never passed its point of
/// no return (what the remote accepted). The one check `shiplane resume` (the push step run again)
/// and `shiplane rollback` make, so neither stays stuck past a point that was never passed.
package struct UnlandedPush: ReportableError {
    /// The remote's name.
    package var remote: String
    /// Each ref the push sent, with the commit the remote names by it now (a tag peeled), short.
    package var remoteHas: [(ref: String, commit: String)]

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
        let tags = sent.filter { $0.key.hasPrefix("refs/tags/") }
        let releaseTaken = !tags.isEmpty && tags.allSatisfy { heldByAnother($0.key, $0.value) }
        let refuted = sent.allSatisfy { ref, value in
            heldByAnother(ref, value) || (releaseTaken && ref.hasPrefix("refs/heads/") && has[ref]?.hex == pushed.before?[ref])
        }
        guard refuted else { return nil }
        let peeled = (try? git({ try repository.remoteReferences(remote: pushed.remote, credentials: credentials, peeled: true) })) ?? has
        return UnlandedPush(
            remote: pushed.remote, remoteHas: sent.keys.sorted().map { ($0, (peeled[$0] ?? has[$0])?.short ?? "?") })
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
        let held = remoteHas.map { "\(PushRefused.shortName($0.ref)) at \($0.commit)" }.joined(separator: ", ")
        return "\(remote) never accepted this run's push, which was cut short before \(remote) answered: \(remote) now has \(held), "
            + "which another run pushed, so nothing of this run was published and it rolls back"
    }

    package var info: [(key: String, value: String)] {
        remoteHas.map { (key: "\(remote) has", value: "\($0.ref) at \($0.commit)") }
    }

    package var suggestion: String? {
        let pull = "`git pull --tags \(remote) \(branch ?? "BRANCH")`"
        let from = tag.map { " from \(remote)'s \($0)" } ?? ""
        return "bring this checkout level with \(remote) (\(pull)); the next release continues\(from)"
    }

    /// One line for `shiplane rollback`'s report.
    package var line: String { "\(message). Next: \(suggestion ?? "")." }
}
