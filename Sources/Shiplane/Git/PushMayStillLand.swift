import Foundation
internal import Git

/// The refs of a taken-back push (`UnlandedPush`) that the remote could still create, should it
/// still hold that push (its hook sleeping): receive-pack applies each ref of a push on its own,
/// so a tag whose compare-and-swap (absent → this run's tag) still passes can land alone, late,
/// after the run rolled back. Kept in the run folder (`.git/shiplane/may-still-land.json`, 0600).
/// What the push carried for the run's observers (origin's run record) is theirs to remember
/// (`TakenBackRecord`): this names only the push's own refs.
///
/// The next push from this checkout looks at the remote first (`check`): a ref the remote now
/// holds at the very object that push sent landed late, and the push stops before sending
/// anything, saying so once; a ref the remote holds at another object can no longer land and is
/// forgotten; a ref still absent is kept for the next look.
package struct PushMayStillLand: RememberedAfterTakeBack {
    /// The taken-back run's id.
    package var runID: String
    /// The remote's name.
    package var remote: String
    /// Each ref, with the object the cut-short push sent it with.
    package var refs: [String: String]
    /// When the run took its push back.
    package var takenBackAt: Date

    static let fileName = "may-still-land.json"

    /// Remembers the refs of `unlanded` that may still land, for run `runID` of the work tree `workTree`.
    /// - Returns: nil once remembered; else a warning for the run's output: what could not be
    ///   written, and how to look for those refs by hand, since the next push cannot.
    @discardableResult
    static func remember(_ unlanded: UnlandedPush, runID: String, workTree: String) -> String? {
        let store: RunStore
        do { store = try RunStore.forWorkTree(workTree) } catch { return notRemembered((error as? any ReportableError)?.message ?? "\(error)", unlanded) }
        var all = load(store).filter { $0.runID != runID }
        if !unlanded.mayStillLand.isEmpty {
            all.append(PushMayStillLand(runID: runID, remote: unlanded.remote, refs: unlanded.mayStillLand, takenBackAt: Date()))
        }
        return save(all, store).flatMap { notRemembered($0, unlanded) }
    }

    private static func notRemembered(_ reason: String, _ unlanded: UnlandedPush) -> String? {
        guard !unlanded.mayStillLand.isEmpty else { return nil }
        let refs = unlanded.mayStillLand.keys.sorted()
        return "\(reason): the next push from this checkout cannot look for \(refs.joined(separator: ", ")), which \(unlanded.remote) may still create from the push taken back; "
            + "look with `git ls-remote \(unlanded.remote) \(refs.joined(separator: " "))` before releasing again"
    }

    /// Looks at `remote` for the refs a taken-back push of this checkout may still create.
    /// - Throws: `LatePushLanded` when the remote holds one at the very object that push sent:
    ///   said once (the entry is forgotten), before this push sends anything.
    static func check(remote: String, repository: Repository, credentials: PushCredentials, workTree: String) throws {
        guard let store = try? RunStore.forWorkTree(workTree) else { return }
        let all = load(store)
        guard all.contains(where: { $0.remote == remote && !$0.refs.isEmpty }),
              let has = try? git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false) })
        else { return }
        var kept: [PushMayStillLand] = []
        var landed: [(entry: PushMayStillLand, ref: String)] = []
        for entry in all {
            guard entry.remote == remote else {
                kept.append(entry)
                continue
            }
            var left = entry
            left.refs = [:]
            for (ref, value) in entry.refs {
                if has[ref]?.hex == value {
                    landed.append((entry, ref))
                } else if has[ref] == nil {
                    left.refs[ref] = value
                }
                // At another object: its compare-and-swap can never pass; forgotten.
            }
            if !left.refs.isEmpty { kept.append(left) }
        }
        save(kept, store)
        guard !landed.isEmpty else { return }
        let peeled = (try? git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: true) })) ?? has
        throw LatePushLanded(
            remote: remote, runID: landed[0].entry.runID, takenBackAt: landed[0].entry.takenBackAt,
            refs: landed.map(\.ref).sorted().map { ($0, peeled[$0]?.short ?? "?") })
    }
}

/// A push an earlier run of this checkout took back (its release rolled back, the remote's branch
/// having moved on) that the remote applied in part after all: it held that push and then created
/// a ref of it. Published now, so never deleted by Shiplane; the run stops before sending anything.
package struct LatePushLanded: ReportableError {
    var remote: String
    var runID: String
    var takenBackAt: Date
    var refs: [(ref: String, commit: String)]

    private var names: String { refs.map { "\(PushRefused.shortName($0.ref)) at \($0.commit)" }.joined(separator: ", ") }

    package var message: String {
        "\(remote) applied part of a push after all that run \(runID) of this checkout took back (rolled back \(RunStore.iso8601(takenBackAt))): "
            + "\(remote) now has \(names), the very object that run sent — \(remote) held that push and applied it late, "
            + "after its branch had moved on. This run sent nothing"
    }

    package var info: [(key: String, value: String)] {
        refs.map { (key: "\(remote) has", value: "\($0.ref) at \($0.commit) (run \(runID))") }
    }

    package var suggestion: String? {
        if let branch = refs.first(where: { $0.ref.hasPrefix("refs/heads/") }), !refs.contains(where: { $0.ref.hasPrefix("refs/tags/") }) {
            let name = PushRefused.shortName(branch.ref)
            return "\(remote)'s \(name) now holds that run's release commit, without its tag (another run's release holds that version); "
                + "bring this checkout level (`git pull --tags \(remote) \(name)`) and run again: the next release continues from there. This is said once"
        }
        let first = refs.first.map { PushRefused.shortName($0.ref) } ?? "TAG"
        return "it is published, and Shiplane never deletes what a remote accepted. Fetch it (`git fetch \(remote) tag \(first)`) and decide: "
            + "keep it (bring its commit into the branch, `git merge \(first)`, and release the next version) or, if nobody uses it, "
            + "delete it on \(remote) (`git push \(remote) :refs/tags/\(first)`); then run again. This is said once"
    }
}
