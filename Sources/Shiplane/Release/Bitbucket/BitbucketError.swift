import Foundation

/// What went wrong talking to Bitbucket Cloud, in words that say what to do.
enum BitbucketError: ReportableError, Equatable {
    case missingCredentials
    case credentialsRefused(repository: String)
    case permissionDenied(operation: String, repository: String, serverMessage: String?)
    case repositoryNotFound(repository: String, api: String)
    case repositoryUnknown(reason: String)
    case tagMissing(tag: String, repository: String)
    case notJSON(operation: String, status: Int, contentType: String?)
    case unexpectedStatus(operation: String, status: Int, serverMessage: String?)

    var message: String {
        switch self {
        case .missingCredentials:
            "no Bitbucket credentials: neither BITBUCKET_ACCESS_TOKEN nor BITBUCKET_USERNAME with BITBUCKET_API_TOKEN (or BITBUCKET_APP_PASSWORD) is set"
        case .credentialsRefused(let repository): "Bitbucket refused the credentials (401) for \(repository)"
        case let .permissionDenied(operation, repository, serverMessage):
            "Bitbucket denied permission to \(operation) in \(repository) (403)" + (serverMessage.map { ": \($0)" } ?? "")
        case let .repositoryNotFound(repository, api): "the repository \(repository) was not found at \(api) (404)"
        case .repositoryUnknown(let reason): "cannot tell which Bitbucket repository to release: \(reason)"
        case let .tagMissing(tag, repository): "the tag \(tag) is not on Bitbucket in \(repository)"
        case let .notJSON(operation, status, contentType):
            "Bitbucket answered \(status) with \(contentType ?? "no content type") instead of JSON while trying to \(operation)"
        case let .unexpectedStatus(operation, status, serverMessage):
            "Bitbucket answered \(status) while trying to \(operation)" + (serverMessage.map { ": \($0)" } ?? "")
        }
    }

    var suggestion: String? {
        switch self {
        case .missingCredentials, .credentialsRefused:
            "set BITBUCKET_ACCESS_TOKEN to a repository access token with the repository:write scope, or BITBUCKET_USERNAME and BITBUCKET_API_TOKEN"
        case .permissionDenied: "give the token the repository:write scope (write:repository:bitbucket for API tokens)"
        case .repositoryNotFound: "check the repository (workspace/repo_slug) and that the token can see it"
        case .repositoryUnknown: "pass repository: \"workspace/repo_slug\", or add the origin remote"
        case .tagMissing: "push the tag before the release (lane.push(tags: [...]))"
        case .notJSON: "check BITBUCKET_API_URL: it must be the REST API 2.0 (https://api.bitbucket.org/2.0)"
        case .unexpectedStatus: nil
        }
    }

    var category: ErrorCategory {
        switch self {
        case .missingCredentials, .repositoryUnknown: .environment
        default: .failure
        }
    }
}
