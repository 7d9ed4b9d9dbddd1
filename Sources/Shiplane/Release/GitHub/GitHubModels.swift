import Foundation

/// A GitHub release as the REST API returns it (the fields Shiplane uses).
public struct GitHubRelease: Codable, Sendable, Equatable {
    public var id: Int
    public var tagName: String
    public var name: String?
    public var body: String?
    public var draft: Bool
    public var prerelease: Bool
    public var htmlURL: String?
    public var uploadURL: String
    public var assets: [GitHubAsset]?

    enum CodingKeys: String, CodingKey {
        case id, name, body, draft, prerelease, assets
        case tagName = "tag_name", htmlURL = "html_url", uploadURL = "upload_url"
    }

    public init(id: Int, tagName: String, name: String? = nil, body: String? = nil, draft: Bool, prerelease: Bool = false,
                htmlURL: String? = nil, uploadURL: String, assets: [GitHubAsset]? = nil) {
        self.id = id
        self.tagName = tagName
        self.name = name
        self.body = body
        self.draft = draft
        self.prerelease = prerelease
        self.htmlURL = htmlURL
        self.uploadURL = uploadURL
        self.assets = assets
    }
}

/// A file attached to a GitHub release.
public struct GitHubAsset: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var size: Int64
    /// "uploaded" when complete; "starter" for an upload that never finished.
    public var state: String?
    public var contentType: String?
    public var browserDownloadURL: String?
    /// The content's digest as GitHub computed it (`sha256:<hex>`), when the API gives one.
    public var digest: String?

    enum CodingKeys: String, CodingKey {
        case id, name, size, state, digest
        case contentType = "content_type", browserDownloadURL = "browser_download_url"
    }

    public init(id: Int, name: String, size: Int64, state: String? = "uploaded", contentType: String? = nil, browserDownloadURL: String? = nil) {
        self.id = id
        self.name = name
        self.size = size
        self.state = state
        self.contentType = contentType
        self.browserDownloadURL = browserDownloadURL
    }
}

/// Whether a published release becomes the repository's latest (`make_latest`).
public enum GitHubMakeLatest: String, Sendable, Codable {
    case yes = "true", no = "false", legacy
}

/// GitHub's JSON error body: `{"message": ..., "errors": [{"code": "already_exists", ...}], "documentation_url": ...}`.
struct GitHubErrorBody: Decodable {
    struct Item: Decodable {
        var resource: String?
        var code: String?
        var field: String?
        var message: String?
    }
    var message: String?
    var errors: [Item]?
    var documentationURL: String?

    enum CodingKeys: String, CodingKey {
        case message, errors
        case documentationURL = "documentation_url"
    }
}
