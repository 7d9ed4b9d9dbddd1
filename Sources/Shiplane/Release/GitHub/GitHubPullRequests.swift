import Foundation

/// A pull request as GitHub's pulls API describes it (the members Shiplane reads).
package struct GitHubPullRequest: Decodable, Sendable, Equatable {
    /// A side of the pull request: the branch and the commit at its tip.
    package struct Side: Decodable, Sendable, Equatable {
        package var ref: String
        package var sha: String
    }

    package var number: Int
    /// `open` or `closed`.
    package var state: String
    package var title: String?
    package var htmlURL: String?
    /// When it was merged; nil while it is not.
    package var mergedAt: String?
    package var head: Side
    package var base: Side

    enum CodingKeys: String, CodingKey {
        case number, state, title, head, base
        case htmlURL = "html_url"
        case mergedAt = "merged_at"
    }
}

/// GitHub's pulls API (`/repos/{owner}/{repo}/pulls`): what a formula's pull request to a
/// protected Homebrew tap needs — find the open one for a branch, open one, read one, close one.
extension GitHubClient {
    private var pullsPath: String {
        "/repos/\(URITemplate.percentEncode(repository.owner, allowReserved: false))/\(URITemplate.percentEncode(repository.name, allowReserved: false))/pulls"
    }

    /// The open pull requests from `branch` (of this repository) into `base`.
    package func openPullRequests(branch: String, base: String) async throws -> [GitHubPullRequest] {
        let head = URITemplate.percentEncode("\(repository.owner):\(branch)", allowReserved: false)
        let url = apiBaseURL + pullsPath + "?state=open&head=\(head)&base=\(URITemplate.percentEncode(base, allowReserved: false))&per_page=100"
        let response = try await transport.send(HTTPRequest(method: .get, url: url, headers: headers))
        guard response.isSuccess else { throw failure(response, operation: "list the pull requests from \(branch)") }
        return try decode([GitHubPullRequest].self, response, operation: "list the pull requests from \(branch)")
    }

    /// One pull request.
    package func pullRequest(number: Int) async throws -> GitHubPullRequest? {
        let response = try await transport.send(HTTPRequest(method: .get, url: apiBaseURL + pullsPath + "/\(number)", headers: headers))
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "read pull request #\(number)") }
        return try decode(GitHubPullRequest.self, response, operation: "read pull request #\(number)")
    }

    /// Opens a pull request from `branch` into `base`; when one is open already (GitHub's 422,
    /// or an answer lost after the request landed), returns that one.
    /// - Returns: the pull request and whether this call opened it.
    package func openPullRequest(title: String, body: String, branch: String, base: String) async throws -> (GitHubPullRequest, opened: Bool) {
        struct Payload: Encodable {
            var title: String
            var head: String
            var base: String
            var body: String
            var maintainer_can_modify: Bool
        }
        let operation = "open a pull request from \(branch) into \(base)"
        let request = try HTTPRequest.json(.post, url: apiBaseURL + pullsPath, headers: headers,
                                           value: Payload(title: title, head: branch, base: base, body: body, maintainer_can_modify: true))
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch HTTPTransportError.responseLost {
            // Sent, but the answer was lost: a pull request open now is the one it made.
            if let landed = try await openPullRequests(branch: branch, base: base).first { return (landed, true) }
            response = try await transport.send(request)
        }
        if response.isSuccess { return (try decode(GitHubPullRequest.self, response, operation: operation), true) }
        if response.status == 422, let existing = try await openPullRequests(branch: branch, base: base).first {
            return (existing, false)
        }
        throw failure(response, operation: operation)
    }

    /// Closes pull request `number` (`PATCH … {"state": "closed"}`); it stays in the history.
    package func closePullRequest(number: Int) async throws {
        struct Payload: Encodable { var state: String }
        let request = try HTTPRequest.json(.patch, url: apiBaseURL + pullsPath + "/\(number)", headers: headers, value: Payload(state: "closed"))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "close pull request #\(number)") }
    }
}
