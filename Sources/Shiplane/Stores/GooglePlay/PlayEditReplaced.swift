import Foundation

/// A Google Play edit an earlier run left open without this bundle, which this run deleted before
/// opening its own (`StoreUploadStart.replace`). Written down before the delete. Its undo has
/// nothing to restore: an edit is a private draft nobody saw, a deleted one cannot be brought
/// back, and the run's own edit carries the upload; rollback says so.
package struct PlayEditReplaced: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "googleplay.unfinishedEditDeleted"
    /// The API base URL.
    package var api: String
    /// The app's package name.
    package var packageName: String
    /// The deleted edit's id.
    package var editID: String

    /// Describes the deletion of an edit left open.
    package init(api: String, packageName: String, editID: String) {
        self.api = api
        self.packageName = packageName
        self.editID = editID
    }

    /// On Google Play.
    package var reach: EffectReach { .service }

    /// Nothing to restore.
    /// - Throws: `EffectStays`, always: the deletion stays, and rollback says why that loses nothing.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("Google Play edit \(editID) of \(packageName), left open by an earlier run without this bundle, stays deleted: it was a private draft never committed, so there is nothing to restore")
    }
}
