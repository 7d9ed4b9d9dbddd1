import Foundation

/// What went wrong talking to Gitea or Forgejo, with what to do about it.
enum GiteaError: ReportableError {
    /// No token in any of the variables; nothing was sent.
    case missingToken
    /// Neither options, CI variables nor the origin name the server or repository.
    case repositoryUnknown(reason: String)
    /// 401: the token is invalid, expired or revoked.
    case tokenRefused(repository: String)
    /// 404 on the repository: it does not exist or the token cannot see it.
    case repositoryNotFound(repository: String, api: String)
    /// 403: the token may not do this.
    case permissionDenied(operation: String, repository: String, serverMessage: String?)
    /// The tag is not on the server (Gitea would tag the default branch instead).
    case tagMissing(tag: String, repository: String)
    /// The server answered something that is not JSON.
    case notJSON(operation: String, status: Int, contentType: String?, bodySnippet: String)
    /// Any other unexpected status.
    case unexpectedStatus(operation: String, status: Int, serverMessage: String?)

    var message: String {
        switch self {
        case .missingToken: return "no Gitea token: none of GITEA_TOKEN, FORGEJO_TOKEN is set"
        case .repositoryUnknown(let reason): return "cannot tell which Gitea repository to release: \(reason)"
        case .tokenRefused(let repository): return "Gitea refused the token while accessing \(repository)"
        case let .repositoryNotFound(repository, api): return "repository \(repository) not found at \(api), or the token cannot see it"
        case let .permissionDenied(operation, repository, _): return "the token is not allowed to \(operation) on \(repository)"
        case let .tagMissing(tag, repository): return "the tag \(tag) is not on the Gitea server (\(repository))"
        case let .notJSON(operation, status, contentType, _):
            return "Gitea answered \(operation) with HTTP \(status) and \(contentType ?? "no content type") instead of JSON"
        case let .unexpectedStatus(operation, status, serverMessage):
            return "Gitea answered \(operation) with HTTP \(status)" + (serverMessage.map { ": \($0)" } ?? "")
        }
    }

    var info: [(key: String, value: String)] {
        switch self {
        case let .permissionDenied(_, _, message): return message.map { [("server message", $0)] } ?? []
        case let .notJSON(_, status, contentType, snippet):
            return [("status", String(status)), ("content-type", contentType ?? "none"), ("body starts with", snippet)]
        case let .unexpectedStatus(_, status, _): return [("status", String(status))]
        default: return []
        }
    }

    var suggestion: String? {
        switch self {
        case .missingToken: return "set GITEA_TOKEN (or FORGEJO_TOKEN) to an access token with the write:repository scope"
        case .repositoryUnknown: return "pass forge: .gitea(server: \"https://code.example.org\", repository: \"owner/name\")"
        case .tokenRefused: return "set GITEA_TOKEN to a valid access token"
        case .repositoryNotFound: return "check the server URL, owner/name, and that the token's user can see the repository"
        case .permissionDenied: return "give the token the write:repository scope, and its user write access to the repository"
        case .tagMissing: return "push the tag before the release (lane.push(tags: [...])): Gitea would otherwise tag the default branch"
        case .notJSON: return "check the server URL: the API is at https://HOST/api/v1"
        case .unexpectedStatus: return nil
        }
    }
}
