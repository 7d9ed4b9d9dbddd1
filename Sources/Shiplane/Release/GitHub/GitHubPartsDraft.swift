import Foundation

/// The draft release a fanned-out release's parts upload to on GitHub (issue 42): one per
/// release, agreed through `refs/shiplane/drafts/LANE` on origin (`PartsDraftHost.uploadPart`).
extension GitHubForge: PartsDraftForge {
    /// A part job's view of GitHub's releases.
    struct PartsHost: PartsDraftHost {
        let forge: GitHubForge
        let client: GitHubClient
        var kind: ForgeKind { .github }
        var api: String { forge.publisher.apiURL }
        var repositoryName: String { forge.publisher.repository.description }
        var place: String { forge.place }

        func releases() async throws -> [GitHubRelease] { try await client.listReleases() }
        func release(id: Int) async throws -> GitHubRelease? { try await client.release(id: id) }

        func facts(_ release: GitHubRelease) -> PartsDraftRelease { Self.facts(of: release) }

        /// Assets told apart by GitHub's id, size and digest.
        static func facts(of release: GitHubRelease) -> PartsDraftRelease {
            PartsDraftRelease(id: release.id, tag: release.tagName, name: release.name, body: release.body, draft: release.draft,
                              assets: (release.assets ?? []).map { .init(name: $0.name, id: $0.id, size: $0.size, digest: $0.digest) })
        }

        func createDraft(tag: String, name: String, body: String, in step: StepContext) async throws -> (GitHubRelease, EffectHandle?) {
            let recorded = try step.record(GitHubReleaseCreated(api: api, repository: repositoryName, id: nil, tag: tag),
                                           "delete the draft release \(tag) this part job made")
            let (made, _) = try await client.createRelease(tag: tag, name: name, body: body, draft: true, prerelease: false)
            step.done(recorded, GitHubReleaseCreated(api: api, repository: repositoryName, id: made.id, tag: tag))
            return (made, recorded)
        }

        func deleteRelease(id: Int) async throws { try await client.deleteRelease(id: id) }

        /// `GET /repos/{owner}/{repo}/releases/assets/{asset_id}` with `Accept: application/octet-stream`.
        func downloadAsset(id: Int, releaseID: Int, to path: String) async throws -> Bool {
            try await client.downloadAsset(id: id, to: path)
        }

        /// Assets already on the draft with the same name, size and digest are left; a different
        /// one is replaced, never deleted first.
        func upload(_ artifacts: [Artifact], to release: GitHubRelease) async throws -> ForgeAttachOutcome {
            let results = try await forge.publisher.uploadAssets(forge.request(ForgeReleaseRequest(tag: release.tagName), artifacts), release: release, client: client)
            var outcome = ForgeAttachOutcome()
            for (name, result) in results {
                switch result {
                case .uploaded: outcome.uploaded.append(name)
                case .skipped: outcome.unchanged.append(name)
                case .replaced: outcome.replaced.append(name)
                }
            }
            return outcome
        }
    }

    /// The token and the repository's access checked (`ReleasePreflightError`), GitHub's releases.
    func partsDrafts() async throws -> any PartsDraftHost {
        // The tag is not read: the preflight checks the token and the repository's access.
        PartsHost(forge: self, client: try await publisher.preflight(request(ForgeReleaseRequest(tag: "parts"))))
    }

    /// `GITHUB_TOKEN` (or `GH_TOKEN`), with `api` as `GITHUB_API_URL`.
    static func partsDrafts(api: String, repository: String, environment: LaneEnvironment) throws -> (any PartsDraftHost)? {
        let variables = environment.variables.merging(["GITHUB_API_URL": api]) { $1 }
        guard let token = GitHubReleasePublisher.token(from: variables) else { return nil }
        let forge = GitHubForge(publisher: GitHubReleasePublisher(
            repository: try GitHubRepository(remoteURL: repository), token: token, environment: variables,
            transport: PartsRollback.transport(environment: environment, token: token), version: ShiplaneVersion.current))
        return PartsHost(forge: forge, client: try forge.client())
    }

    /// Origin's repository on the API `GITHUB_API_URL` names (github.com's by default), as a
    /// part job's `.github()` finds it.
    static func partsDrafts(origin: String, settings: ForgeSettings, environment: LaneEnvironment) throws -> (any PartsDraftHost)? {
        let api = environment.variables["GITHUB_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? GitHubClient.defaultAPIURL
        return try partsDrafts(api: api, repository: GitHubRepository(remoteURL: origin).description, environment: environment)
    }

    static var partsDraftsToken: String { "GITHUB_TOKEN (or GH_TOKEN)" }

    static func hasPartsDraftsToken(_ environment: LaneEnvironment) -> Bool { GitHubReleasePublisher.token(from: environment.variables) != nil }
}
