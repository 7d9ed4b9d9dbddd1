import Foundation

extension ForgeKind {
    /// gitlab.com or a self-managed GitLab.
    package static let gitlab = ForgeKind("gitlab")
}

extension ForgeTarget {
    /// GitLab; `server` is its URL (nil: `CI_SERVER_URL`, else the origin's host), `project` its
    /// path or id (nil: `CI_PROJECT_ID`, else the origin's path).
    public static func gitlab(server: String? = nil, project: String? = nil) -> ForgeTarget {
        ForgeTarget(kind: .gitlab, server: server, repository: project)
    }
}

/// GitLab behind the `Forge` contract. GitLab has no drafts: `createDraft` makes nothing, the
/// files go to the generic package registry in `attach`, and `publish` creates the release with
/// its links in one call (or finishes the one an earlier run made).
struct GitLabForge: Forge {
    static let kind = ForgeKind.gitlab
    static let displayName = "GitLab"
    static let publicHosts = ["gitlab.com": "gitlab.com", "www.gitlab.com": "gitlab.com", "altssh.gitlab.com": "gitlab.com"]
    static var action: any DocumentedAction.Type { PublishGitLabRelease.self }
    static var effects: [any Effect.Type] {
        [GitLabPackageFileUploaded.self, GitLabReleaseCreated.self, GitLabReleaseUpdated.self, GitLabReleaseLinkCreated.self]
    }

    static func recognise(ci environment: [String: String]) -> ForgeCISignal? {
        environment["GITLAB_CI"] == "true" ? ForgeCISignal(variable: "GITLAB_CI") : nil
    }

    static func isRepositoryPath(_ components: Int) -> Bool { components >= 2 }

    static func url(of link: ForgeLink, repositoryURL: String) -> String {
        switch link {
        case .commit(let id): "\(repositoryURL)/-/commit/\(RemoteLinks.percentEncoded(id))"
        case let .compare(base, head): "\(repositoryURL)/-/compare/\(RemoteLinks.percentEncoded(base))...\(RemoteLinks.percentEncoded(head))"
        case .issue(let number): "\(repositoryURL)/-/issues/\(number)"
        case .tag(let tag): "\(repositoryURL)/-/tags/\(RemoteLinks.percentEncoded(tag))"
        }
    }

    struct PendingRelease: Sendable {
        var existing: GitLabRelease?
        var links: [GitLabClient.LinkRequest] = []
        var result: GitLabPublishResult
    }

    static func releaseStep(_ request: ForgeReleaseRequest, target: ForgeTarget) -> any ForgeReleaseStep {
        var step = PublishGitLabRelease(tag: request.tag, name: request.name, notes: request.notes, assets: request.assets,
                                        project: target.repository, server: target.server)
        step.prerelease = request.prerelease
        return step
    }

    let publisher: GitLabReleasePublisher
    var packageName: String
    /// Titles of milestones the release is associated with.
    var milestones: [String] = []
    /// The `link_type` of each asset link.
    var linkType = "package"

    static func connect(_ target: ForgeTarget, origin: String?, in step: StepContext) throws -> GitLabForge {
        let variables = step.lane.environment.variables
        let server = try target.server ?? ProjectSettings.load(root: step.lane.workingDirectory).forge.server(for: kind)
        let located = try GitLabProject.locate(project: target.repository, server: server, environment: variables, originURL: origin)
        return GitLabForge(
            publisher: GitLabReleasePublisher(project: located, token: GitLabToken.from(variables), transport: step.httpTransport(),
                                              version: ShiplaneVersion.current),
            packageName: PublishGitLabRelease.defaultPackageName(located, environment: variables, originURL: origin))
    }

    var place: String { "in GitLab project \(publisher.project)" }

    private func request(_ request: ForgeReleaseRequest, _ artifacts: [Artifact] = []) -> GitLabReleaseRequest {
        GitLabReleaseRequest(tag: request.tag, name: request.title, notes: request.notes,
                             assets: artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name) }, milestones: milestones,
                             packageName: packageName, packageVersion: request.tag, linkType: linkType)
    }

    private func client() throws -> GitLabClient {
        guard let token = publisher.token else { throw GitLabError.missingToken }
        return GitLabClient(project: publisher.project, token: token, transport: publisher.transport, version: publisher.version)
    }

    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws {
        // The files are the run's to check (ForgeReleaseRun): their names GitLab takes, the package, the rest here.
        try await publisher.preflight(self.request(request, artifacts), dryRun: dryRun, note: note)
    }

    func findRelease(tag: String) async throws -> PendingRelease? {
        guard let found = try await client().release(forTag: tag) else { return nil }
        return PendingRelease(existing: found, result: GitLabPublishResult(webURL: found.links?.selfURL, createdRelease: false))
    }

    func createDraft(_ request: ForgeReleaseRequest, existing: PendingRelease?, recording: any ReleaseEffectRecording) async throws -> PendingRelease {
        existing ?? PendingRelease(result: GitLabPublishResult(webURL: nil, createdRelease: false))
    }

    func attach(_ artifacts: [Artifact], to release: PendingRelease, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (PendingRelease, ForgeAttachOutcome) {
        var release = release
        release.links = try await publisher.uploadFiles(self.request(request, artifacts), existing: release.existing, client: client(),
                                                        recording: recording, result: &release.result)
        return (release, ForgeAttachOutcome(uploaded: release.result.uploaded, unchanged: release.result.skipped))
    }

    func publish(_ release: PendingRelease, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> PendingRelease {
        var release = release
        try await publisher.createOrFinish(self.request(request), existing: release.existing, links: release.links, client: client(),
                                           recording: recording, result: &release.result)
        return release
    }

    func webURL(of release: PendingRelease) -> String? { release.result.webURL }
}
