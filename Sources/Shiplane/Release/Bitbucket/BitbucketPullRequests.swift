import Foundation

/// A pull request as Bitbucket Cloud's API describes it (`pullrequest`; the members Shiplane reads).
struct BitbucketPullRequest: Decodable, Sendable {
    struct Endpoint: Decodable, Sendable {
        struct Branch: Decodable, Sendable { var name: String? }
        struct Commit: Decodable, Sendable { var hash: String? }
        var branch: Branch?
        var commit: Commit?
    }
    struct Links: Decodable, Sendable {
        struct Link: Decodable, Sendable { var href: String? }
        var html: Link?
    }

    var id: Int
    /// `OPEN`, `MERGED`, `DECLINED` or `SUPERSEDED`.
    var state: String
    var source: Endpoint?
    var destination: Endpoint?
    var links: Links?

    /// As the forge contract reads it; `head` is the source commit's hash as Bitbucket gives it
    /// (the schema allows 7 hex digits or more: the caller widens a short one).
    var proposal: ForgeProposal {
        ForgeProposal(number: id, isOpen: state == "OPEN", isMerged: state == "MERGED", head: source?.commit?.hash ?? "", webURL: links?.html?.href)
    }
}

/// Bitbucket Cloud's pull requests (`/repositories/{workspace}/{repo_slug}/pullrequests`): list
/// the open ones (`state=OPEN`, page by page; filtered by source and destination branch here),
/// open one (`POST`), read one, and decline one (`POST …/{id}/decline`: Bitbucket's close, the pull
/// request stays in its history).
extension BitbucketClient {
    private var pullsPath: String { "\(repoPath)/pullrequests" }

    /// The open pull requests from `branch` (of this repository) into `base`.
    func openPullRequests(branch: String, base: String) async throws -> [BitbucketPullRequest] {
        struct Page: Decodable {
            var values: [BitbucketPullRequest]
            var next: String?
        }
        let operation = "list the pull requests from \(branch)"
        var found: [BitbucketPullRequest] = []
        var url: String? = pullsPath + "?state=OPEN&pagelen=50"
        var pages = 0
        while let current = url, pages < 20 {
            let response = try await transport.send(HTTPRequest(method: .get, url: current, headers: headers))
            guard response.isSuccess else { throw failure(response, operation: operation, repositoryLevel: true) }
            let page = try decode(Page.self, response, operation: operation)
            found += page.values.filter { $0.source?.branch?.name == branch && $0.destination?.branch?.name == base }
            pages += 1
            url = page.next.flatMap { next in URLComponents(string: next)?.host == URLComponents(string: repository.apiURL)?.host ? next : nil }
        }
        return found
    }

    /// One pull request; nil when there is none.
    func pullRequest(number: Int) async throws -> BitbucketPullRequest? {
        let response = try await transport.send(HTTPRequest(method: .get, url: pullsPath + "/\(number)", headers: headers))
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "read pull request #\(number)") }
        return try decode(BitbucketPullRequest.self, response, operation: "read pull request #\(number)")
    }

    /// Sends the request that opens a pull request from `branch` into `base` (`POST …/pullrequests`
    /// with `title`, `description`, `source` and `destination` branches). Bitbucket answers an
    /// input it refuses with 400 (the contract then looks for an open one from the branch, and
    /// throws this error when there is none).
    /// - Throws: `HTTPTransportError.responseLost` when no answer came back; Bitbucket's error for any other refusal.
    func requestPullRequest(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        struct Payload: Encodable {
            struct Endpoint: Encodable {
                struct Branch: Encodable { var name: String }
                var branch: Branch
            }
            var title: String
            var description: String
            var source: Endpoint
            var destination: Endpoint
        }
        let operation = "open a pull request from \(branch) into \(base)"
        let payload = Payload(title: title, description: body, source: .init(branch: .init(name: branch)), destination: .init(branch: .init(name: base)))
        let request = try HTTPRequest.json(.post, url: pullsPath, headers: headers, value: payload)
        let response = try await transport.send(request)
        if response.isSuccess { return .opened(try decode(BitbucketPullRequest.self, response, operation: operation).proposal) }
        if response.status == 400 || response.status == 409 { return .alreadyOpen(failure: failure(response, operation: operation)) }
        throw failure(response, operation: operation)
    }

    /// Declines pull request `number` (`POST …/{id}/decline`).
    func declinePullRequest(number: Int) async throws {
        let response = try await transport.send(HTTPRequest(method: .post, url: pullsPath + "/\(number)/decline", headers: headers))
        guard response.isSuccess else { throw failure(response, operation: "decline pull request #\(number)") }
    }

    /// The full hash of `commit` (`GET …/commit/{commit}`), for a pull request's short source hash.
    func fullHash(_ commit: String) async throws -> String {
        struct Commit: Decodable { var hash: String }
        let response = try await transport.send(HTTPRequest(method: .get, url: "\(repoPath)/commit/\(segment(commit))", headers: headers))
        if response.status == 404 { return commit }
        guard response.isSuccess else { throw failure(response, operation: "read the commit \(commit)") }
        return try decode(Commit.self, response, operation: "read the commit \(commit)").hash
    }
}

