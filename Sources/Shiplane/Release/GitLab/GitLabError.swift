import Foundation

/// What went wrong talking to GitLab, with what to do about it.
enum GitLabError: ReportableError {
    /// No token in any of the variables; nothing was sent.
    case missingToken
    /// Neither options, CI variables nor the origin remote name the project or server.
    case projectUnknown(reason: String)
    /// 401: the token is invalid, expired or revoked.
    case tokenRefused(project: String, header: String)
    /// 404 on the project: it does not exist or the token cannot see it.
    case projectNotFound(project: String, api: String)
    /// 403: the token may not do this.
    case permissionDenied(operation: String, project: String, serverMessage: String?)
    /// The tag is not on GitLab (a release needs it there first).
    case tagMissing(tag: String, project: String)
    /// A milestone named for the release does not exist.
    case milestoneMissing(title: String, project: String)
    /// The server answered something that is not JSON.
    case notJSON(operation: String, status: Int, contentType: String?, bodySnippet: String)
    /// Any other unexpected status.
    case unexpectedStatus(operation: String, status: Int, serverMessage: String?)

    var message: String {
        switch self {
        case .missingToken:
            return "no GitLab token: none of GITLAB_TOKEN, CI_JOB_TOKEN is set"
        case .projectUnknown(let reason):
            return "cannot tell which GitLab project to release: \(reason)"
        case let .tokenRefused(project, header):
            return "GitLab refused the token (\(header)) while accessing project \(project)"
        case let .projectNotFound(project, api):
            return "GitLab project \(project) not found at \(api), or the token cannot see it"
        case let .permissionDenied(operation, project, _):
            return "the token is not allowed to \(operation) in GitLab project \(project)"
        case let .tagMissing(tag, project):
            return "the tag \(tag) is not on GitLab (project \(project))"
        case let .milestoneMissing(title, project):
            return "GitLab project \(project) has no milestone \(title)"
        case let .notJSON(operation, status, contentType, _):
            return "GitLab answered \(operation) with HTTP \(status) and \(contentType ?? "no content type") instead of JSON"
        case let .unexpectedStatus(operation, status, serverMessage):
            return "GitLab answered \(operation) with HTTP \(status)" + (serverMessage.map { ": \($0)" } ?? "")
        }
    }

    var info: [(key: String, value: String)] {
        switch self {
        case let .permissionDenied(_, _, serverMessage):
            return serverMessage.map { [("server message", $0)] } ?? []
        case let .notJSON(_, status, contentType, snippet):
            return [("status", String(status)), ("content-type", contentType ?? "none"), ("body starts with", snippet)]
        case let .unexpectedStatus(_, status, _):
            return [("status", String(status))]
        default:
            return []
        }
    }

    var suggestion: String? {
        switch self {
        case .missingToken:
            return "set GITLAB_TOKEN to a personal or project access token with the api scope (in GitLab CI, CI_JOB_TOKEN is used when GITLAB_TOKEN is not set)"
        case .projectUnknown:
            return "pass forge: .gitlab(server: \"https://gitlab.example.com\", project: \"group/project\"), or run in GitLab CI"
        case .tokenRefused:
            return "set GITLAB_TOKEN to a valid, unexpired token with the api scope"
        case .projectNotFound:
            return "check the project path (group/project) or id, the server URL, and that the token's user is a member"
        case .permissionDenied:
            return "use a token of a user with at least the Developer role (Maintainer for protected tags), with the api scope"
        case .tagMissing:
            return "push the tag before the release (lane.push(tags: [...])), or release a tag that is on GitLab"
        case .milestoneMissing:
            return "create the milestone in GitLab, or leave it out of milestones:"
        case .notJSON:
            return "check the server URL: the API is at https://HOST/api/v4"
        case .unexpectedStatus:
            return nil
        }
    }
}
