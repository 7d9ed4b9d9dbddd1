import Foundation

/// A Google Play edit this run opened (`api`: the API base): deleted unless committed.
///
/// Its undo is a compare-and-swap, the journal's rule: the edit is deleted only while Google
/// still holds it with the id and the expiry it had when the run opened (or resumed) it; an edit
/// gone since (committed, deleted, expired) leaves nothing to do, and any other is left as it is,
/// with an error that says so.
package struct PlayEditOpened: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "googleplay.edit"
    /// The API base URL.
    package var api: String
    /// The app's package name.
    package var packageName: String
    /// The edit's id.
    package var editID: String
    /// When Google said the edit expires (seconds since 1970), as the run found it; nil in
    /// records written before it was kept (the id alone is then compared).
    package var expiryTimeSeconds: String?
    /// The folder of the store state file that lets a re-run resume the edit; the undo removes
    /// the file when it names this edit (nil in records written before it was kept).
    package var stateFolder: String?
    /// The name of that record (nil: the upload's, `play-<packageName>`).
    package var stateName: String?

    /// Describes an edit opened (or resumed) by this run.
    package init(api: String, packageName: String, editID: String, expiryTimeSeconds: String? = nil, stateFolder: String? = nil,
                 stateName: String? = nil) {
        self.stateName = stateName
        self.api = api
        self.packageName = packageName
        self.editID = editID
        self.expiryTimeSeconds = expiryTimeSeconds
        self.stateFolder = stateFolder
    }

    /// On Google Play.
    package var reach: EffectReach { .service }

    /// Deletes the edit while it is as the run left it, and the state file's record of it.
    /// - Throws: when the service account is not set here, Google refuses, or the edit Google
    ///   holds under this id is not the run's (then it is left as it is).
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GooglePlayClient.forUndo(api: api, packageName: packageName, in: context, staying: "the Google Play edit \(editID)")
        guard let found = try await client.edit(editID) else {
            // Committed, deleted or expired since: nothing of it is left to delete.
            forgetResumeRecord()
            return
        }
        if found.id != editID || (expiryTimeSeconds != nil && found.expiryTimeSeconds != expiryTimeSeconds) {
            throw ShiplaneError(
                "the Google Play edit \(editID) of \(packageName) is not the one this run opened (Google's expires at "
                    + "\(found.expiryTimeSeconds ?? "no time given"), the run's at \(expiryTimeSeconds ?? "?")): left as it is",
                info: [("edit", editID), ("package", packageName)],
                suggestion: "nothing of this run is in it to undo; delete it in Play Console if no one else is using it, or let it expire")
        }
        try await client.deleteEdit(editID)
        forgetResumeRecord()
    }

    /// Removes the state file's record of the edit when it names this one.
    private func forgetResumeRecord() {
        guard let stateFolder else { return }
        let state = StoreResumeState(folder: stateFolder)
        let name = stateName ?? "play-\(packageName)"
        if state.read(PlayStorePublisher.EditRecord.self, name: name)?.editID == editID { state.remove(name: name) }
    }
}

extension GooglePlayClient {
    /// The client an undo of a Play effect uses: the API the run used, the service account of the
    /// process undoing it (the run itself, the supervisor, or `shiplane rollback`).
    /// - Throws: when the service account is not set here: `what` stays, and the error says how to undo it.
    static func forUndo(api: String, packageName: String, in context: EffectContext, staying what: String) throws -> GooglePlayClient {
        try GooglePlayStore.forUndo(api: api, app: packageName, in: context, staying: "\(what) stays", hint: "; an open edit expires on its own").client
    }
}
