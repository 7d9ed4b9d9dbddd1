import Foundation
internal import Git

/// Origin's run record carried by a push that the run took back (`UnlandedPush`: cut short, and
/// proved not to have landed then). The record went forced in that push, so a remote that still
/// held the push (its hook sleeping) can apply it late, after the run rolled back: a later look
/// at origin would then find a record of a run that is over. The record's owner remembers it
/// here (`.git/shiplane/taken-back-records.json`, 0600, 24 h, as `PushMayStillLand` keeps the
/// push's own refs), and `lateRecord` withdraws such a record instead of resuming it.
package struct TakenBackRecord: RememberedAfterTakeBack {
    /// The taken-back run's id.
    var runID: String
    /// The remote's name.
    var remote: String
    /// The record's ref the push carried (`RemoteRunRecord.reference(scope:)`).
    var record: String
    /// When the run took its push back.
    var takenBackAt: Date

    static let fileName = "taken-back-records.json"

    /// Remembers that run `runID` of the work tree `workTree` took back a push to `remote` that
    /// carried its record `record`.
    /// - Returns: nil once remembered; else a warning for the run's output: what could not be
    ///   written, and how to find and delete a record the remote applies late, since no later
    ///   run can tell it from a run to resume.
    @discardableResult
    static func remember(runID: String, remote: String, record: String, workTree: String) -> String? {
        let problem: String?
        do {
            let store = try RunStore.forWorkTree(workTree)
            var all = load(store).filter { $0.runID != runID }
            all.append(TakenBackRecord(runID: runID, remote: remote, record: record, takenBackAt: Date()))
            problem = save(all, store)
        } catch {
            problem = (error as? any ReportableError)?.message ?? "\(error)"
        }
        return problem.map {
            "\($0): if \(remote) applies the push taken back late, its \(record) will hold run \(runID), which is over; "
                + "look with `git ls-remote \(remote) \(record)` and delete it with `git push \(remote) --delete \(record)` if it names that run"
        }
    }

    /// The run record `found` on the remote, when it is the record of a push this checkout took
    /// back, which the remote applied late: deleted there (compare-and-swap on its run id), and
    /// the rest of that push looked for as the next push would (`PushMayStillLand.check`). Nil
    /// when `found` is another run's.
    /// - Returns: what was done, for the command to say.
    /// - Throws: `LatePushLanded` when a ref of that push other than the record landed too.
    package static func lateRecord(_ found: RunRecord, workTree: String, environment: LaneEnvironment) throws -> String? {
        guard let store = try? RunStore.forWorkTree(workTree) else { return nil }
        var all = load(store)
        guard let index = all.firstIndex(where: { $0.runID == found.id }) else { return nil }
        let remote = all.remove(at: index).remote
        let warning = RemoteRunRecord.remove(workTree: workTree, remote: remote, environment: environment, runID: found.id)
        save(all, store)
        let said = "\(remote) held the record of run \(found.id), whose push this checkout took back, and applied it late: "
            + (warning.map { "could not delete it (\($0))" } ?? "deleted it there (nothing of that run is published by it)")
        if let repository = try? RepositoryAccess.open(at: workTree), let url = (try? git({ try repository.remoteURL(named: remote) })) ?? nil {
            try PushMayStillLand.check(remote: remote, repository: repository, credentials: Push.credentials(for: url, environment: environment), workTree: workTree)
        }
        return said
    }
}
