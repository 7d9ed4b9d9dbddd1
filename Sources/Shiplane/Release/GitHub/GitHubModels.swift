import Foundation

/// A GitHub release as the REST API returns it (the fields Shiplane uses).
public struct GitHubRelease: Codable, Sendable, Equatable {
    /// The release's id, used in the API's URLs.
    public var id: Int
    /// The tag the release is for (`tag_name`).
    public var tagName: String
    /// The release's title, when it has one.
    public var name: String?
    /// The release notes, in Markdown.
    public var body: String?
    /// True while the release is a draft, seen only by people with push access.
    public var draft: Bool
    /// True for a prerelease.
    public var prerelease: Bool
    /// The release's page (`html_url`), when the response gives it.
    public var htmlURL: String?
    /// The URI template assets are uploaded to (`upload_url`, `…/assets{?name,label}`).
    public var uploadURL: String
    /// The release's assets, when the response lists them.
    public var assets: [GitHubAsset]?

    enum CodingKeys: String, CodingKey {
        case id, name, body, draft, prerelease, assets
        case tagName = "tag_name", htmlURL = "html_url", uploadURL = "upload_url"
    }

    /// Creates a release value, as a test double or a recorded response would.
    package init(id: Int, tagName: String, name: String? = nil, body: String? = nil, draft: Bool, prerelease: Bool = false,
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
    /// The asset's id, used in the API's URLs.
    public var id: Int
    /// The asset's file name.
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// "uploaded" when complete; "starter" for an upload that never finished.
    public var state: String?
    /// The media type it was uploaded with (`content_type`).
    public var contentType: String?
    /// Where it can be downloaded (`browser_download_url`).
    public var browserDownloadURL: String?
    /// The content's digest as GitHub computed it (`sha256:<hex>`), when the API gives one.
    public var digest: String?

    enum CodingKeys: String, CodingKey {
        case id, name, size, state, digest
        case contentType = "content_type", browserDownloadURL = "browser_download_url"
    }

    /// Creates an asset value, as a test double or a recorded response would.
    package init(id: Int, name: String, size: Int64, state: String? = "uploaded", contentType: String? = nil, browserDownloadURL: String? = nil) {
        self.id = id
        self.name = name
        self.size = size
        self.state = state
        self.contentType = contentType
        self.browserDownloadURL = browserDownloadURL
    }
}

/// Whether a published release becomes the repository's latest (`make_latest`).
package enum GitHubMakeLatest: String, Sendable, Codable {
    /// `true`: the release becomes the latest; `false`: it does not; `legacy`: GitHub decides by date
    /// and version.
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
