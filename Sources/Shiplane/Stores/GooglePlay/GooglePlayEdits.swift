import Foundation

/// A bundle in an edit, as Google describes it.
struct PlayBundle: Decodable, Sendable {
    var versionCode: Int64?
    var sha1: String?
    var sha256: String?
}

/// An edit as Google describes it (`AppEdit`): its id and the time it expires, in seconds since
/// 1970 as a string, which Google sets when it opens the edit.
struct PlayEdit: Decodable, Sendable, Equatable {
    var id: String
    var expiryTimeSeconds: String?
}

/// The edit operations of the Android Publisher API.
extension GooglePlayClient {
    /// Opens an edit; returns it, with the expiry Google gave it.
    func openEdit() async throws -> PlayEdit {
        let response = try await request(.post, apiBaseURL + editsPath, json: [:], operation: "open an edit for \(packageName)")
        return try decode(PlayEdit.self, response, operation: "open an edit")
    }

    /// Opens an edit; returns its id.
    func insertEdit() async throws -> String {
        try await openEdit().id
    }

    /// The edit as Google holds it now, or nil when it no longer exists (committed, deleted or expired).
    func edit(_ editID: String) async throws -> PlayEdit? {
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)", operation: "read edit \(editID)", accepting: [404])
        guard response.status != 404 else { return nil }
        return try decode(PlayEdit.self, response, operation: "read edit \(editID)")
    }

    /// True when the edit still exists (not committed, deleted or expired).
    func editExists(_ editID: String) async throws -> Bool {
        try await edit(editID) != nil
    }

    /// Deletes an edit; one that is already gone counts as deleted.
    func deleteEdit(_ editID: String) async throws {
        _ = try await request(.delete, apiBaseURL + editsPath + "/\(editID)", operation: "delete edit \(editID)", accepting: [404])
    }

    /// Commits the edit. `changesInReviewBehavior` is always sent: ERROR_IF_IN_REVIEW unless
    /// `review.cancelChangesInReview` (Google's default, CANCEL_IN_REVIEW_AND_SUBMIT, would cancel
    /// a review in progress without a word). Google's two refusals about review get what to set.
    func commitEdit(_ editID: String, review: PlayReviewOptions = PlayReviewOptions()) async throws {
        var query = "?changesInReviewBehavior=" + (review.cancelChangesInReview ? "CANCEL_IN_REVIEW_AND_SUBMIT" : "ERROR_IF_IN_REVIEW")
        if review.changesNotSentForReview { query += "&changesNotSentForReview=true" }
        do {
            _ = try await request(.post, apiBaseURL + editsPath + "/\(editID):commit" + query, operation: "commit edit \(editID)")
        } catch var error as StoreAPIError where (400..<500).contains(error.status) {
            let said = error.details.joined(separator: " ").lowercased()
            if said.contains("changesnotsentforreview") || said.contains("cannot be sent for review automatically") {
                error.suggestion = "Google Play will not send these changes for review automatically: set changesNotSentForReview: true "
                    + "(the edit is committed and its changes wait in Play Console → Publishing overview until someone sends them for review)"
            } else if !review.cancelChangesInReview && said.contains("in review") {
                error.suggestion = "changes already in review on Google Play were left alone (changesInReviewBehavior ERROR_IF_IN_REVIEW): "
                    + "run again once that review is done, or set cancelChangesInReview: true to cancel it and send these changes instead"
            }
            throw error
        }
    }

    func bundles(editID: String) async throws -> [PlayBundle] {
        struct List: Decodable { var bundles: [PlayBundle]? }
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)/bundles", operation: "list the edit's bundles")
        return try decode(List.self, response, operation: "list bundles").bundles ?? []
    }

    /// Every version code in any release of any track.
    func versionCodesInTracks(editID: String) async throws -> Set<Int64> {
        struct List: Decodable {
            struct Track: Decodable { struct Release: Decodable { var versionCodes: [String]? }; var releases: [Release]? }
            var tracks: [Track]?
        }
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)/tracks", operation: "list tracks")
        let list = try decode(List.self, response, operation: "list tracks")
        return Set((list.tracks ?? []).flatMap { $0.releases ?? [] }.flatMap { $0.versionCodes ?? [] }.compactMap { Int64($0) })
    }

    /// Sets the track's release to the given version code, status, fraction and notes.
    func updateTrack(editID: String, track: String, release: PlayRelease) async throws {
        var entry: [String: Any] = ["versionCodes": release.versionCodes.map(String.init), "status": release.status.rawValue]
        if let name = release.name { entry["name"] = name }
        if let fraction = release.userFraction { entry["userFraction"] = fraction }
        if !release.notes.isEmpty {
            entry["releaseNotes"] = release.notes.sorted { $0.key < $1.key }.map { ["language": $0.key, "text": $0.value] }
        }
        _ = try await request(.put, apiBaseURL + editsPath + "/\(editID)/tracks/\(track)",
                              json: ["track": track, "releases": [entry]], operation: "update track \(track)")
    }

    // MARK: - Bundle upload

    /// Uploads the bundle in one request (small files) or as a resumable upload in
    /// `chunkSize` parts, each streamed from disk and retried on its own.
    func uploadBundle(editID: String, path: String, size: Int64, resumableThreshold: Int64, chunkSize: Int64,
                      progress: @Sendable (Int64) -> Void) async throws -> PlayBundle {
        let url = apiBaseURL + "/upload" + editsPath + "/\(editID)/bundles"
        if size <= resumableThreshold {
            let response = try await request(.post, url + "?uploadType=media", body: .file(path: path),
                                             headers: [("Content-Type", "application/octet-stream")], timeout: 600,
                                             operation: "upload the bundle")
            progress(size)
            return try decode(PlayBundle.self, response, operation: "upload the bundle")
        }
        let start = try await request(.post, url + "?uploadType=resumable", body: .bytes([]), headers: [
            ("X-Upload-Content-Type", "application/octet-stream"), ("X-Upload-Content-Length", String(size)),
        ], operation: "start a resumable upload of the bundle")
        guard let session = start.header("location"), URLComponents(string: session)?.host != nil else {
            throw StoreAPIError(service: Self.service, operation: "start a resumable upload of the bundle", status: start.status,
                                details: ["the answer has no upload session URL (Location)"])
        }
        // Google wants every chunk but the last to be a multiple of 256 KiB.
        let chunk = max(256 << 10, (chunkSize / (256 << 10)) * (256 << 10))
        var offset: Int64 = 0
        var recoveries = 0
        // Bounded: every chunk once, plus a few resends after failures or short answers.
        var rounds = Int((size + chunk - 1) / chunk) * 3 + 5
        while true {
            rounds -= 1
            guard rounds >= 0 else {
                throw StoreAPIError(service: Self.service, operation: "upload the bundle", status: 308,
                                    details: ["the upload session keeps losing bytes; stopped at byte \(offset) of \(size)"])
            }
            let length = min(chunk, size - offset)
            do {
                let response = try await request(
                    .put, session, body: .fileSlice(path: path, offset: offset, length: length),
                    headers: [("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(size)")], timeout: 600,
                    operation: "upload bytes \(offset)..<\(offset + length) of the bundle", accepting: [308])
                if response.status != 308 {
                    progress(size)
                    return try decode(PlayBundle.self, response, operation: "upload the bundle")
                }
                offset = Self.nextOffset(response) ?? 0
                progress(offset)
            } catch {
                // The session survives a failed chunk: ask how much arrived and go on from there.
                recoveries += 1
                guard recoveries <= 5 else { throw error }
                let status = try await request(.put, session, body: .bytes([]), headers: [("Content-Range", "bytes */\(size)")],
                                               operation: "ask how much of the bundle arrived", accepting: [308])
                if status.status != 308 { return try decode(PlayBundle.self, status, operation: "upload the bundle") }
                offset = Self.nextOffset(status) ?? 0
            }
            guard offset < size else {
                throw StoreAPIError(service: Self.service, operation: "upload the bundle", status: 308,
                                    details: ["the server has every byte but did not answer with the bundle"])
            }
        }
    }

    /// The first byte not yet received, from a 308's `Range: bytes=0-N`; nil without one (nothing received).
    static func nextOffset(_ response: HTTPResponse) -> Int64? {
        guard let range = response.header("range"), let dash = range.lastIndex(of: "-"),
              let last = Int64(range[range.index(after: dash)...].trimmingCharacters(in: .whitespaces)) else { return nil }
        return last + 1
    }
}
