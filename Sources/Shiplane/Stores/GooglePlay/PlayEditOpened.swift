import Foundation

/// A Google Play edit this run opened (`api`: the API base): deleted unless committed.
package struct PlayEditOpened: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "googleplay.edit"
    /// The API base URL.
    package var api: String
    /// The app's package name.
    package var packageName: String
    /// The edit's id.
    package var editID: String
    /// The folder of the store state file that lets a re-run resume the edit; the undo removes
    /// the file when it names this edit (nil in records written before it was kept).
    package var stateFolder: String?
    /// The name of that record (nil: the upload's, `play-<packageName>`).
    package var stateName: String?

    /// Describes an edit opened (or resumed) by this run.
    package init(api: String, packageName: String, editID: String, stateFolder: String? = nil, stateName: String? = nil) {
        self.stateName = stateName
        self.api = api
        self.packageName = packageName
        self.editID = editID
        self.stateFolder = stateFolder
    }

    /// On Google Play.
    package var reach: EffectReach { .service }

    /// Deletes the edit, and the state file's record of it.
    /// - Throws: when the service account is not set here, or Google refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GooglePlayClient.forUndo(api: api, packageName: packageName, in: context, staying: "the Google Play edit \(editID)")
        try await client.deleteEdit(editID)
        if let stateFolder {
            let state = StoreResumeState(folder: stateFolder)
            let name = stateName ?? "play-\(packageName)"
            if state.read(PlayStorePublisher.EditRecord.self, name: name)?.editID == editID { state.remove(name: name) }
        }
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