/// Bitbucket Cloud's pull requests behind the proposal operation. Its close is Bitbucket's decline.
struct BitbucketProposals: ForgeProposals {
    let client: BitbucketClient
    var api: String { client.repository.apiURL }
    var repository: String { client.repository.description }
    var noun: String { "pull request" }

    func checkAccess() async throws { try await client.checkAccess() }

    /// A proposal whose head is the full commit hash, as the contract compares it with the run's commit.
    private func widened(_ pullRequest: BitbucketPullRequest) async throws -> ForgeProposal {
        var proposal = pullRequest.proposal
        if proposal.head.count < 40, !proposal.head.isEmpty { proposal.head = try await client.fullHash(proposal.head) }
        return proposal
    }

    func openProposals(branch: String, base: String) async throws -> [ForgeProposal] {
        var found: [ForgeProposal] = []
        for pullRequest in try await client.openPullRequests(branch: branch, base: base) { found.append(try await widened(pullRequest)) }
        return found
    }
    func proposal(number: Int) async throws -> ForgeProposal? {
        guard let pullRequest = try await client.pullRequest(number: number) else { return nil }
        return try await widened(pullRequest)
    }
    func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        switch try await client.requestPullRequest(title: title, body: body, branch: branch, base: base) {
        case .opened(let proposal):
            var full = proposal
            if full.head.count < 40, !full.head.isEmpty { full.head = try await client.fullHash(full.head) }
            return .opened(full)
        case .alreadyOpen(let failure):
            return .alreadyOpen(failure: failure)
        }
    }
    func closeProposal(number: Int) async throws { try await client.declinePullRequest(number: number) }
}

extension BitbucketForge {
    /// Bitbucket Cloud's pull requests for `repository` (`workspace/repo_slug`), through `server`
    /// when it is an API base (`…/2.0`, as a record names it), else `BITBUCKET_API_URL`, else
    /// Bitbucket Cloud's API (a tap's host, `https://bitbucket.org`, is not an API).
    /// The credentials: the tap's token (`SHIPLANE_TAP_TOKEN`, `HOMEBREW_TAP_TOKEN`) as a Bearer
    /// token, else Bitbucket's own (`BITBUCKET_ACCESS_TOKEN`, or a user with an API token or app password).
    static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)? {
        let located: BitbucketRepository
        do {
            let api = server.flatMap { $0.hasSuffix("/2.0") || $0.hasSuffix("/2.0/") ? $0 : nil }
            located = try BitbucketRepository.locate(repository: repository, server: api, environment: variables, originURL: nil)
        } catch {
            throw ShiplaneError("\(repository) is not a Bitbucket repository (workspace/repo_slug)",
                                suggestion: "pass forge: .bitbucket(repository: \"workspace/repo_slug\"); nothing was sent")
        }
        let tapOwn = tapToken(variables) { nil }
        guard let credentials = tapOwn.map({ BitbucketCredentials(authorization: "Bearer \($0)", secrets: [$0]) }) ?? BitbucketCredentials.from(variables) else {
            throw ShiplaneError("no token for pull requests on Bitbucket \(repository): set SHIPLANE_TAP_TOKEN (or BITBUCKET_ACCESS_TOKEN)",
                                suggestion: "set the token; nothing was sent")
        }
        return BitbucketProposals(client: BitbucketClient(repository: located, credentials: credentials, transport: transport, version: ShiplaneVersion.current))
    }
}
