import Crypto
import Foundation
import Hummingbird

/// Screenshot and app preview sets, their items, the items' upload operations and the MD5
/// commit, in the fake App Store Connect; bodies are checked against Apple's description first.
extension FakeAppStoreConnect {
    static let mediaKinds: [(set: String, item: String, typeAttribute: String, relationship: String)] = [
        ("appScreenshotSets", "appScreenshots", "screenshotDisplayType", "appScreenshotSet"),
        ("appPreviewSets", "appPreviews", "previewType", "appPreviewSet"),
    ]

    func mediaRoute(_ method: String, _ segments: [String], _ query: [String: String], _ body: [UInt8]) -> Response? {
        let data = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["data"]
        let object = data as? [String: Any]
        let attributes = object?["attributes"] as? [String: Any] ?? [:]
        func relatedID(_ name: String) -> String? {
            ((((object?["relationships"] as? [String: Any])?[name] as? [String: Any])?["data"]) as? [String: Any])?["id"] as? String
        }
        switch (method, segments.count) {
        case ("GET", 4) where segments[1] == "appStoreVersionLocalizations" && Self.mediaKinds.contains { $0.set == segments[3] }:
            guard let kind = Self.mediaKinds.first(where: { $0.set == segments[3] }) else { return nil }
            guard listing["appStoreVersionLocalizations"]?[segments[2]] != nil else { return notFound("appStoreVersionLocalizations", segments[2]) }
            let types = query["filter[\(kind.typeAttribute)]"].map { Set($0.split(separator: ",").map(String.init)) }
            let matching = mediaSets.filter { $0.value.resource == kind.set && $0.value.localizationID == segments[2] && (types?.contains($0.value.type) ?? true) }
            return reply(200, ["data": matching.keys.sorted().map { mediaSetJSON($0) }])
        case ("POST", 2) where Self.mediaKinds.contains { $0.set == segments[1] }:
            guard let kind = Self.mediaKinds.first(where: { $0.set == segments[1] }) else { return nil }
            guard let localizationID = relatedID("appStoreVersionLocalization"), listing["appStoreVersionLocalizations"]?[localizationID] != nil else {
                return notFound("appStoreVersionLocalizations", relatedID("appStoreVersionLocalization") ?? "")
            }
            let type = attributes[kind.typeAttribute] as? String ?? ""
            guard !mediaSets.values.contains(where: { $0.resource == kind.set && $0.localizationID == localizationID && $0.type == type }) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "a \(type) set already exists for this localization")
            }
            let id = newID(kind.set == "appScreenshotSets" ? "sset" : "pset")
            mediaSets[id] = MediaSet(resource: kind.set, localizationID: localizationID, type: type)
            return reply(201, ["data": mediaSetJSON(id)])
        case ("DELETE", 3) where Self.mediaKinds.contains { $0.set == segments[1] }:
            guard let set = mediaSets[segments[2]], set.resource == segments[1] else { return notFound(segments[1], segments[2]) }
            for id in set.items { mediaItems[id] = nil }
            mediaSets[segments[2]] = nil
            return replyEmpty(204)
        case ("GET", 4) where Self.mediaKinds.contains { $0.set == segments[1] && $0.item == segments[3] }:
            guard let set = mediaSets[segments[2]], set.resource == segments[1] else { return notFound(segments[1], segments[2]) }
            return reply(200, ["data": set.items.map { mediaItemJSON($0) }])
        case ("PATCH", 5) where segments[3] == "relationships" && Self.mediaKinds.contains { $0.set == segments[1] && $0.item == segments[4] }:
            guard let set = mediaSets[segments[2]], set.resource == segments[1] else { return notFound(segments[1], segments[2]) }
            let ids = (data as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            guard ids.count == set.items.count, Set(ids) == Set(set.items) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the order must name every item of the set once")
            }
            mediaSets[segments[2]]?.items = ids
            return replyEmpty(204)
        case ("POST", 2) where Self.mediaKinds.contains { $0.item == segments[1] }:
            guard let kind = Self.mediaKinds.first(where: { $0.item == segments[1] }) else { return nil }
            guard let setID = relatedID(kind.relationship), let set = mediaSets[setID], set.resource == kind.set else {
                return notFound(kind.set, relatedID(kind.relationship) ?? "")
            }
            guard let size = (attributes["fileSize"] as? NSNumber)?.int64Value, size > 0, let name = attributes["fileName"] as? String, !name.isEmpty else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "fileName and a positive fileSize are required")
            }
            let id = newID(kind.item == "appScreenshots" ? "shot" : "preview")
            let storage = storageFolder + "/\(id)"
            _ = FileManager.default.createFile(atPath: storage, contents: nil)
            // Apple's `UploadOperation` for media has no part number or expiration (the build upload's has).
            let (parts, full) = uploadOperations(fileID: id, size: size)
            let operations = full.map { $0.filter { $0.key != "partNumber" && $0.key != "expiration" } }
            files[id] = UploadFile(uploadID: "", name: name, size: size, parts: parts, storage: storage)
            mediaItems[id] = MediaItem(resource: kind.item, setID: setID, fileName: name, size: size, checksum: nil, state: "AWAITING_UPLOAD",
                                       mimeType: attributes["mimeType"] as? String, previewFrameTimeCode: attributes["previewFrameTimeCode"] as? String)
            mediaSets[setID]?.items.append(id)
            var answer = mediaItemJSON(id)
            var values = answer["attributes"] as? [String: Any] ?? [:]
            values["uploadOperations"] = operations
            answer["attributes"] = values
            return reply(201, ["data": answer])
        case ("PATCH", 3) where Self.mediaKinds.contains { $0.item == segments[1] }:
            // An app preview's still frame alone (`AppPreviewUpdateRequest` with only `previewFrameTimeCode`;
            // the description declares no such attribute for screenshots, so their PATCH never gets here with it).
            if segments[1] == "appPreviews", attributes.keys.sorted() == ["previewFrameTimeCode"] {
                guard let item = mediaItems[segments[2]], item.resource == segments[1] else { return notFound(segments[1], segments[2]) }
                guard item.checksum != nil else {
                    return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "the app preview is not uploaded yet")
                }
                let timeCode = attributes["previewFrameTimeCode"] as? String
                if let timeCode, timeCode.range(of: #"^[0-9]{2}:[0-5][0-9]:[0-5][0-9]:[0-9]{2}$"#, options: .regularExpression) == nil {
                    return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "previewFrameTimeCode must be hh:mm:ss:ff")
                }
                mediaItems[segments[2]]?.previewFrameTimeCode = timeCode
                timeCodeChanges += 1
                return reply(200, ["data": mediaItemJSON(segments[2])])
            }
            guard let item = mediaItems[segments[2]], item.resource == segments[1], let file = files[segments[2]] else { return notFound(segments[1], segments[2]) }
            guard attributes["uploaded"] as? Bool == true, let checksum = attributes["sourceFileChecksum"] as? String else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "uploaded: true and sourceFileChecksum are required to commit")
            }
            guard file.received.count == file.parts.count else {
                return error(409, "ENTITY_ERROR.UPLOAD_INCOMPLETE", "The upload is incomplete", "\(file.parts.count - file.received.count) part(s) were not uploaded")
            }
            guard Self.md5(ofFile: file.storage) == checksum.lowercased() else {
                return error(409, "ENTITY_ERROR.CHECKSUM_MISMATCH", "Checksum mismatch", "sourceFileChecksum does not match the bytes received")
            }
            if let timeCode = attributes["previewFrameTimeCode"] as? String { mediaItems[segments[2]]?.previewFrameTimeCode = timeCode }
            mediaItems[segments[2]]?.checksum = checksum.lowercased()
            mediaItems[segments[2]]?.state = "UPLOAD_COMPLETE"
            files[segments[2]]?.committed = true
            try? FileManager.default.removeItem(atPath: file.storage)
            let answer = reply(200, ["data": mediaItemJSON(segments[2])])
            // Apple processes the image after the commit; the next read finds it COMPLETE.
            mediaItems[segments[2]]?.state = "COMPLETE"
            return answer
        case ("DELETE", 3) where Self.mediaKinds.contains { $0.item == segments[1] }:
            guard let item = mediaItems[segments[2]], item.resource == segments[1] else { return notFound(segments[1], segments[2]) }
            mediaItems[segments[2]] = nil
            mediaSets[item.setID]?.items.removeAll { $0 == segments[2] }
            try? FileManager.default.removeItem(atPath: storageFolder + "/" + segments[2])
            return replyEmpty(204)
        default:
            return nil
        }
    }

    func mediaSetJSON(_ id: String) -> [String: Any] {
        let set = mediaSets[id]
        let kind = Self.mediaKinds.first { $0.set == set?.resource } ?? Self.mediaKinds[0]
        return ["type": kind.set, "id": id, "attributes": [kind.typeAttribute: set?.type ?? ""]]
    }

    func mediaItemJSON(_ id: String) -> [String: Any] {
        guard let item = mediaItems[id] else { return ["type": "appScreenshots", "id": id] }
        var values: [String: Any] = ["fileName": item.fileName, "fileSize": item.size]
        if let checksum = item.checksum { values["sourceFileChecksum"] = checksum }
        if item.resource == "appPreviews" {
            values["videoDeliveryState"] = ["state": item.state]
            if let mimeType = item.mimeType { values["mimeType"] = mimeType }
            if let timeCode = item.previewFrameTimeCode { values["previewFrameTimeCode"] = timeCode }
        } else {
            values["assetDeliveryState"] = ["state": item.state]
        }
        return ["type": item.resource, "id": id, "attributes": values]
    }

    // MARK: - Inspection

    /// Screenshot or preview sets (`resource`) as "locale TYPE" → file names in the set's order.
    func mediaSetContents(_ resource: String = "appScreenshotSets") -> [String: [String]] {
        lock.withLock {
            var result: [String: [String]] = [:]
            for set in mediaSets.values where set.resource == resource {
                let locale = listing["appStoreVersionLocalizations"]?[set.localizationID]?.locale ?? set.localizationID
                result["\(locale) \(set.type)"] = set.items.compactMap { mediaItems[$0]?.fileName }
            }
            return result
        }
    }

    /// App previews by file name: the `mimeType` and `previewFrameTimeCode` App Store Connect holds.
    func previewDetails() -> [String: (mimeType: String?, timeCode: String?)] {
        lock.withLock {
            var result: [String: (mimeType: String?, timeCode: String?)] = [:]
            for item in mediaItems.values where item.resource == "appPreviews" { result[item.fileName] = (item.mimeType, item.previewFrameTimeCode) }
            return result
        }
    }

    /// Checksums of a set's items, in order.
    func mediaChecksums(_ resource: String = "appScreenshotSets") -> [String: [String?]] {
        lock.withLock {
            var result: [String: [String?]] = [:]
            for set in mediaSets.values where set.resource == resource {
                let locale = listing["appStoreVersionLocalizations"]?[set.localizationID]?.locale ?? set.localizationID
                result["\(locale) \(set.type)"] = set.items.map { mediaItems[$0]?.checksum }
            }
            return result
        }
    }

    /// Adds a set with items as if uploaded earlier: (file name, MD5).
    func addMediaSet(_ resource: String = "appScreenshotSets", localizationID: String, type: String, items: [(String, String)]) -> String {
        lock.withLock {
            let id = newID(resource == "appScreenshotSets" ? "sset" : "pset")
            let itemResource = resource == "appScreenshotSets" ? "appScreenshots" : "appPreviews"
            var set = MediaSet(resource: resource, localizationID: localizationID, type: type)
            for (name, checksum) in items {
                let itemID = newID("old")
                mediaItems[itemID] = MediaItem(resource: itemResource, setID: id, fileName: name, size: 1, checksum: checksum, state: "COMPLETE")
                set.items.append(itemID)
            }
            mediaSets[id] = set
            return id
        }
    }

    static func md5(ofFile path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        var hasher = Insecure.MD5()
        while let chunk = try? handle.read(upToCount: 4 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
