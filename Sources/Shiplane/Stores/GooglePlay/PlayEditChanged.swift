import Foundation

/// One write inside a Google Play edit this run holds (a listing's members, an image uploaded or
/// deleted, a track's releases), with what it replaced. Nothing reaches users before the edit is
/// committed; the undo puts the replaced value back while the edit exists, and the edit's own
/// undo (`PlayEditOpened`) then deletes it.
package struct PlayEditChanged: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "googleplay.edit-change"

    /// What was written.
    package enum Change: String, Codable, Sendable {
        /// Members of a language's listing were set.
        case listing
        /// An image was uploaded.
        case imageUploaded
        /// An image was deleted.
        case imageDeleted
        /// A track's releases were written.
        case track
    }

    /// The API base URL.
    package var api: String
    /// The app's package name.
    package var packageName: String
    /// The edit the write went into.
    package var editID: String
    /// What was written.
    package var change: Change
    /// The listing's language (listings and images).
    package var language: String?
    /// The image type (phoneScreenshots, icon, …).
    package var imageType: String?
    /// The image's id (known once uploaded).
    package var imageID: String?
    /// The image's SHA-256.
    package var sha256: String?
    /// The track written.
    package var track: String?
    /// What the write replaced, as JSON: the listing's members or the track's releases; nil when there was none.
    package var before: String?

    /// Describes one write inside an edit.
    package init(api: String, packageName: String, editID: String, change: Change, language: String? = nil, imageType: String? = nil,
                imageID: String? = nil, sha256: String? = nil, track: String? = nil, before: String? = nil) {
        self.api = api
        self.packageName = packageName
        self.editID = editID
        self.change = change
        self.language = language
        self.imageType = imageType
        self.imageID = imageID
        self.sha256 = sha256
        self.track = track
        self.before = before
    }

    /// In a Google Play edit.
    package var reach: EffectReach { .service }

    /// Puts back what the write replaced while the edit exists; an edit already deleted holds nothing to undo.
    /// - Throws: when the service account is not set here, or Google refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GooglePlayClient.forUndo(api: api, packageName: packageName, in: context, staying: "the change in Google Play edit \(editID)")
        guard try await client.editExists(editID) else { return }
        let replaced = before.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        switch change {
        case .listing:
            guard let language else { return }
            if let fields = replaced as? [String: String] {
                try await client.replaceListing(editID: editID, language: language, fields: fields)
            } else {
                try await client.deleteListing(editID: editID, language: language)
            }
        case .imageUploaded:
            guard let language, let imageType, let imageID else { return }
            try await client.deleteImage(editID: editID, language: language, type: imageType, imageID: imageID)
        case .imageDeleted:
            // Only the edit held the deletion: deleting the edit (its own undo, next) brings the image back.
            return
        case .track:
            guard let track else { return }
            try await client.putTrack(editID: editID, track: track, releases: replaced as? [[String: Any]] ?? [])
        }
    }
}
