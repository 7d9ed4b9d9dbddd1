import Foundation

/// A build upload an earlier run began and never finished (awaiting its file, no build), which
/// this run deleted before making its own (`StoreUploadStart.replace`). Written down before the
/// delete. Its undo has nothing to restore: the upload held no file and no build, and App Store
/// Connect cannot bring a deleted upload back; rollback says so.
package struct BuildUploadReplaced: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "appstoreconnect.unfinishedUploadDeleted"
    /// The API base URL.
    package var api: String
    /// The deleted upload's id.
    package var uploadID: String
    /// The version and build number, for messages.
    package var label: String

    /// Describes the deletion of an unfinished build upload.
    package init(api: String, uploadID: String, label: String) {
        self.api = api
        self.uploadID = uploadID
        self.label = label
    }

    /// On App Store Connect.
    package var reach: EffectReach { .service }

    /// Nothing to restore.
    /// - Throws: `EffectStays`, always: the deletion stays, and rollback says why that loses nothing.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("build upload \(uploadID) for \(label), left unfinished by an earlier run, stays deleted: it held no file and no build, so there is nothing to restore")
    }
}
