import Foundation

/// A screenshot or app preview this run reserved and uploaded into a set. Written down before
/// the reserve call with `id` nil: when the answer never came, the undo finds it in the set by
/// file name and checksum (or none yet), among the items that were not there before (`existingIDs`).
struct AppStoreMediaUploaded: Effect, Equatable {
    static let kind = "appstoreconnect.mediaUploaded"
    var api: String
    /// `appScreenshots` or `appPreviews`.
    var resource: String
    var setID: String
    var id: String?
    var fileName: String
    /// Nil when the file's MD5 was still being computed as it was reserved (matched by name alone then).
    var checksum: String?
    /// The set's items before this upload: never this run's.
    var existingIDs: [String]
    /// "en-US APP_IPHONE_67", for messages.
    var label: String

    var reach: EffectReach { .service }

    /// Deletes the item; one already gone (or a set already gone) counts as deleted.
    /// - Throws: when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let kind = AppStoreMediaKind.of(resource: resource)
        let media = try AppStoreMediaClient.client(context: context, api: api, what: "the \(kind.noun) \(fileName) (\(label))")
        var target = id
        if target == nil {
            let items: [AppStoreMediaClient.Item]
            do {
                items = try await media.items(kind, setID: setID)
            } catch let error as StoreAPIError where error.status == 404 {
                return
            }
            target = items.first { item in
                !existingIDs.contains(item.id) && item.attributes?.fileName == fileName
                    && (checksum == nil || item.attributes?.sourceFileChecksum == nil || item.attributes?.sourceFileChecksum == checksum)
            }?.id
        }
        guard let target else { return }
        try await media.delete(resource, id: target, what: "the \(kind.noun) \(fileName) (\(label))")
    }
}

/// A screenshot or app preview set this run created for a version localization; with no id (the
/// answer never came), found by its localization and type.
struct AppStoreMediaSetCreated: Effect, Equatable {
    static let kind = "appstoreconnect.mediaSetCreated"
    var api: String
    /// `appScreenshotSets` or `appPreviewSets`.
    var resource: String
    var id: String?
    var localizationID: String
    var type: String
    var label: String

    var reach: EffectReach { .service }

    /// Deletes the set (with whatever is still in it: this run made it); one already gone counts as deleted.
    /// - Throws: when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let kind = AppStoreMediaKind.of(resource: resource)
        let media = try AppStoreMediaClient.client(context: context, api: api, what: "the \(label) \(kind.noun) set")
        var target = id
        if target == nil {
            do {
                target = try await media.sets(kind, localizationID: localizationID, type: type).first?.id
            } catch let error as StoreAPIError where error.status == 404 {
                return
            }
        }
        guard let target else { return }
        try await media.delete(resource, id: target, what: "the \(label) \(kind.noun) set")
    }
}

/// A screenshot or app preview this run deleted because the folder replaced or dropped it,
/// after the set's new items had all uploaded. App Store Connect cannot bring a deleted image
/// back, so its undo says it stays gone.
struct AppStoreMediaDeleted: Effect, Equatable {
    static let kind = "appstoreconnect.mediaDeleted"
    var api: String
    var resource: String
    var id: String
    var fileName: String
    var label: String

    var reach: EffectReach { .service }

    /// - Throws: `EffectStays`, always: a deleted screenshot cannot be restored through the API.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let noun = AppStoreMediaKind.of(resource: resource).noun
        throw EffectStays("the \(noun) \(fileName) (\(label)) was replaced and deleted on App Store Connect, which cannot bring it back; the set keeps the images that replaced it (run the lane from the earlier commit to upload the old ones again)")
    }
}

/// A set's order this run changed; `previous` is the order of item ids before.
struct AppStoreMediaReordered: Effect, Equatable {
    static let kind = "appstoreconnect.mediaReordered"
    var api: String
    /// `appScreenshotSets` or `appPreviewSets`.
    var resource: String
    var setID: String
    var previous: [String]
    var label: String

    var reach: EffectReach { .service }

    /// Puts the items still in the set back in their earlier order (items added since go last, in their order).
    /// - Throws: when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let kind = AppStoreMediaKind.of(resource: resource)
        let media = try AppStoreMediaClient.client(context: context, api: api, what: "the order of the \(label) \(kind.noun)s")
        let current: [String]
        do {
            current = try await media.items(kind, setID: setID).map(\.id)
        } catch let error as StoreAPIError where error.status == 404 {
            return
        }
        let wanted = previous.filter(current.contains) + current.filter { !previous.contains($0) }
        guard wanted != current else { return }
        try await media.reorder(kind, setID: setID, ids: wanted)
    }
}

/// The still frame (`previewFrameTimeCode`) of an app preview already on App Store Connect, changed
/// without uploading it again; `previous` is the one it had (nil: none was reported).
struct AppStorePreviewFrameChanged: Effect, Equatable {
    static let kind = "appstoreconnect.previewFrameChanged"
    var api: String
    var id: String
    var fileName: String
    var previous: String?
    var timeCode: String
    /// "en-US IPHONE_67", for messages.
    var label: String

    var reach: EffectReach { .service }

    /// Puts the earlier still frame back; a preview already gone has nothing to restore.
    /// - Throws: when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let media = try AppStoreMediaClient.client(context: context, api: api, what: "the still frame of the app preview \(fileName) (\(label))")
        do {
            try await media.setPreviewFrame(id: id, timeCode: previous, fileName: fileName)
        } catch let error as StoreAPIError where error.status == 404 {
            return
        }
    }
}
