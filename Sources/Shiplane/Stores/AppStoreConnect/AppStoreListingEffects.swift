import Foundation

/// A localization of the App Store listing this run changed: `resource` is
/// `appStoreVersionLocalizations` or `appInfoLocalizations`; `previous` keeps each attribute's
/// value before the change (nil: it had none), `values` what the run set.
package struct AppStoreLocalizationUpdated: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "appstoreconnect.localizationUpdated"
    /// The API base URL.
    package var api: String
    /// The resource type.
    package var resource: String
    /// The localization's id.
    package var id: String
    /// Its locale, for messages.
    package var locale: String
    /// Each changed attribute's value before the run.
    package var previous: [String: String?]
    /// Each changed attribute's value the run set.
    package var values: [String: String]

    /// Describes a change.
    package init(api: String, resource: String, id: String, locale: String, previous: [String: String?], values: [String: String]) {
        self.api = api
        self.resource = resource
        self.id = id
        self.locale = locale
        self.previous = previous
        self.values = values
    }

    /// On App Store Connect.
    package var reach: EffectReach { .service }

    /// Puts the previous values back, unless someone changed a field since (then it is kept and reported).
    /// - Throws: an error naming the field changed since, or when the key is not set or Apple refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "\(locale)'s listing")
        let current = try await client.localization(resource: resource, id: id)
        let changedSince = values.keys.sorted().filter { key in
            let now = current.attributes?[key] ?? nil
            return now != values[key] && now != (previous[key] ?? nil)
        }
        guard changedSince.isEmpty else {
            throw ShiplaneError("\(locale)'s \(changedSince.joined(separator: ", ")) changed on App Store Connect since this run set it: left as it is",
                                suggestion: "put the old text back by hand if it should be")
        }
        try await client.updateLocalization(resource: resource, id: id, attributes: previous)
    }
}

/// A localization of the App Store listing this run created (a new locale), or the App Store
/// version itself (`resource` `appStoreVersions`). With no id (the answer never came), the
/// localization is found by its parent and locale.
package struct AppStoreListingCreated: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "appstoreconnect.listingCreated"
    /// The API base URL.
    package var api: String
    /// `appStoreVersions`, `appStoreVersionLocalizations` or `appInfoLocalizations`.
    package var resource: String
    /// The id, once Apple answered.
    package var id: String?
    /// The version or app info the localization belongs to (nil for a version).
    package var parentID: String?
    /// The locale, or the version string for a version.
    package var label: String

    /// Describes a creation.
    package init(api: String, resource: String, id: String?, parentID: String?, label: String) {
        self.api = api
        self.resource = resource
        self.id = id
        self.parentID = parentID
        self.label = label
    }

    /// On App Store Connect.
    package var reach: EffectReach { .service }

    /// Deletes it; one already gone counts as deleted.
    /// - Throws: when the key is not set or Apple refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: label)
        var target = id
        if target == nil, let parentID, resource != "appStoreVersions" {
            target = try await client.localizations(resource: resource, parentID: parentID).first { $0.attributes?["locale"] ?? nil == label }?.id
        }
        guard let target else { return }
        _ = try await client.client.perform(.delete, "/v1/\(resource)/\(target)", operation: "delete \(label)", accepting: [404])
    }
}

/// The listing's reads and writes, shared by the action and the undos.
struct AppStoreListingClient: Sendable {
    typealias Localization = ASCResource<[String: String?]>
    let client: AppStoreConnectClient

    static func client(context: EffectContext, api: String, what: String) throws -> AppStoreListingClient {
        AppStoreListingClient(client: try AppStoreConnectStore.forUndo(api: api, in: context, staying: "\(what) on App Store Connect stays as this run left it").client)
    }

    /// The path listing a parent's localizations.
    static func listPath(resource: String, parentID: String) -> String {
        resource == "appInfoLocalizations" ? "/v1/appInfos/\(parentID)/appInfoLocalizations" : "/v1/appStoreVersions/\(parentID)/appStoreVersionLocalizations"
    }

    func localizations(resource: String, parentID: String) async throws -> [Localization] {
        try await client.getAll(Self.listPath(resource: resource, parentID: parentID), query: [("limit", "200")], as: Localization.self,
                                operation: "read the listing's localizations")
    }

    func localization(resource: String, id: String) async throws -> Localization {
        try await client.get("/v1/\(resource)/\(id)", as: ASCDocument<Localization>.self, operation: "read localization \(id)").data
    }

    func updateLocalization(resource: String, id: String, attributes: [String: String?]) async throws {
        let values: [String: Any] = attributes.mapValues { $0.map { $0 as Any } ?? NSNull() }
        let body: [String: Any] = ["data": ["type": resource, "id": id, "attributes": values]]
        _ = try await client.send(.patch, "/v1/\(resource)/\(id)", body: body, as: ASCDocument<Localization>.self, operation: "update localization \(id)")
    }

    func createLocalization(resource: String, parentID: String, locale: String, attributes: [String: String]) async throws -> String {
        let parent = resource == "appInfoLocalizations" ? ("appInfo", "appInfos") : ("appStoreVersion", "appStoreVersions")
        var values: [String: Any] = attributes
        values["locale"] = locale
        let body: [String: Any] = ["data": ["type": resource, "attributes": values,
                                            "relationships": [parent.0: ["data": ["type": parent.1, "id": parentID]]]]]
        return try await client.send(.post, "/v1/\(resource)", body: body, as: ASCDocument<Localization>.self, operation: "add \(locale) to the listing").data.id
    }
}
