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

    /// Sends the request that opens a pull request from `branch` into `base` (`POST …/pulls`);
    /// GitHub's 422 is its refusal of a second open one (the forge contract then finds that one).
    /// - Throws: `HTTPTransportError.responseLost` when no answer came back; GitHub's error for any other refusal.
    package func requestPullRequest(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
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
        let response = try await transport.send(request)
        if response.isSuccess { return .opened(GitHubProposals.proposal(try decode(GitHubPullRequest.self, response, operation: operation))) }
        if response.status == 422 { return .alreadyOpen(failure: failure(response, operation: operation)) }
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

/// GitHub's pulls API behind the proposal operation.
struct GitHubProposals: ForgeProposals {
    let client: GitHubClient
    var api: String { client.apiBaseURL }
    var repository: String { client.repository.description }
    var noun: String { "pull request" }

    func checkAccess() async throws { try await client.checkAccess() }

    func openProposals(branch: String, base: String) async throws -> [ForgeProposal] {
        try await client.openPullRequests(branch: branch, base: base).map(Self.proposal)
    }

    func proposal(number: Int) async throws -> ForgeProposal? { try await client.pullRequest(number: number).map(Self.proposal) }

    func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        try await client.requestPullRequest(title: title, body: body, branch: branch, base: base)
    }

    func closeProposal(number: Int) async throws { try await client.closePullRequest(number: number) }

    static func proposal(_ pull: GitHubPullRequest) -> ForgeProposal {
        ForgeProposal(number: pull.number, isOpen: pull.state == "open", isMerged: pull.mergedAt != nil, head: pull.head.sha, webURL: pull.htmlURL)
    }
}

extension GitHubForge {
    /// GitHub's pulls API for `repository` (`owner/name`); `server` is the API base (nil:
    /// `GITHUB_API_URL`, else api.github.com). The token: the tap's, else `GITHUB_TOKEN`.
    static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)? {
        guard let token = tapToken(variables, fallback: { GitHubReleasePublisher.token(from: variables) }) else {
            throw ShiplaneError("no token for pull requests on GitHub \(repository): set SHIPLANE_TAP_TOKEN (or GITHUB_TOKEN)",
                                suggestion: "set the token; nothing was sent")
        }
        var environment = variables
        if let server { environment["GITHUB_API_URL"] = server }
        let client = try GitHubClient(repository: try GitHubRepository(remoteURL: repository), token: token, environment: environment,
                                      transport: transport, version: ShiplaneVersion.current)
        return GitHubProposals(client: client)
    }
}
