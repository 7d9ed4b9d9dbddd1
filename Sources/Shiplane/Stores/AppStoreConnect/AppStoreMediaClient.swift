import Foundation

/// Screenshot and app preview sets and their items on App Store Connect: the reads and writes the
/// action and the undos share.
struct AppStoreMediaClient: Sendable {
    struct SetAttributes: Decodable { var screenshotDisplayType: String?; var previewType: String? }
    struct ItemAttributes: Decodable {
        var fileName: String?
        var fileSize: Int64?
        var sourceFileChecksum: String?
        /// An app preview's still frame, `hh:mm:ss:ff`.
        var previewFrameTimeCode: String?
        var uploadOperations: [ASCUploadOperation]?
        var assetDeliveryState: ASCDeliveryState?
        var videoDeliveryState: ASCDeliveryState?

        /// The delivery state that counts: the video's for a preview, the asset's otherwise.
        var state: ASCDeliveryState? { videoDeliveryState ?? assetDeliveryState }
    }
    typealias MediaSet = ASCResource<SetAttributes>
    typealias Item = ASCResource<ItemAttributes>

    let client: AppStoreConnectClient

    static func client(context: EffectContext, api: String, what: String) throws -> AppStoreMediaClient {
        AppStoreMediaClient(client: try AppStoreListingClient.client(context: context, api: api, what: what).client)
    }

    /// The sets of a version localization (every page).
    func sets(_ kind: AppStoreMediaKind, localizationID: String, type: String? = nil) async throws -> [MediaSet] {
        var query = [("limit", "200")]
        if let type { query.insert(("filter[\(kind.typeAttribute)]", type), at: 0) }
        return try await client.getAll("/v1/appStoreVersionLocalizations/\(localizationID)/\(kind.setResource)", query: query, as: MediaSet.self,
                                       operation: "read the \(kind.noun) sets")
    }

    /// A set's items in the set's order (every page).
    func items(_ kind: AppStoreMediaKind, setID: String) async throws -> [Item] {
        try await client.getAll("/v1/\(kind.setResource)/\(setID)/\(kind.resource)", query: [("limit", "200")], as: Item.self,
                                operation: "read the \(kind.noun)s of set \(setID)")
    }

    /// Creates a set of `type` for a version localization; returns its id.
    func createSet(_ kind: AppStoreMediaKind, localizationID: String, type: String) async throws -> String {
        let body: [String: Any] = ["data": ["type": kind.setResource, "attributes": [kind.typeAttribute: type],
                                            "relationships": ["appStoreVersionLocalization": ["data": ["type": "appStoreVersionLocalizations", "id": localizationID]]]]]
        return try await client.send(.post, "/v1/\(kind.setResource)", body: body, as: ASCDocument<MediaSet>.self,
                                     operation: "create the \(type) \(kind.noun) set").data.id
    }

    /// Reserves an item in a set: Apple answers with its id and the upload operations.
    /// `extra`: attributes besides the file's name and size (an app preview's `mimeType` and `previewFrameTimeCode`).
    func reserve(_ kind: AppStoreMediaKind, setID: String, fileName: String, fileSize: Int64, extra: [String: String] = [:]) async throws -> Item {
        var attributes: [String: Any] = ["fileName": fileName, "fileSize": fileSize]
        for (name, value) in extra { attributes[name] = value }
        let body: [String: Any] = ["data": ["type": kind.resource, "attributes": attributes,
                                            "relationships": [kind.setRelationship: ["data": ["type": kind.setResource, "id": setID]]]]]
        return try await client.send(.post, "/v1/\(kind.resource)", body: body, as: ASCDocument<Item>.self,
                                     operation: "reserve the \(kind.noun) \(fileName)").data
    }

    /// Commits an uploaded item with its MD5, which Apple checks against the bytes it got.
    /// `extra`: attributes besides the checksum (an app preview's `previewFrameTimeCode`).
    func commit(_ kind: AppStoreMediaKind, id: String, checksum: String, fileName: String, extra: [String: String] = [:]) async throws -> Item {
        var attributes: [String: Any] = ["uploaded": true, "sourceFileChecksum": checksum]
        for (name, value) in extra { attributes[name] = value }
        let body: [String: Any] = ["data": ["type": kind.resource, "id": id, "attributes": attributes]]
        return try await client.send(.patch, "/v1/\(kind.resource)/\(id)", body: body, as: ASCDocument<Item>.self,
                                     operation: "commit the \(kind.noun) \(fileName)").data
    }

    /// Sets the still frame of an app preview already uploaded (Apple's `AppPreviewUpdateRequest`
    /// with `previewFrameTimeCode` alone); nil asks for none.
    func setPreviewFrame(id: String, timeCode: String?, fileName: String) async throws {
        let attributes: [String: Any] = ["previewFrameTimeCode": timeCode ?? NSNull()]
        let body: [String: Any] = ["data": ["type": AppStoreMediaKind.previews.resource, "id": id, "attributes": attributes]]
        _ = try await client.perform(.patch, "/v1/\(AppStoreMediaKind.previews.resource)/\(id)", body: body,
                                     operation: "set the still frame of the app preview \(fileName)")
    }

    /// Deletes an item; one already gone counts as deleted.
    func delete(_ resource: String, id: String, what: String) async throws {
        _ = try await client.perform(.delete, "/v1/\(resource)/\(id)", operation: "delete \(what)", accepting: [404])
    }

    /// Sets the order of a set's items.
    func reorder(_ kind: AppStoreMediaKind, setID: String, ids: [String]) async throws {
        let body: [String: Any] = ["data": ids.map { ["type": kind.resource, "id": $0] }]
        _ = try await client.perform(.patch, "/v1/\(kind.setResource)/\(setID)/relationships/\(kind.resource)", body: body,
                                     operation: "put the \(kind.noun)s of set \(setID) in order")
    }
}

extension AppStoreMediaKind {
    /// The kind whose item resource is `resource`.
    static func of(resource: String) -> AppStoreMediaKind { resource == previews.resource || resource == previews.setResource ? .previews : .screenshots }
}
