import Foundation

/// An image of a store listing, as Google describes it.
struct PlayImage: Codable, Sendable, Equatable {
    var id: String?
    var sha1: String?
    var sha256: String?
}

/// The store listing and track operations of the Android Publisher API, all inside an edit.
extension GooglePlayClient {
    static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? segment
    }

    /// Every listing of the edit: language → its members (title, shortDescription, fullDescription, video).
    func listings(editID: String) async throws -> [String: [String: String]] {
        struct List: Decodable { var listings: [[String: String]]? }
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)/listings", operation: "list the store listings")
        var found: [String: [String: String]] = [:]
        for var listing in try decode(List.self, response, operation: "list the store listings").listings ?? [] {
            guard let language = listing.removeValue(forKey: "language") else { continue }
            found[language] = listing
        }
        return found
    }

    /// Sets the given members of a language's listing (listings.patch); the others stay.
    func patchListing(editID: String, language: String, fields: [String: String]) async throws {
        _ = try await request(.patch, apiBaseURL + editsPath + "/\(editID)/listings/\(Self.escape(language))", json: fields,
                              operation: "update the \(language) store listing")
    }

    /// Replaces a language's listing with exactly `fields` (listings.update).
    func replaceListing(editID: String, language: String, fields: [String: String]) async throws {
        _ = try await request(.put, apiBaseURL + editsPath + "/\(editID)/listings/\(Self.escape(language))", json: fields,
                              operation: "restore the \(language) store listing")
    }

    /// Deletes a language's listing (listings.delete).
    func deleteListing(editID: String, language: String) async throws {
        _ = try await request(.delete, apiBaseURL + editsPath + "/\(editID)/listings/\(Self.escape(language))",
                              operation: "delete the \(language) store listing", accepting: [404])
    }

    /// The images of one type of a language's listing, in their order.
    func images(editID: String, language: String, type: String) async throws -> [PlayImage] {
        struct List: Decodable { var images: [PlayImage]? }
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)/listings/\(Self.escape(language))/\(type)",
                                         operation: "list the \(language) \(type)")
        return try decode(List.self, response, operation: "list the \(language) \(type)").images ?? []
    }

    /// Uploads an image as the last of its type.
    func uploadImage(editID: String, language: String, type: String, path: String) async throws -> PlayImage {
        struct Answer: Decodable { var image: PlayImage? }
        let contentType = path.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"
        let url = apiBaseURL + "/upload" + editsPath + "/\(editID)/listings/\(Self.escape(language))/\(type)?uploadType=media"
        let response = try await request(.post, url, body: .file(path: path), headers: [("Content-Type", contentType)], timeout: 300,
                                         operation: "upload \(URL(fileURLWithPath: path).lastPathComponent) as a \(language) \(type) image")
        guard let image = try decode(Answer.self, response, operation: "upload an image").image, image.id != nil else {
            throw StoreAPIError(service: Self.service, operation: "upload an image", status: response.status, details: ["the answer has no image id"])
        }
        return image
    }

    /// Deletes one image; one already gone counts as deleted.
    func deleteImage(editID: String, language: String, type: String, imageID: String) async throws {
        _ = try await request(.delete, apiBaseURL + editsPath + "/\(editID)/listings/\(Self.escape(language))/\(type)/\(Self.escape(imageID))",
                              operation: "delete a \(language) \(type) image", accepting: [404])
    }

    /// A track as the edit has it, as JSON (members Shiplane does not know, such as country targeting, are kept).
    func trackJSON(editID: String, track: String) async throws -> [String: Any]? {
        let response = try await request(.get, apiBaseURL + editsPath + "/\(editID)/tracks/\(Self.escape(track))",
                                         operation: "read track \(track)", accepting: [404])
        if response.status == 404 { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw StoreAPIError(service: Self.service, operation: "read track \(track)", status: response.status,
                                details: ["the answer could not be read: " + redactor.redact(response.bodySnippet())])
        }
        return object
    }

    /// Writes a track's releases as given (tracks.update).
    func putTrack(editID: String, track: String, releases: [[String: Any]]) async throws {
        _ = try await request(.put, apiBaseURL + editsPath + "/\(editID)/tracks/\(Self.escape(track))",
                              json: ["track": track, "releases": releases], operation: "update track \(track)")
    }
}
