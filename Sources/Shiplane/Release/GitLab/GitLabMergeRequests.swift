import Foundation

/// A merge request as GitLab's merge requests API describes it (`API_Entities_MergeRequest`; the members Shiplane reads).
struct GitLabMergeRequest: Decodable, Sendable {
    var iid: Int
    /// `opened`, `closed`, `locked` or `merged`.
    var state: String
    /// The commit at the tip of the source branch.
    var sha: String?
    var webURL: String?
    var sourceBranch: String?
    var targetBranch: String?

    enum CodingKeys: String, CodingKey {
        case iid, state, sha
        case webURL = "web_url"
        case sourceBranch = "source_branch"
        case targetBranch = "target_branch"
    }

    var proposal: ForgeProposal {
        ForgeProposal(number: iid, isOpen: state == "opened", isMerged: state == "merged", head: sha ?? "", webURL: webURL)
    }
}

/// GitLab's merge requests API (`/projects/:id/merge_requests`): what a formula's merge request to
/// a protected Homebrew tap needs — find the open one for a source branch, open one, read one,
/// close one (`PUT … state_event=close`).
extension GitLabClient {
    private var mergeRequestsPath: String { "\(project.apiURL)/projects/\(project.encodedID)/merge_requests" }

    /// The open merge requests from `branch` into `base`.
    func openMergeRequests(branch: String, base: String) async throws -> [GitLabMergeRequest] {
        let operation = "list the merge requests from \(branch)"
        let url = mergeRequestsPath + "?state=opened&source_branch=\(URLComponents.queryValue(branch))&target_branch=\(URLComponents.queryValue(base))&per_page=100"
        let response = try await transport.send(HTTPRequest(method: .get, url: url, headers: headers))
        guard response.isSuccess else { throw failure(response, operation: operation, projectLevel: true) }
        return try decode([GitLabMergeRequest].self, response, operation: operation).filter { $0.sourceBranch == nil || $0.sourceBranch == branch }
    }

    /// One merge request; nil when there is none.
    func mergeRequest(iid: Int) async throws -> GitLabMergeRequest? {
        let response = try await transport.send(HTTPRequest(method: .get, url: mergeRequestsPath + "/\(iid)", headers: headers))
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "read merge request !\(iid)") }
        return try decode(GitLabMergeRequest.self, response, operation: "read merge request !\(iid)")
    }

    /// Sends the request that opens a merge request from `branch` into `base` (`POST
    /// …/merge_requests`); a 409 ("Another open merge request already exists") or 422 is GitLab's
    /// refusal of a second open one (the forge contract then finds that one).
    /// - Throws: `HTTPTransportError.responseLost` when no answer came back; GitLab's error for any other refusal.
    func requestMergeRequest(title: String, description: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        struct Payload: Encodable {
            var title: String
            var source_branch: String
            var target_branch: String
            var description: String
        }
        let operation = "open a merge request from \(branch) into \(base)"
        let request = try HTTPRequest.json(.post, url: mergeRequestsPath, headers: headers,
                                           value: Payload(title: title, source_branch: branch, target_branch: base, description: description))
        let response = try await transport.send(request)
        if response.isSuccess { return .opened(try decode(GitLabMergeRequest.self, response, operation: operation).proposal) }
        if response.status == 409 || response.status == 422 { return .alreadyOpen(failure: failure(response, operation: operation)) }
        throw failure(response, operation: operation)
    }

    /// Closes merge request `iid` (`PUT … {"state_event": "close"}`).
    func closeMergeRequest(iid: Int) async throws {
        struct Payload: Encodable { var state_event: String }
        let request = try HTTPRequest.json(.put, url: mergeRequestsPath + "/\(iid)", headers: headers, value: Payload(state_event: "close"))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "close merge request !\(iid)") }
    }
}

/// GitLab's merge requests behind the proposal operation.
struct GitLabProposals: ForgeProposals {
    let client: GitLabClient
    var api: String { client.project.apiURL }
    var repository: String { client.project.id }
    var noun: String { "merge request" }
    func reference(_ number: Int) -> String { "!\(number)" }

    func checkAccess() async throws { try await client.checkAccess() }
    func openProposals(branch: String, base: String) async throws -> [ForgeProposal] {
        try await client.openMergeRequests(branch: branch, base: base).map(\.proposal)
    }
    func proposal(number: Int) async throws -> ForgeProposal? { try await client.mergeRequest(iid: number)?.proposal }
    func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
        try await client.requestMergeRequest(title: title, description: body, branch: branch, base: base)
    }
    func closeProposal(number: Int) async throws { try await client.closeMergeRequest(iid: number) }
}

extension GitLabForge {
    /// GitLab's merge requests for project `repository` on `server` (its URL, or its API base).
    /// The token: the tap's (sent as PRIVATE-TOKEN), else `GITLAB_TOKEN`, else `CI_JOB_TOKEN`.
    static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)? {
        guard let server, !server.isEmpty else {
            throw ShiplaneError("no GitLab server for the merge request in \(repository)", suggestion: "pass forge: .gitlab(server: \"https://gitlab.example.com\")")
        }
        let token = tapToken(variables, fallback: { nil }).map { GitLabToken(value: $0, header: "PRIVATE-TOKEN") } ?? GitLabToken.from(variables)
        guard let token else {
            throw ShiplaneError("no token for merge requests in GitLab project \(repository): set SHIPLANE_TAP_TOKEN (or GITLAB_TOKEN)",
                                suggestion: "set the token; nothing was sent")
        }
        let project = GitLabProject(apiURL: GitLabProject.apiBase(fromServer: server), id: repository)
        return GitLabProposals(client: GitLabClient(project: project, token: token, transport: transport, version: ShiplaneVersion.current))
    }
}
