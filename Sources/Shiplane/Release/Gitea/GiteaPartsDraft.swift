import Foundation

/// The draft release a fanned-out release's parts upload to on Gitea or Forgejo (issue 42),
/// made with `draft: true` as on GitHub and agreed through `refs/shiplane/drafts/LANE` on origin
/// (`PartsDraftHost.uploadPart`); the fan-in's `giteaRelease` gives it the release's tag and
/// publishes it.
extension GiteaForge {
    /// A part job's view of the server's releases.
    struct PartsHost: PartsDraftHost {
        let forge: GiteaForge
        let client: GiteaClient
        var kind: ForgeKind { .gitea }
        var api: String { forge.publisher.repository.apiURL }
        var repositoryName: String { forge.publisher.repository.description }

        func releases() async throws -> [GiteaRelease] { try await client.listReleases() }
        func facts(_ release: GiteaRelease) -> (id: Int, tag: String, body: String?, draft: Bool) { (release.id, release.tagName, release.body, release.draft) }

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

        /// The same bytes under a name are kept; other bytes replaced, the new one first. The
        /// attachments belong to the draft, so the part job's journal holds none of them.
        func upload(_ artifacts: [Artifact], to release: GiteaRelease) async throws -> ForgeAttachOutcome {
            let files = artifacts.map { ReleaseAssetFile(path: $0.path, name: $0.name) }
            return try await forge.publisher.attach(files, to: release, tag: release.tagName, client: client, recording: NoEffectRecording())
        }
    }

    /// Uploads `artifacts` of part `part` to the parts' draft release on the Gitea server.
    /// - Throws: `ReleasePreflightError` (token, access) before any change; the server's and origin's errors after.
    func uploadPart(_ artifacts: [Artifact], part: String, lane: String, base: String, argumentsDigest: String,
                    in step: StepContext) async throws -> PartUpload {
        let client: GiteaClient
        do {
            client = try self.client()
            try await client.checkAccess()
        } catch {
            throw ReleasePreflightError(underlyingErrors: [error], forge: "Gitea")
        }
        return try await PartsHost(forge: self, client: client)
            .uploadPart(artifacts, part: part, lane: lane, base: base, argumentsDigest: argumentsDigest, in: step)
    }
}
