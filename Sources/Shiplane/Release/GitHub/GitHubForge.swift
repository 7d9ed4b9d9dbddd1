import Foundation

extension ForgeKind {
    /// GitHub or GitHub Enterprise Server.
    package static let github = ForgeKind("github")
}

extension ForgeTarget {
    /// GitHub; `repository` is `owner/name` or a remote URL (nil: the origin remote).
    public static func github(repository: String? = nil) -> ForgeTarget { ForgeTarget(kind: .github, repository: repository) }
}

/// GitHub behind the `Forge` contract: github.com and GitHub Enterprise (`GITHUB_API_URL`), the
/// releases API with drafts, assets compared by GitHub's `digest`.
struct GitHubForge: Forge {
    static let kind = ForgeKind.github
    static let displayName = "GitHub"
    static let publicHosts = ["github.com": "github.com", "www.github.com": "github.com", "ssh.github.com": "github.com"]
    static var action: any DocumentedAction.Type { PublishGitHubRelease.self }
    static var effects: [any Effect.Type] { [GitHubReleaseCreated.self] }

    /// `GITHUB_ACTIONS`, which Gitea and Forgejo Actions set too: their own variable wins.
    static func recognise(ci environment: [String: String]) -> ForgeCISignal? {
        environment["GITHUB_ACTIONS"] == "true" ? ForgeCISignal(variable: "GITHUB_ACTIONS", specific: false) : nil
    }

    static func isRepositoryPath(_ components: Int) -> Bool { components == 2 }
    static func url(of link: ForgeLink, repositoryURL: String) -> String { githubStyleURL(of: link, repositoryURL: repositoryURL) }

    static func releaseStep(_ request: ForgeReleaseRequest, target: ForgeTarget) -> any ForgeReleaseStep {
        var step = PublishGitHubRelease(tag: request.tag, name: request.name, notes: request.notes, assets: request.assets,
                                        prerelease: request.prerelease, repository: target.repository)
        step.requiresEnterpriseAPI = target.repository == nil
        return step
    }

    /// A release on GitHub, and whether this run created it (a failure after that says so, for rollback).
    struct Draft: Sendable {
        var release: GitHubRelease
        var created: Bool
        /// The draft a fanned-out release's parts uploaded to, which this run takes over.
        var partsDraft = false
    }

    /// Whether the release becomes GitHub's latest: not for a prerelease (as `githubRelease` and
    /// `release` ask), or as the publisher's request says.
    enum Latest: Sendable {
        case unlessPrerelease
        case fixed(GitHubMakeLatest?)
    }

    let publisher: GitHubReleasePublisher
    var uploadConcurrency = 4
    var latest = Latest.unlessPrerelease
    /// The branch or commit a new tag is created at; nil: GitHub's default.
    var targetCommitish: String?
    /// Media types by asset name; a name not here is guessed from the name.
    var contentTypes: [String: String] = [:]
    /// The fan-in job of a fanned-out release: the draft release its parts uploaded to (issue 42),
    /// taken over when no release has the tag yet.
    var partsDraftID: Int?

    static func connect(_ target: ForgeTarget, origin: String?, in step: StepContext) throws -> GitHubForge {
        guard let remote = target.repository ?? origin else {
            throw ShiplaneError("the repository has no origin remote to take the GitHub repository from",
                                suggestion: "pass repository: \"owner/name\", or add the remote")
        }
        let variables = step.lane.environment.variables
        return GitHubForge(publisher: GitHubReleasePublisher(
            repository: try GitHubRepository(remoteURL: remote), token: GitHubReleasePublisher.token(from: variables), environment: variables,
            transport: step.httpTransport(), version: ShiplaneVersion.current))
    }

    var place: String { "on \(publisher.repository.description)" }

    func request(_ request: ForgeReleaseRequest, _ artifacts: [Artifact] = []) -> GitHubReleaseRequest {
        let makeLatest: GitHubMakeLatest? = switch latest {
        case .unlessPrerelease: request.prerelease ? .no : .yes
        case .fixed(let chosen): chosen
        }
        return GitHubReleaseRequest(
            tag: request.tag, name: request.title, notes: request.notes, prerelease: request.prerelease, makeLatest: makeLatest,
            targetCommitish: targetCommitish, assets: artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name, contentType: contentTypes[$0.name]) },
            publish: request.publish, uploadConcurrency: max(1, uploadConcurrency))
    }

    func client() throws -> GitHubClient {
        try GitHubClient(repository: publisher.repository, token: publisher.token ?? "", environment: publisher.environment,
                         transport: publisher.transport, version: publisher.version)
    }

    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws {
        // The files are the run's to check (ForgeReleaseRun): only the token and the repository here.
        try await publisher.preflight(self.request(request))
    }

    func findRelease(tag: String) async throws -> Draft? {
        let client = try client()
        if let found = try await client.release(forTag: tag) { return Draft(release: found, created: false) }
        guard let id = partsDraftID, let parts = try await client.release(id: id), parts.draft else { return nil }
        return Draft(release: parts, created: false, partsDraft: true)
    }

    func createDraft(_ request: ForgeReleaseRequest, existing: Draft?, recording: any ReleaseEffectRecording) async throws -> Draft {
        let (release, created) = try await publisher.findOrCreateDraft(self.request(request), existing: existing?.release, client: client(),
                                                                       recording: recording, adopt: existing?.partsDraft ?? false)
        return Draft(release: release, created: created)
    }

    /// A failure once the release exists names it, and whether this run created it.
    private func failing<T>(_ draft: Draft, _ tag: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            throw GitHubPublishError(tag: tag, releaseID: draft.release.id, createdRelease: draft.created, underlyingErrors: [error])
        }
    }

    func attach(_ artifacts: [Artifact], to draft: Draft, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (Draft, ForgeAttachOutcome) {
        var outcome = ForgeAttachOutcome()
        let results = try await failing(draft, request.tag) {
            try await publisher.uploadAssets(self.request(request, artifacts), release: draft.release, client: client())
        }
        for (name, result) in results {
            switch result {
            case .uploaded: outcome.uploaded.append(name)
            case .skipped: outcome.unchanged.append(name)
            case .replaced: outcome.replaced.append(name)
            }
        }
        return (draft, outcome)
    }

    func publish(_ draft: Draft, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> Draft {
        var draft = draft
        let before = draft.release
        draft.release = try await failing(draft, request.tag) {
            try await publisher.publishDraft(before, request: self.request(request), client: client(), recording: recording)
        }
        return draft
    }

    func webURL(of draft: Draft) -> String? { draft.release.htmlURL }
}
