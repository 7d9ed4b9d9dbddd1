import Foundation

/// The draft release a fanned-out release's parts upload to on Gitea or Forgejo (issue 42),
/// made with `draft: true` as on GitHub and agreed through `refs/shiplane/drafts/LANE` on origin
/// (`PartsDraftHost.uploadPart`); the fan-in's `giteaRelease` gives it the release's tag and
/// publishes it.
extension GiteaForge: PartsDraftForge {
    /// A part job's view of the server's releases.
    struct PartsHost: PartsDraftHost {
        let forge: GiteaForge
        let client: GiteaClient
        var kind: ForgeKind { .gitea }
        var api: String { forge.publisher.repository.apiURL }
        var repositoryName: String { forge.publisher.repository.description }
        var place: String { forge.place }

        func releases() async throws -> [GiteaRelease] { try await client.listReleases() }
        func release(id: Int) async throws -> GiteaRelease? { try await client.release(id: id) }

        /// Attachments told apart by their id and size (Gitea gives no digest; a replaced file is a new id).
        func facts(_ release: GiteaRelease) -> PartsDraftRelease {
            PartsDraftRelease(id: release.id, tag: release.tagName, name: release.name, body: release.body, draft: release.draft,
                              assets: (release.assets ?? []).map { .init(name: $0.name, id: $0.id, size: $0.size, digest: nil) })
        }

        /// A draft's tag need not exist: Gitea makes it when the draft is published (the fan-in
        /// renames the draft to the release's tag, which it pushed, first).
        func createDraft(tag: String, name: String, body: String, in step: StepContext) async throws -> (GiteaRelease, EffectHandle?) {
            let recorded = try step.record(GiteaReleaseCreated(api: api, repository: repositoryName, id: nil, tag: tag),
                                           "delete the draft release \(tag) this part job made")
            let (made, _) = try await client.createRelease(tag: tag, name: name, body: body, draft: true, prerelease: false)
            step.done(recorded, GiteaReleaseCreated(api: api, repository: repositoryName, id: made.id, tag: tag))
            return (made, recorded)
        }

        func deleteRelease(id: Int) async throws { try await client.deleteRelease(id: id) }

        /// The attachment's `browser_download_url`, as `GET /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}` gives it.
        func downloadAsset(id: Int, releaseID: Int, to path: String) async throws -> Bool {
            try await client.downloadAttachment(releaseID: releaseID, id: id, to: path)
        }

        /// The same bytes under a name are kept; other bytes replaced, the new one first. The
        /// attachments belong to the draft, so the part job's journal holds none of them.
        func upload(_ artifacts: [Artifact], to release: GiteaRelease) async throws -> ForgeAttachOutcome {
            let files = artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name) }
            return try await forge.publisher.attach(files, to: release, tag: release.tagName, client: client, recording: NoEffectRecording())
        }
    }

    /// The token and the repository's access checked (`ReleasePreflightError`), the server's releases.
    func partsDrafts() async throws -> any PartsDraftHost {
        let client: GiteaClient
        do {
            client = try self.client()
            try await client.checkAccess()
        } catch {
            throw ReleasePreflightError(underlyingErrors: [error], forge: "Gitea")
        }
        return PartsHost(forge: self, client: client)
    }

    /// `GITEA_TOKEN` (or `FORGEJO_TOKEN`), on the server whose API is `api`.
    static func partsDrafts(api: String, repository: String, environment: LaneEnvironment) throws -> (any PartsDraftHost)? {
        guard let token = GiteaClient.token(from: environment.variables) else { return nil }
        let path = repository.split(separator: "/").map(String.init)
        guard path.count == 2 else { throw GiteaError.repositoryUnknown(reason: "\(repository) is not owner/name") }
        let forge = GiteaForge(publisher: GiteaReleasePublisher(
            repository: GiteaRepository(apiURL: api, owner: path[0], name: path[1]), token: token,
            transport: PartsRollback.transport(environment: environment, token: token), version: ShiplaneVersion.current))
        return PartsHost(forge: forge, client: try forge.client())
    }

    /// Origin's repository on the server a part job's `.gitea()` finds (`GiteaRepository.locate`:
    /// `forge.url` of `.shiplane.yml`, the CI's variables, or origin's host).
    static func partsDrafts(origin: String, settings: ForgeSettings, environment: LaneEnvironment) throws -> (any PartsDraftHost)? {
        guard GiteaClient.token(from: environment.variables) != nil else { return nil }
        let located = try GiteaRepository.locate(repository: nil, server: nil, declared: settings.server(for: kind),
                                                 environment: environment.variables, originURL: origin)
        return try partsDrafts(api: located.apiURL, repository: located.description, environment: environment)
    }

    static var partsDraftsToken: String { "GITEA_TOKEN (or FORGEJO_TOKEN)" }

    static func hasPartsDraftsToken(_ environment: LaneEnvironment) -> Bool { GiteaClient.token(from: environment.variables) != nil }
}
