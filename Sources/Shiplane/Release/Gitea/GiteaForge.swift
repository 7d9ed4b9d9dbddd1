import Foundation

extension ForgeKind {
    /// A Gitea or Forgejo server (codeberg.org is Forgejo).
    package static let gitea = ForgeKind("gitea")
}

extension ForgeTarget {
    /// Gitea or Forgejo; `server` is its URL (nil: `forge.url` of `.shiplane.yml`, else the CI's
    /// `GITEA_SERVER_URL`/`FORGEJO_SERVER_URL`, else the origin's host), `repository` is
    /// `owner/name` (nil: the CI's, else the origin's path).
    public static func gitea(server: String? = nil, repository: String? = nil) -> ForgeTarget {
        ForgeTarget(kind: .gitea, server: server, repository: repository)
    }
}

/// Gitea and Forgejo behind the `Forge` contract: drafts, attachments compared by downloading
/// them (Gitea gives no digest), GitHub's link shapes. `giteaRelease` runs through `ForgeReleaseRun`.
struct GiteaForge: Forge {
    static let kind = ForgeKind.gitea
    static let displayName = "Gitea"
    static let publicHosts = ["codeberg.org": "codeberg.org", "gitea.com": "gitea.com"]
    static var action: any DocumentedAction.Type { PublishGiteaRelease.self }
    static var effects: [any Effect.Type] { [GiteaReleaseCreated.self, GiteaAttachmentUploaded.self] }

    /// `GITEA_ACTIONS`, else any `FORGEJO_*` variable (both set `GITHUB_ACTIONS` too).
    static func recognise(ci environment: [String: String]) -> ForgeCISignal? {
        if environment["GITEA_ACTIONS"] == "true" { return ForgeCISignal(variable: "GITEA_ACTIONS") }
        let set = { (name: String) in !(environment[name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        return environment.keys.sorted().first { $0.hasPrefix("FORGEJO_") && set($0) }.map { ForgeCISignal(variable: $0) }
    }

    static func isRepositoryPath(_ components: Int) -> Bool { components == 2 }
    static func url(of link: ForgeLink, repositoryURL: String) -> String { githubStyleURL(of: link, repositoryURL: repositoryURL) }

    static func releaseStep(_ request: ForgeReleaseRequest, target: ForgeTarget) -> any ForgeReleaseStep {
        PublishGiteaRelease(tag: request.tag, name: request.name, notes: request.notes, assets: request.assets, prerelease: request.prerelease,
                            draft: !request.publish, repository: target.repository, server: target.server)
    }

    /// A release on the server, and whether this run created it.
    struct Draft: Sendable {
        var release: GiteaRelease
        var created: Bool
        /// The draft a fanned-out release's parts uploaded to, which this run takes over.
        var partsDraft = false
    }

    let publisher: GiteaReleasePublisher
    /// The fan-in job of a fanned-out release: the draft release its parts uploaded to (issue 42),
    /// taken over when no release has the tag yet.
    var partsDraftID: Int?

    static func connect(_ target: ForgeTarget, origin: String?, in step: StepContext) throws -> GiteaForge {
        let variables = step.lane.environment.variables
        let declared = try ProjectSettings.load(root: step.lane.workingDirectory).forge.server(for: kind)
        let located = try GiteaRepository.locate(repository: target.repository, server: target.server, declared: declared,
                                                 environment: variables, originURL: origin)
        return GiteaForge(publisher: GiteaReleasePublisher(repository: located, token: GiteaClient.token(from: variables),
                                                           transport: step.httpTransport(), version: ShiplaneVersion.current))
    }

    var place: String { "on Gitea \(publisher.repository)" }

    private func request(_ request: ForgeReleaseRequest) -> GiteaReleaseRequest {
        GiteaReleaseRequest(tag: request.tag, name: request.title, notes: request.notes, prerelease: request.prerelease, publish: request.publish)
    }

    func client() throws -> GiteaClient {
        guard let token = publisher.token else { throw GiteaError.missingToken }
        return GiteaClient(repository: publisher.repository, token: token, transport: publisher.transport, version: publisher.version)
    }

    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws {
        try await publisher.preflight(self.request(request), dryRun: dryRun, note: note)
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

    func attach(_ artifacts: [Artifact], to draft: Draft, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (Draft, ForgeAttachOutcome) {
        let files = artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name) }
        return (draft, try await publisher.attach(files, to: draft.release, tag: request.tag, client: client(), recording: recording))
    }

    func publish(_ draft: Draft, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> Draft {
        var draft = draft
        draft.release = try await publisher.publishDraft(draft.release, tag: request.tag, client: client(), recording: recording)
        return draft
    }

    func webURL(of draft: Draft) -> String? { draft.release.htmlURL }
}
