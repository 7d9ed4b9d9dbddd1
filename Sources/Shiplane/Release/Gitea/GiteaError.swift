import Foundation

/// What went wrong talking to Gitea or Forgejo, with what to do about it.
enum GiteaError: ReportableError {
    case missingToken
    case repositoryUnknown(reason: String)
    case tokenRefused(repository: String)
    case repositoryNotFound(repository: String, api: String)
    case permissionDenied(operation: String, repository: String, serverMessage: String?)
    case tagMissing(tag: String, repository: String)
    case notJSON(operation: String, status: Int, contentType: String?, bodySnippet: String)
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
