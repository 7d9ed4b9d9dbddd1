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

    let publisher: GitHubReleasePublisher
    var uploadConcurrency = 4

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

    var place: String { publisher.repository.description }

    private func request(_ request: ForgeReleaseRequest, _ artifacts: [Artifact] = []) -> GitHubReleaseRequest {
        GitHubReleaseRequest(tag: request.tag, name: request.title, notes: request.notes, prerelease: request.prerelease,
                             makeLatest: request.prerelease ? .no : .yes, assets: artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name) },
                             publish: request.publish, uploadConcurrency: uploadConcurrency)
    }

    private func client() throws -> GitHubClient {
        try GitHubClient(repository: publisher.repository, token: publisher.token ?? "", environment: publisher.environment,
                         transport: publisher.transport, version: publisher.version)
    }

    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws {
        // The files are the run's to check (ForgeReleaseRun): only the token and the repository here.
        try await publisher.preflight(self.request(request))
    }

    func findRelease(tag: String) async throws -> GitHubRelease? { try await client().release(forTag: tag) }

    func createDraft(_ request: ForgeReleaseRequest, existing: GitHubRelease?, recording: any ReleaseEffectRecording) async throws -> GitHubRelease {
        try await publisher.findOrCreateDraft(self.request(request), existing: existing, client: client(), recording: recording).0
    }

    func attach(_ artifacts: [Artifact], to release: GitHubRelease, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (GitHubRelease, ForgeAttachOutcome) {
        var outcome = ForgeAttachOutcome()
        for (name, result) in try await publisher.uploadAssets(self.request(request, artifacts), release: release, client: client()) {
            switch result {
            case .uploaded: outcome.uploaded.append(name)
            case .skipped: outcome.unchanged.append(name)
            case .replaced: outcome.replaced.append(name)
            }
        }
        return (release, outcome)
    }

    func publish(_ release: GitHubRelease, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> GitHubRelease {
        try await publisher.publishDraft(release, request: self.request(request), client: client(), recording: recording)
    }

    func webURL(of release: GitHubRelease) -> String? { release.htmlURL }
}
