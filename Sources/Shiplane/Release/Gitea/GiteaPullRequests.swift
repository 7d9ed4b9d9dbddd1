import Foundation

/// A pull request as Gitea's API describes it (`PullRequest`; the members Shiplane reads).
struct GiteaPullRequest: Decodable, Sendable {
    struct Branch: Decodable, Sendable {
        var ref: String?
        var sha: String?
    }

    var number: Int
    /// `open` or `closed`.
    var state: String
    var merged: Bool?
    var htmlURL: String?
    var head: Branch?
    var base: Branch?

    enum CodingKeys: String, CodingKey {
        case number, state, merged, head, base
        case htmlURL = "html_url"
    }

    var proposal: ForgeProposal {
        ForgeProposal(number: number, isOpen: state == "open", isMerged: merged == true, head: head?.sha ?? "", webURL: htmlURL)
    }
}

/// Gitea's pulls API (`/repos/{owner}/{repo}/pulls`): list the open ones (filtered by their head
/// and base here: the list takes no head), open one, read one, close one (`PATCH … state=closed`).
extension GiteaClient {
    private var pullsPath: String {
        "\(repository.apiURL)/repos/\(URITemplate.percentEncode(repository.owner, allowReserved: false))/\(URITemplate.percentEncode(repository.name, allowReserved: false))/pulls"
    }

    /// The open pull requests from `branch` (of this repository) into `base`.
    func openPullRequests(branch: String, base: String) async throws -> [GiteaPullRequest] {
        let operation = "list the pull requests from \(branch)"
        var found: [GiteaPullRequest] = []
        for page in 1...20 {
            let response = try await transport.send(HTTPRequest(method: .get, url: pullsPath + "?state=open&limit=50&page=\(page)", headers: headers))
            guard response.isSuccess else { throw failure(response, operation: operation, repositoryLevel: true) }
            let list = try decode([GiteaPullRequest].self, response, operation: operation)
            found += list.filter { $0.head?.ref == branch && $0.base?.ref == base }
            if list.count < 50 { break }
        }
        return found
    }

    /// One pull request; nil when there is none.
    func pullRequest(number: Int) async throws -> GiteaPullRequest? {
        let response = try await transport.send(HTTPRequest(method: .get, url: pullsPath + "/\(number)", headers: headers))
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "read pull request #\(number)") }
        return try decode(GiteaPullRequest.self, response, operation: "read pull request #\(number)")
    }

    /// Sends the request that opens a pull request from `branch` into `base` (`POST …/pulls`); a
    /// 409 or 422 is Gitea's refusal of a second open one (the forge contract then finds that one).
    /// - Throws: `HTTPTransportError.responseLost` when no answer came back; Gitea's error for any other refusal.
    func requestPullRequest(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        struct Payload: Encodable {
            var title: String
            var head: String
            var base: String
            var body: String
        }
        let operation = "open a pull request from \(branch) into \(base)"
        let request = try HTTPRequest.json(.post, url: pullsPath, headers: headers, value: Payload(title: title, head: branch, base: base, body: body))
        let response = try await transport.send(request)
        if response.isSuccess { return .opened(try decode(GiteaPullRequest.self, response, operation: operation).proposal) }
        if response.status == 409 || response.status == 422 { return .alreadyOpen(failure: failure(response, operation: operation)) }
        throw failure(response, operation: operation)
    }

    /// Closes pull request `number` (`PATCH … {"state": "closed"}`).
    func closePullRequest(number: Int) async throws {
        struct Payload: Encodable { var state: String }
        let request = try HTTPRequest.json(.patch, url: pullsPath + "/\(number)", headers: headers, value: Payload(state: "closed"))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "close pull request #\(number)") }
    }
}

/// Gitea's pull requests behind the proposal operation.
struct GiteaProposals: ForgeProposals {
    let client: GiteaClient
    var api: String { client.repository.apiURL }
    var repository: String { client.repository.description }
    var noun: String { "pull request" }

    func checkAccess() async throws { try await client.checkAccess() }
    func openProposals(branch: String, base: String) async throws -> [ForgeProposal] {
        try await client.openPullRequests(branch: branch, base: base).map(\.proposal)
    }
    func proposal(number: Int) async throws -> ForgeProposal? { try await client.pullRequest(number: number)?.proposal }
    func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        try await client.requestPullRequest(title: title, body: body, branch: branch, base: base)
    }
    func closeProposal(number: Int) async throws { try await client.closePullRequest(number: number) }
}

extension GiteaForge {
    /// Gitea's pull requests for `repository` (`owner/name`) on `server` (its URL, or its API
    /// base). The token: the tap's, else `GITEA_TOKEN`, else `FORGEJO_TOKEN`.
    static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)? {
        guard var base = server?.trimmingCharacters(in: .whitespacesAndNewlines), !base.isEmpty else {
            throw ShiplaneError("no Gitea server for the pull request in \(repository)", suggestion: "pass forge: .gitea(server: \"https://code.example.org\")")
        }
        let parts = repository.split(separator: "/").map(String.init)
        guard parts.count == 2 else { throw ShiplaneError("\(repository) is not owner/name", suggestion: "pass forge: .gitea(server: …, repository: \"owner/name\")") }
        guard let token = tapToken(variables, fallback: { GiteaClient.token(from: variables) }) else {
            throw ShiplaneError("no token for pull requests on Gitea \(repository): set SHIPLANE_TAP_TOKEN (or GITEA_TOKEN)",
                                suggestion: "set the token; nothing was sent")
        }
        while base.hasSuffix("/") { base.removeLast() }
        if !base.hasSuffix("/api/v1") { base += "/api/v1" }
        let located = GiteaRepository(apiURL: base, owner: parts[0], name: parts[1])
        return GiteaProposals(client: GiteaClient(repository: located, token: token, transport: transport, version: ShiplaneVersion.current))
    }
}
