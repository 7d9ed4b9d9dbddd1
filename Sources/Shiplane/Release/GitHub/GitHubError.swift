import Foundation

/// What went wrong talking to GitHub, with what to do about it.
package enum GitHubError: ReportableError {
    /// No token was given; nothing was sent.
    case missingToken(variable: String)
    /// 401: the token is invalid, expired or revoked.
    case tokenRefused(repository: String)
    /// 404 on the repository: it does not exist or the token cannot see it.
    case repositoryNotFound(repository: String)
    /// 403: the token lacks a permission; `acceptedPermissions` is GitHub's `x-accepted-github-permissions`.
    case permissionDenied(operation: String, repository: String, acceptedPermissions: String?, serverMessage: String?)
    /// The server answered something that is not JSON (an HTML error page, a proxy, a wrong URL).
    case notJSON(operation: String, status: Int, contentType: String?, bodySnippet: String)
    /// Any other unexpected status.
    case unexpectedStatus(operation: String, status: Int, serverMessage: String?, details: [String])
    /// The remote URL names no owner/repository.
    case invalidRemoteURL(String)
    /// The release has no usable upload URL.
    case invalidUploadURL(String)

    /// Says what GitHub refused or answered, for which repository or operation.
    package var message: String {
        switch self {
        case .missingToken(let variable):
            return "no GitHub token: \(variable) is not set"
        case .tokenRefused(let repository):
            return "GitHub refused the token while accessing \(repository)"
        case .repositoryNotFound(let repository):
            return "repository \(repository) not found or the token lacks access to it"
        case let .permissionDenied(operation, repository, accepted, _):
            if let accepted, !accepted.isEmpty {
                return "the token lacks the permission to \(operation) on \(repository) (needs \(accepted))"
            }
            return "the token is not allowed to \(operation) on \(repository)"
        case let .notJSON(operation, status, contentType, _):
            return "GitHub answered \(operation) with HTTP \(status) and \(contentType ?? "no content type") instead of JSON"
        case let .unexpectedStatus(operation, status, serverMessage, _):
            return "GitHub answered \(operation) with HTTP \(status)" + (serverMessage.map { ": \($0)" } ?? "")
        case .invalidRemoteURL(let url):
            return "cannot find a GitHub owner/repository in the remote URL \(url)"
        case .invalidUploadURL(let url):
            return "the release's upload URL \(url) is not usable"
        }
    }

    /// The permissions GitHub asked for and its message, or the status, content type and body details.
    package var info: [(key: String, value: String)] {
        switch self {
        case let .permissionDenied(_, _, accepted, serverMessage):
            var facts: [(key: String, value: String)] = []
            if let accepted { facts.append(("x-accepted-github-permissions", accepted)) }
            if let serverMessage { facts.append(("server message", serverMessage)) }
            return facts
        case let .notJSON(_, status, contentType, snippet):
            return [("status", String(status)), ("content-type", contentType ?? "none"), ("body starts with", snippet)]
        case let .unexpectedStatus(_, status, _, details):
            return [("status", String(status))] + details.map { ("detail", $0) }
        default:
            return []
        }
    }

    /// What to do next, where the cause is known.
    package var suggestion: String? {
        switch self {
        case .missingToken(let variable):
            return "set \(variable) to a token with contents:write permission (e.g. in .env or the CI secrets)"
        case .tokenRefused:
            return "set GITHUB_TOKEN to a valid, unexpired token"
        case .repositoryNotFound:
            return "check the remote URL and that GITHUB_TOKEN can access the repository"
        case .permissionDenied:
            return "give the token contents:write permission on the repository"
        case .notJSON:
            return "check GITHUB_API_URL: it should point at the REST API (https://api.github.com or https://HOST/api/v3)"
        case .invalidRemoteURL:
            return "use a remote like https://github.com/OWNER/REPO.git or git@github.com:OWNER/REPO.git"
        case .unexpectedStatus, .invalidUploadURL:
            return nil
        }
    }
}
