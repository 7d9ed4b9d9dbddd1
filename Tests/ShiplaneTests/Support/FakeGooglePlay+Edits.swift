import Crypto
import Foundation
import Hummingbird
import NIOCore

/// Edits, tracks and bundle uploads of the fake Google Play (routes are called under `lock`).
extension FakeGooglePlay {
    func route(_ method: String, _ rest: [String], _ body: [UInt8], query: [String: String]) -> Response {
        /// The path's wildcards when `method` and `pattern` ("edits/*") match the request.
        func m(_ wanted: String, _ pattern: String) -> [String]? {
            let expected = pattern.split(separator: "/").map(String.init)
            guard wanted == method, expected.count == rest.count else { return nil }
            var captures: [String] = []
            for (want, have) in zip(expected, rest) {
                if want == "*" { captures.append(have) } else if want != have { return nil }
            }
            return captures
        }
        if m("POST", "edits") != nil {
            let id = "edit-\(nextID)"; nextID += 1
            let edit = Edit(listings: committedListings, images: committedImages)
            edits[id] = edit
            return answer(200, ["id": id, "expiryTimeSeconds": edit.expiryTimeSeconds])
        } else if let c = m("GET", "edits/*") {
            let id = c[0];
            guard let edit = edits[id] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            return answer(200, ["id": id, "expiryTimeSeconds": edit.expiryTimeSeconds])
        } else if let c = m("DELETE", "edits/*") {
            let id = c[0];
            guard edits.removeValue(forKey: id) != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            return answerEmpty(204)
        } else if let c = m("POST", "edits/*"), { () -> Bool in let commit = c[0]; return commit.hasSuffix(":commit") }() {
            let commit = c[0];
            let id = String(commit.dropLast(":commit".count))
            guard let edit = edits[id] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            if requiresChangesNotSentForReview && query["changesNotSentForReview"] != "true" {
                return Self.error(400, "Changes cannot be sent for review automatically. Please set the query parameter changesNotSentForReview to true. Once committed, the changes in this edit can be sent for review from the Google Play Console UI.", "INVALID_ARGUMENT")
            }
            if changesInReview && query["changesNotSentForReview"] != "true" {
                // The description: unset means CANCEL_IN_REVIEW_AND_SUBMIT; ERROR_IF_IN_REVIEW refuses and keeps the edit.
                if query["changesInReviewBehavior"] == "ERROR_IF_IN_REVIEW" {
                    return Self.error(400, "Changes are currently in review. This edit cannot be committed while ERROR_IF_IN_REVIEW is set.", "FAILED_PRECONDITION")
                }
                changesInReview = false
                cancelledReviews += 1
            }
            edits[id] = nil
            commitQueries.append(query)
            for (name, track) in edit.tracks { committedTracks[name] = track }
            committedListings = edit.listings
            committedImages = edit.images
            for bundle in edit.bundles {
                usedVersionCodes.insert(bundle.versionCode)
                appBundles.append(bundle)
            }
            return answer(200, ["id": id])
        } else if let c = m("GET", "edits/*/bundles") {
            let id = c[0];
            guard let edit = edits[id] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            return answer(200, ["kind": "androidpublisher#bundlesListResponse",
                                    "bundles": (appBundles + edit.bundles).map { ["versionCode": $0.versionCode, "sha256": $0.sha256] }])
        } else if let c = m("GET", "edits/*/tracks") {
            let id = c[0];
            guard edits[id] != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            let view = committedTracks.merging(edits[id]?.tracks ?? [:]) { $1 }
            return answer(200, ["kind": "androidpublisher#tracksListResponse", "tracks": view.keys.sorted().compactMap { view[$0] }])
        } else if let c = m("GET", "edits/*/tracks/*") {
            let id = c[0]; let track = c[1];
            guard let edit = edits[id] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            guard let found = edit.tracks[track] ?? committedTracks[track] else { return Self.error(404, "Track not found: \(track)", "NOT_FOUND") }
            return answer(200, found)
        } else if let c = m("PUT", "edits/*/tracks/*") {
            let id = c[0]; let track = c[1];
            guard let edit = edits[id] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            return updateTrack(id, edit, track, body)
        } else if let c = m("GET", "edits/*/listings") {
            guard let edit = edits[c[0]] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            return answer(200, ["kind": "androidpublisher#listingsListResponse",
                                "listings": edit.listings.keys.sorted().map { language -> [String: String] in
                                    var listing = edit.listings[language] ?? [:]
                                    listing["language"] = language
                                    return listing
                                }])
        } else if let c = m("GET", "edits/*/listings/*") {
            guard let edit = edits[c[0]] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            guard var listing = edit.listings[c[1]] else { return Self.error(404, "Listing not found for language \(c[1]).", "NOT_FOUND") }
            listing["language"] = c[1]
            return answer(200, listing)
        } else if let c = m("PATCH", "edits/*/listings/*") ?? m("PUT", "edits/*/listings/*") {
            guard edits[c[0]] != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: String] else {
                return Self.error(400, "Invalid JSON payload", "INVALID_ARGUMENT")
            }
            if let language = object["language"], language != c[1] { return Self.error(400, "Language in the body does not match the URL", "INVALID_ARGUMENT") }
            let limits = ["title": 30, "shortDescription": 80, "fullDescription": 4000]
            for (field, limit) in limits where (object[field]?.count ?? 0) > limit {
                return Self.error(400, "\(field) is longer than \(limit) characters", "INVALID_ARGUMENT")
            }
            // listings.patch "Patches a localized store listing": one that exists. Only
            // listings.update "Creates or updates" (the discovery document's descriptions).
            if method == "PATCH", edits[c[0]]?.listings[c[1]] == nil {
                return Self.error(404, "Listing not found for language \(c[1]).", "NOT_FOUND")
            }
            var listing = method == "PATCH" ? edits[c[0]]?.listings[c[1]] ?? [:] : [:]
            for (key, value) in object where key != "language" { listing[key] = value }
            edits[c[0]]?.listings[c[1]] = listing
            listing["language"] = c[1]
            return answer(200, listing)
        } else if let c = m("GET", "edits/*/listings/*/*") {
            guard let edit = edits[c[0]] else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            let images = edit.images[c[1]]?[c[2]] ?? []
            return answer(200, images.isEmpty ? [:] : ["images": images.map { Self.imageJSON($0) }])
        } else if let c = m("DELETE", "edits/*/listings/*/*/*") {
            guard edits[c[0]] != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            guard let index = edits[c[0]]?.images[c[1]]?[c[2]]?.firstIndex(where: { $0.id == c[3] }) else {
                return Self.error(404, "Image not found.", "NOT_FOUND")
            }
            edits[c[0]]?.images[c[1]]?[c[2]]?.remove(at: index)
            return answerEmpty(204)
        } else {
            return Self.error(404, "Not found", "NOT_FOUND")
        }
    }

    static func imageJSON(_ image: Image) -> [String: String] {
        ["id": image.id, "sha1": image.sha1, "sha256": image.sha256, "url": "https://play-lh.example/\(image.id)"]
    }

    /// images.upload (simple): the bytes become the last image of the type.
    func uploadImage(_ request: Request, editID: String, language: String, type: String) async throws -> Response {
        let (bytes, count) = try await request.readBody(keeping: 16 << 20)
        guard String(count) == request.header("content-length") else { return Self.error(400, "Incomplete body", "INVALID_ARGUMENT") }
        return lock.withLock {
            guard edits[editID] != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
            let limits = ["icon": 1, "featureGraphic": 1, "tvBanner": 1]
            let existing = edits[editID]?.images[language]?[type] ?? []
            guard existing.count < (limits[type] ?? 8) else { return Self.error(400, "Too many images of type \(type).", "INVALID_ARGUMENT") }
            let image = Image(id: "img-\(nextID)", sha1: Insecure.SHA1.hash(data: bytes).map { String(format: "%02x", $0) }.joined(),
                              sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
            nextID += 1
            edits[editID]?.images[language, default: [:]][type, default: []].append(image)
            imageUploads.append("\(language)/\(type)")
            return answer(200, ["image": Self.imageJSON(image)])
        }
    }

    /// tracks.update: the body is a Track (the description checked its members and types); the
    /// rules below are Google's for a track's releases.
    func updateTrack(_ id: String, _ edit: Edit, _ track: String, _ body: [UInt8]) -> Response {
        func invalid(_ message: String) -> Response { Self.error(400, message, "INVALID_ARGUMENT") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return invalid("Invalid JSON payload") }
        if let named = object["track"] as? String, named != track { return invalid("Track name in the body (\(named)) does not match the URL (\(track))") }
        let releases = object["releases"] as? [[String: Any]] ?? []
        let known = Set((appBundles + edit.bundles).map { String($0.versionCode) })
            .union(committedTracks.values.flatMap { ($0["releases"] as? [[String: Any]] ?? []).flatMap { $0["versionCodes"] as? [String] ?? [] } })
        var liveReleases = 0
        for release in releases {
            let status = release["status"] as? String ?? ""
            guard ["draft", "inProgress", "halted", "completed"].contains(status) else { return invalid("Release status must be set") }
            let codes = release["versionCodes"] as? [String] ?? []
            guard status == "draft" || !codes.isEmpty else { return invalid("A release must have version codes") }
            guard codes.allSatisfy({ known.contains($0) }) else { return invalid("Version codes must be uploaded in this edit or be in a track already") }
            let fraction = release["userFraction"] as? Double
            guard (fraction != nil) == (status == "inProgress" || status == "halted"), fraction.map({ $0 > 0 && $0 < 1 }) ?? true else {
                return invalid("A user fraction goes with a staged rollout (inProgress or halted) only, 0 < fraction < 1")
            }
            if let priority = release["inAppUpdatePriority"] as? Int, !(0...5).contains(priority) { return invalid("inAppUpdatePriority must be in [0, 5]") }
            if status != "draft" { liveReleases += 1 }
        }
        guard liveReleases <= 2 else { return invalid("A track can have at most one completed release and one staged rollout") }
        let stored: [String: Any] = ["track": track, "releases": releases]
        edits[id]?.tracks[track] = stored
        return answer(200, stored)
    }

    // MARK: - Bundle uploads

    func uploadBundle(_ request: Request, path: String, query: [String: String]) async throws -> Response {
        let rest = path.split(separator: "/").map(String.init)
        if rest.count == 6, rest[0] == packageName, rest[1] == "edits", rest[3] == "listings", query["uploadType"] == "media" {
            return try await uploadImage(request, editID: rest[2], language: rest[4], type: rest[5])
        }
        guard rest.count == 4, rest[0] == packageName, rest[1] == "edits", rest[3] == "bundles", lock.withLock({ edits[rest[2]] != nil }) else {
            return Self.error(404, "Not found", "NOT_FOUND")
        }
        let editID = rest[2]
        switch query["uploadType"] {
        case "media":
            let storage = storageFolder + "/\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: storage, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: storage) else { return Reply.text(500, "storage") }
            var count = 0
            for try await chunk in request.body { count += chunk.readableBytes; handle.write(Data(chunk.readableBytesView)) }
            try handle.close()
            guard String(count) == request.header("content-length") else { return Self.error(400, "Incomplete body", "INVALID_ARGUMENT") }
            return lock.withLock { finishBundle(editID: editID, storage: storage) }
        case "resumable":
            guard let total = Int64(request.header("x-upload-content-length") ?? ""), total > 0,
                  request.header("x-upload-content-type") == "application/octet-stream" else {
                return Self.error(400, "X-Upload-Content-Length and X-Upload-Content-Type are required", "INVALID_ARGUMENT")
            }
            let id = UUID().uuidString
            let storage = storageFolder + "/\(id)"
            _ = FileManager.default.createFile(atPath: storage, contents: nil)
            lock.withLock { sessions[id] = Session(editID: editID, total: total, received: 0, storage: storage) }
            return Reply.empty(200, headers: ["Location": "\(baseURL)/upload/session/\(id)?upload_id=\(id)"])
        default:
            return Self.error(400, "uploadType must be media or resumable", "INVALID_ARGUMENT")
        }
    }

    /// One chunk of a resumable upload (or a status query, `bytes */N`).
    func resumableChunk(_ request: Request, id: String) async throws -> Response {
        guard let session = lock.withLock({ () -> Session? in
            authorizationOnSession.append(request.header("authorization"))
            return sessions[id]
        }) else { return Self.error(404, "No such upload session", "NOT_FOUND") }
        func incomplete(_ received: Int64) -> Response {
            Reply.empty(308, headers: received > 0 ? ["Range": "bytes=0-\(received - 1)"] : [:])
        }
        let range = request.header("content-range") ?? ""
        if range == "bytes */\(session.total)" { return incomplete(session.received) }
        let pattern = #/^bytes (\d+)-(\d+)/(\d+)$/#
        guard let match = range.wholeMatch(of: pattern), let first = Int64(match.1), let last = Int64(match.2), Int64(match.3) == session.total,
              first == session.received, last >= first, last < session.total else {
            return Self.error(400, "Content-Range \(range) does not continue the upload at \(session.received)", "INVALID_ARGUMENT")
        }
        let isLast = last + 1 == session.total
        guard isLast || (last + 1 - first) % (256 * 1024) == 0 else { return Self.error(400, "chunks must be multiples of 256 KiB", "INVALID_ARGUMENT") }
        guard let handle = FileHandle(forWritingAtPath: session.storage) else { return Reply.text(500, "storage") }
        try handle.seek(toOffset: UInt64(first))
        var count: Int64 = 0
        for try await chunk in request.body { count += Int64(chunk.readableBytes); handle.write(Data(chunk.readableBytesView)) }
        try handle.close()
        guard count == last - first + 1 else { return Self.error(400, "the body does not match Content-Range", "INVALID_ARGUMENT") }
        return lock.withLock {
            sessions[id]?.received = last + 1
            guard isLast else { return incomplete(last + 1) }
            sessions[id] = nil
            return finishBundle(editID: session.editID, storage: session.storage)
        }
    }

    func finishBundle(editID: String, storage: String) -> Response {
        guard edits[editID] != nil else { return Self.error(404, "This Edit has been deleted.", "NOT_FOUND") }
        let sha256 = FakeAppStoreConnect.sha256(ofFile: storage)
        let code = nextVersionCode
        guard !usedVersionCodes.contains(code) else { return Self.error(403, "APK specifies a version code that has already been used.", "PERMISSION_DENIED") }
        edits[editID]?.bundles.append((code, sha256))
        return answer(200, ["versionCode": code, "sha1": "unused", "sha256": sha256])
    }
}
