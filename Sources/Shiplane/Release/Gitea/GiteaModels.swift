import Foundation

/// A Gitea release (the fields of the API's `Release` definition Shiplane uses).
struct GiteaRelease: Decodable, Sendable, Equatable {
    var id: Int
    var tagName: String
    var name: String?
    var body: String?
    var draft: Bool
    var prerelease: Bool
    var htmlURL: String?
    /// The release's attachments, when the response lists them (`assets`).
    var assets: [GiteaAttachment]?

    enum CodingKeys: String, CodingKey {
        case id, name, body, draft, prerelease, assets
        case tagName = "tag_name", htmlURL = "html_url"
    }
}

/// A file attached to a Gitea release (the API's `Attachment`).
struct GiteaAttachment: Decodable, Sendable, Equatable {
    var id: Int
    var name: String
    var size: Int64
    var browserDownloadURL: String?

    enum CodingKeys: String, CodingKey {
        case id, name, size
        case browserDownloadURL = "browser_download_url"
    }
}

/// Gitea's error bodies (`APIError`, `APINotFound`, `APIValidationError`): `message`, `url`, `errors`.
struct GiteaErrorBody: Decodable {
    var message: String?
    var errors: [String]?
}
