import Foundation

/// A repository on Bitbucket Cloud (`workspace/repo_slug`) and the REST API 2.0 it is reached
/// through (`https://api.bitbucket.org/2.0`, or `BITBUCKET_API_URL`).
struct BitbucketRepository: Sendable, Equatable, CustomStringConvertible {
    static let defaultAPIURL = "https://api.bitbucket.org/2.0"

    /// The REST API base without a trailing slash.
    var apiURL: String
    var workspace: String
    var slug: String

    /// "workspace/repo_slug".
    var description: String { "\(workspace)/\(slug)" }

    /// The web page of the repository's downloads: bitbucket.org's for the public API, else the
    /// API's own host (a stand-in).
    var downloadsPage: String {
        guard let api = URLComponents(string: apiURL), let host = api.host else { return "https://bitbucket.org/\(description)/downloads/" }
        let web = host == "api.bitbucket.org" ? "https://bitbucket.org" : "\(api.scheme ?? "https")://\(host)" + (api.port.map { ":\($0)" } ?? "")
        return "\(web)/\(description)/downloads/"
    }

    /// Finds the repository from, in order: the `repository` option (`workspace/repo_slug`),
    /// Bitbucket Pipelines' `BITBUCKET_REPO_FULL_NAME`, and the origin remote's path; the API from
    /// `server`, else `BITBUCKET_API_URL`, else Bitbucket Cloud's.
    /// - Throws: `BitbucketError.repositoryUnknown` when nothing names it.
    static func locate(repository: String?, server: String?, environment: [String: String], originURL: String?) throws -> BitbucketRepository {
        func value(_ text: String?) -> String? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        var api = value(server) ?? value(environment["BITBUCKET_API_URL"]) ?? defaultAPIURL
        while api.hasSuffix("/") { api.removeLast() }
        guard let scheme = URLComponents(string: api)?.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw BitbucketError.repositoryUnknown(reason: "the Bitbucket API \(api) is not an http or https URL")
        }
        let path: [String]
        if let named = value(repository) ?? value(environment["BITBUCKET_REPO_FULL_NAME"]) {
            path = named.split(separator: "/").map(String.init)
        } else if let origin = originURL.flatMap({ RemoteLinks.hostAndPath(of: $0) }), let parts = RemoteLinks.repositoryPathComponents(origin.path) {
            path = parts.map(String.init)
        } else {
            throw BitbucketError.repositoryUnknown(reason: "no repository: no repository option, no BITBUCKET_REPO_FULL_NAME and no origin remote")
        }
        guard path.count == 2, !path[0].isEmpty, !path[1].isEmpty else {
            throw BitbucketError.repositoryUnknown(reason: "\(path.joined(separator: "/")) is not workspace/repo_slug")
        }
        return BitbucketRepository(apiURL: api, workspace: path[0], slug: path[1])
    }
}

/// How requests sign in: a repository, project or workspace access token
/// (`BITBUCKET_ACCESS_TOKEN`, sent as `Authorization: Bearer`), else an Atlassian account and an
/// API token or app password (`BITBUCKET_USERNAME` with `BITBUCKET_API_TOKEN` or
/// `BITBUCKET_APP_PASSWORD`, sent as HTTP Basic).
struct BitbucketCredentials: Sendable {
    var authorization: String
    /// What the redactor hides: the token or password, and the Basic value made from it.
    var secrets: [String]

    /// The variables that configure it, the first one that selects it first.
    static let variables = ["BITBUCKET_ACCESS_TOKEN", "BITBUCKET_USERNAME", "BITBUCKET_API_TOKEN", "BITBUCKET_APP_PASSWORD"]

    static func from(_ environment: [String: String]) -> BitbucketCredentials? {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        if let token = value("BITBUCKET_ACCESS_TOKEN") { return BitbucketCredentials(authorization: "Bearer \(token)", secrets: [token]) }
        guard let user = value("BITBUCKET_USERNAME"), let password = value("BITBUCKET_API_TOKEN") ?? value("BITBUCKET_APP_PASSWORD") else { return nil }
        let basic = Data("\(user):\(password)".utf8).base64EncodedString()
        return BitbucketCredentials(authorization: "Basic \(basic)", secrets: [password, basic])
    }
}
