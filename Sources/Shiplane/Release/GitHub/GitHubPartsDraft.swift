import Foundation

/// The draft release a fanned-out release's parts upload to on GitHub (issue 42): one per
/// release, agreed through `refs/shiplane/drafts/LANE` on origin (`PartsDraftHost.uploadPart`).
extension GitHubForge {
    /// A part job's view of GitHub's releases.
    struct PartsHost: PartsDraftHost {
        let forge: GitHubForge
        let client: GitHubClient
        var kind: ForgeKind { .github }
        var api: String { forge.publisher.apiURL }
        var repositoryName: String { forge.publisher.repository.description }

        func releases() async throws -> [GitHubRelease] { try await client.listReleases() }
        func facts(_ release: GitHubRelease) -> (id: Int, tag: String, body: String?, draft: Bool) { (release.id, release.tagName, release.body, release.draft) }

        func createDraft(tag: String, name: String, body: String, in step: StepContext) async throws -> (GitHubRelease, EffectHandle?) {
            let recorded = try step.record(GitHubReleaseCreated(api: api, repository: repositoryName, id: nil, tag: tag),
                                           "delete the draft release \(tag) this part job made")
            let (made, _) = try await client.createRelease(tag: tag, name: name, body: body, draft: true, prerelease: false)
            step.done(recorded, GitHubReleaseCreated(api: api, repository: repositoryName, id: made.id, tag: tag))
            return (made, recorded)
        }

        func deleteRelease(id: Int) async throws { try await client.deleteRelease(id: id) }

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

    /// Uploads `artifacts` of part `part` to the parts' draft release on GitHub.
    /// - Throws: `ReleasePreflightError` (token, access) before any change; GitHub's and origin's errors after.
    func uploadPart(_ artifacts: [Artifact], part: String, lane: String, base: String, argumentsDigest: String,
                    in step: StepContext) async throws -> PartUpload {
        let client = try client()
        try await publisher.preflight(request(ForgeReleaseRequest(tag: lane)))
        return try await PartsHost(forge: self, client: client)
            .uploadPart(artifacts, part: part, lane: lane, base: base, argumentsDigest: argumentsDigest, in: step)
    }
}
