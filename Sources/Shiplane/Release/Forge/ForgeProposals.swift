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

/// What a forge answered to the one request that opens a proposal.
package enum ProposalOpenAnswer: Sendable {
    /// Opened: the new proposal as the forge gives it.
    case opened(ForgeProposal)
    /// Refused because a proposal from the branch into the base is open already (GitHub's 422,
    /// GitLab's and Gitea's 409); `failure` is the forge's error, thrown should none be found open.
    case alreadyOpen(failure: any Error)
}

/// The forge contract's pull-request operation: open a proposal from a branch of a repository into
/// another branch, find the open one for a branch (so a re-run, or a run after a kill, opens no
/// second one), read one, and close one. GitHub (`/pulls`), GitLab (`/merge_requests`), Gitea
/// (`/pulls`) and Bitbucket Cloud (`/pullrequests`, closed by a decline) implement it
/// (`Forge.proposals`) with their requests only; a forge without it answers nil.
///
/// What every forge does the same way is written once here: `openProposal` answers a refusal for
/// an open one, or an answer lost after the request landed, by finding the open one;
/// `closeAsLeft` closes a proposal only while it is open with the run's commit at its head.
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
    /// Sends the one request that opens a proposal from `branch` into `base`.
    /// - Throws: `HTTPTransportError.responseLost` when the request went and no answer came back;
    ///   the forge's error for any other refusal.
    func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer
    /// Closes proposal `number`; it stays in the forge's history.
    func closeProposal(number: Int) async throws
}

extension ForgeProposals {
    package func reference(_ number: Int) -> String { "#\(number)" }

    /// Opens a proposal from `branch` into `base`; when one is open already (the forge refuses a
    /// second, or the answer was lost after the request landed), returns that one.
    /// - Returns: the proposal and whether this call opened it (a lost answer whose request
    ///   landed counts as opened: the proposal found is the one it made).
    /// - Throws: the forge's error when it refuses for another reason, or refuses a second one
    ///   and none is found open.
    package func openProposal(title: String, body: String, branch: String, base: String) async throws -> (ForgeProposal, opened: Bool) {
        let answer: ProposalOpenAnswer
        do {
            answer = try await requestProposal(title: title, body: body, branch: branch, base: base)
        } catch HTTPTransportError.responseLost {
            if let landed = try await openProposals(branch: branch, base: base).first { return (landed, true) }
            answer = try await requestProposal(title: title, body: body, branch: branch, base: base)
        }
        switch answer {
        case .opened(let proposal):
            return (proposal, true)
        case .alreadyOpen(let failure):
            guard let existing = try await openProposals(branch: branch, base: base).first else { throw failure }
            return (existing, false)
        }
    }

    /// Closes the proposal from `branch` into `base` that a run left open with `commit` at its
    /// head — proposal `number`, else the open one from `branch` with that head (a kill before
    /// the forge answered) — only while it is still so (compare and swap): nothing when there is
    /// none or it is closed already.
    /// - Throws: when it was merged (its commits are in `base`), or has commits after `commit`:
    ///   then it stays open.
    package func closeAsLeft(number: Int?, branch: String, base: String, commit: String) async throws {
        let found: ForgeProposal?
        if let number {
            found = try await proposal(number: number)
        } else {
            found = try await openProposals(branch: branch, base: base).first { $0.head == commit }
        }
        guard let found else { return }
        if found.isMerged {
            throw ShiplaneError("\(noun) \(reference(found.number)) in \(repository) was merged: its commits are in \(base) and stay",
                                suggestion: "revert them in \(base) if the release they name is not published")
        }
        guard found.isOpen else { return }
        guard found.head == commit else {
            throw ShiplaneError("\(noun) \(reference(found.number)) in \(repository) has commits after Shiplane's \(String(commit.prefix(7))): it is kept open",
                                suggestion: "close it by hand if the release it names is not published")
        }
        try await closeProposal(number: found.number)
    }
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
