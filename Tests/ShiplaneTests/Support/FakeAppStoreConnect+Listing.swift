import Foundation
import Hummingbird

/// App Store versions, app infos and their localizations (the listing), in the fake App Store
/// Connect; request bodies are checked against Apple's description before they get here.
extension FakeAppStoreConnect {
    func listingRoute(_ method: String, _ segments: [String], _ query: [String: String], _ body: [UInt8]) -> Response? {
        let data = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["data"] as? [String: Any]
        let attributes = data?["attributes"] as? [String: Any] ?? [:]
        func relatedID(_ name: String) -> String? {
            ((((data?["relationships"] as? [String: Any])?[name] as? [String: Any])?["data"]) as? [String: Any])?["id"] as? String
        }
        func versionJSON(_ id: String) -> [String: Any] {
            let version = storeVersions[id]
            return ["type": "appStoreVersions", "id": id, "attributes": [
                "versionString": version?.version ?? "", "platform": version?.platform ?? "IOS", "appVersionState": version?.state ?? "PREPARE_FOR_SUBMISSION"]]
        }
        func localizationJSON(_ resource: String, _ id: String) -> [String: Any] {
            let item = listing[resource]?[id]
            var values: [String: Any] = item?.attributes ?? [:]
            values["locale"] = item?.locale ?? ""
            return ["type": resource, "id": id, "attributes": values]
        }
        let resources = ["appStoreVersionLocalizations", "appInfoLocalizations"]
        switch (method, segments.count) {
        case ("GET", 4) where segments[1] == "apps" && segments[3] == "appStoreVersions":
            let matching = storeVersions.filter { $0.value.appID == segments[2]
                && (query["filter[versionString]"].map { Set($0.split(separator: ",").map(String.init)) }?.contains($0.value.version) ?? true)
                && (query["filter[platform]"].map { Set($0.split(separator: ",").map(String.init)) }?.contains($0.value.platform) ?? true) }
            return reply(200, ["data": matching.keys.sorted().map(versionJSON)])
        case ("GET", 4) where segments[1] == "apps" && segments[3] == "appInfos":
            return reply(200, ["data": appInfos.filter { $0.value.appID == segments[2] }.keys.sorted().map {
                ["type": "appInfos", "id": $0, "attributes": ["state": appInfos[$0]?.state ?? ""]] as [String: Any] }])
        case ("POST", 2) where segments[1] == "appStoreVersions":
            guard let appID = relatedID("app"), apps[appID] != nil else { return notFound("apps", relatedID("app") ?? "") }
            let version = attributes["versionString"] as? String ?? "", platform = attributes["platform"] as? String ?? ""
            guard !storeVersions.values.contains(where: { $0.appID == appID && $0.platform == platform && $0.state != "READY_FOR_DISTRIBUTION" }) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "You cannot create a new version of the App in the current state.")
            }
            let id = newID("asv")
            storeVersions[id] = (appID, version, platform, "PREPARE_FOR_SUBMISSION")
            return reply(201, ["data": versionJSON(id)])
        case ("DELETE", 3) where segments[1] == "appStoreVersions":
            guard storeVersions.removeValue(forKey: segments[2]) != nil else { return notFound("appStoreVersions", segments[2]) }
            for (resource, items) in listing { listing[resource] = items.filter { $0.value.parentID != segments[2] } }
            return replyEmpty(204)
        case ("GET", 4) where resources.contains(segments[3]):
            let resource = segments[3]
            let items = listing[resource, default: [:]].filter { $0.value.parentID == segments[2]
                && (query["filter[locale]"].map { Set($0.split(separator: ",").map(String.init)) }?.contains($0.value.locale) ?? true) }
            return reply(200, ["data": items.keys.sorted().map { localizationJSON(resource, $0) }])
        case ("POST", 2) where resources.contains(segments[1]):
            let resource = segments[1]
            guard let parentID = relatedID(resource == "appInfoLocalizations" ? "appInfo" : "appStoreVersion") else { return notFound("parent", "") }
            let locale = attributes["locale"] as? String ?? ""
            guard !listing[resource, default: [:]].values.contains(where: { $0.parentID == parentID && $0.locale == locale }) else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE", "The request entity is invalid", "the locale \(locale) already exists")
            }
            let id = newID("loc")
            listing[resource, default: [:]][id] = (parentID, locale, attributes.compactMapValues { $0 as? String }.filter { $0.key != "locale" })
            return reply(201, ["data": localizationJSON(resource, id)])
        case ("GET", 3) where resources.contains(segments[1]):
            guard listing[segments[1]]?[segments[2]] != nil else { return notFound(segments[1], segments[2]) }
            return reply(200, ["data": localizationJSON(segments[1], segments[2])])
        case ("PATCH", 3) where resources.contains(segments[1]):
            guard var item = listing[segments[1]]?[segments[2]] else { return notFound(segments[1], segments[2]) }
            for (key, value) in attributes { item.attributes[key] = value as? String }
            listing[segments[1]]?[segments[2]] = item
            return reply(200, ["data": localizationJSON(segments[1], segments[2])])
        case ("DELETE", 3) where resources.contains(segments[1]):
            guard listing[segments[1]]?.removeValue(forKey: segments[2]) != nil else { return notFound(segments[1], segments[2]) }
            return replyEmpty(204)
        default:
            return nil
        }
    }
}
