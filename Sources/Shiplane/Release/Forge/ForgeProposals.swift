import Foundation

/// A proposal to merge one branch into another, as a forge shows it: GitHub's and Gitea's pull
/// requests, GitLab's merge requests (the members a tap publisher reads).
package struct ForgeProposal: Sendable, Equatable {
    /// Its number in the repository (GitLab's `iid`).
    package var number: Int
    /// True while it is open.
    package var isOpen: Bool
    /// True once it was merged.
    package var isMerged: Bool
    /// The commit at the tip of its branch, as the forge last saw it.
    package var head: String
    /// Its web page, when the forge gives one.
    package var webURL: String?

    package init(number: Int, isOpen: Bool, isMerged: Bool, head: String, webURL: String?) {
        self.number = number
        self.isOpen = isOpen
        self.isMerged = isMerged
        self.head = head
        self.webURL = webURL
    }
}

/// The forge contract's pull-request operation: open a proposal from a branch of a repository into
/// another branch, find the open one for a branch (so a re-run, or a run after a kill, opens no
/// second one), read one, and close one. GitHub (`/pulls`), GitLab (`/merge_requests`) and Gitea
/// (`/pulls`) implement it (`Forge.proposals`); a forge without it (Bitbucket) answers nil.
package protocol ForgeProposals: Sendable {
    /// The API base the requests go to (recorded, so a rollback reaches the same server).
    var api: String { get }
    /// The repository (`owner/name`, a GitLab project path).
    var repository: String { get }
    /// What the forge calls a proposal: "pull request", "merge request".
    var noun: String { get }
    /// How the forge writes a proposal's number: `#3`, `!3`.
    func reference(_ number: Int) -> String
    /// Checks the token reaches the repository.
    func checkAccess() async throws
    /// The open proposals from `branch` (of this repository) into `base`.
    func openProposals(branch: String, base: String) async throws -> [ForgeProposal]
    /// One proposal; nil when there is none with that number.
    func proposal(number: Int) async throws -> ForgeProposal?
    /// Opens a proposal from `branch` into `base`; when one is open already (the forge refuses a
    /// second, or the answer was lost after the request landed), returns that one.
    /// - Returns: the proposal and whether this call opened it.
    func openProposal(title: String, body: String, branch: String, base: String) async throws -> (ForgeProposal, opened: Bool)
    /// Closes proposal `number`; it stays in the forge's history.
    func closeProposal(number: Int) async throws
}

extension ForgeProposals {
    package func reference(_ number: Int) -> String { "#\(number)" }
}

extension Forge {
    /// No pull-request operation on this forge.
    package static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)? {
        nil
    }
}

/// The token for a tap's proposals: the tap's own (`SHIPLANE_TAP_TOKEN`, `HOMEBREW_TAP_TOKEN`), else `fallback`.
func tapToken(_ variables: [String: String], fallback: () -> String?) -> String? {
    for key in TapClone.tokenVariables {
        if let value = variables[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return value }
    }
    return fallback()
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

    func openProposal(title: String, body: String, branch: String, base: String) async throws -> (ForgeProposal, opened: Bool) {
        let (pull, opened) = try await client.openPullRequest(title: title, body: body, branch: branch, base: base)
        return (Self.proposal(pull), opened)
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
