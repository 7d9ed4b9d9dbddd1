import Foundation

/// A GitLab release as the Releases API returns it (the fields Shiplane uses).
struct GitLabRelease: Decodable, Sendable, Equatable {
    struct Assets: Decodable, Sendable, Equatable {
        var links: [GitLabReleaseLink]?
    }
    struct Links: Decodable, Sendable, Equatable {
        var selfURL: String?
        enum CodingKeys: String, CodingKey { case selfURL = "self" }
    }
    var tagName: String
    var name: String?
    var description: String?
    var assets: Assets?
    var links: Links?

    enum CodingKeys: String, CodingKey {
        case name, description, assets
        case tagName = "tag_name", links = "_links"
    }
}

/// A link attached to a GitLab release (an asset).
struct GitLabReleaseLink: Decodable, Sendable, Equatable {
    var id: Int
    var name: String
    var url: String
    var directAssetURL: String?
    var linkType: String?

    enum CodingKeys: String, CodingKey {
        case id, name, url
        case directAssetURL = "direct_asset_url", linkType = "link_type"
    }
}

/// A package in a project's package registry.
struct GitLabPackage: Decodable, Sendable, Equatable {
    var id: Int
    var name: String
    var version: String
    var packageType: String?

    enum CodingKeys: String, CodingKey {
        case id, name, version
        case packageType = "package_type"
    }
}

/// One file of a package, with the digest GitLab computed (`file_sha256`).
struct GitLabPackageFile: Decodable, Sendable, Equatable {
    var id: Int
    var packageID: Int
    var fileName: String
    var size: Int64?
    var fileSHA256: String?

    enum CodingKeys: String, CodingKey {
        case id, size
        case packageID = "package_id", fileName = "file_name", fileSHA256 = "file_sha256"
    }
}

/// GitLab's error body: `{"message": "404 Not Found"}`, `{"message": {"name": ["has already been taken"]}}` or `{"error": "..."}`.
struct GitLabErrorBody: Decodable {
    var text: String?

    enum CodingKeys: String, CodingKey { case message, error, errorDescription = "error_description" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let message = try? container.decode(String.self, forKey: .message) {
            text = message
        } else if let fields = try? container.decode([String: [String]].self, forKey: .message) {
            text = fields.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.joined(separator: ", "))" }.joined(separator: "; ")
        } else if let list = try? container.decode([String].self, forKey: .message) {
            text = list.joined(separator: "; ")
        } else {
            let error = try? container.decode(String.self, forKey: .error)
            let detail = try? container.decode(String.self, forKey: .errorDescription)
            text = [error, detail].compactMap { $0 }.joined(separator: ": ")
            if text?.isEmpty == true { text = nil }
        }
    }
}
