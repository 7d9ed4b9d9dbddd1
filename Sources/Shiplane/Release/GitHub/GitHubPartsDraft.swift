import Foundation
internal import Git

/// The draft release a fanned-out release's parts upload to on GitHub (issue 42): one per
/// release, agreed through `refs/shiplane/drafts/LANE` on origin (compare-and-swap).
extension GitHubForge {
    /// What uploading a part's artifacts to the parts' draft did.
    struct PartUpload: Sendable {
        var releaseID: Int
        var attached: ForgeAttachOutcome
    }

    /// Uploads `artifacts` of part `part` to the parts' draft release: the one origin names when
    /// it is this release's (same commit, lane options and repository) and still a draft on
    /// GitHub; else a new draft made here and offered to origin by compare-and-swap — a job that
    /// loses the swap deletes its own draft and takes the winner's. Assets already on the draft
    /// with the same name, size and digest are left; a different one is replaced, never deleted
    /// first.
    /// - Throws: `ReleasePreflightError` (token, access) before any change; GitHub's and origin's errors after.
    func uploadPart(_ artifacts: [Artifact], part: String, lane: String, base: String, argumentsDigest: String,
                    in step: StepContext) async throws -> PartUpload {
        let context = step.lane
        let client = try client()
        try await publisher.preflight(request(ForgeReleaseRequest(tag: lane)))
        let api = publisher.apiURL
        let repository = publisher.repository.description
        let run = context.state.journal.recorder?.current.id ?? UUID().uuidString
        for _ in 0..<3 {
            let seen = try await OriginParts.readDraft(lane: lane, workTree: context.workingDirectory, environment: context.environment)
            if let draft = seen?.draft, draft.isFor(base: base, argumentsDigest: argumentsDigest, api: api, repository: repository) {
                if let release = try await client.release(id: draft.releaseID), release.draft {
                    return try await upload(artifacts, to: release, client: client)
                }
                step.log("the parts' draft release \(draft.releaseID) that origin names is gone or published (deleted by hand or by a rollback): this job makes a new one")
            } else if let draft = seen?.draft {
                step.log("origin names the draft release \(draft.releaseID) of another release (parts built from \(draft.base.prefix(7))): left as it is, this release gets its own")
            }
            let tag = "shiplane-parts-\(base.prefix(12))-\(String(run.filter { $0.isLetter || $0.isNumber }.prefix(12)))"
            let handle = try step.record(GitHubReleaseCreated(api: api, repository: repository, id: nil, tag: tag),
                                         "delete the draft release \(tag) this part job made")
            let (made, _) = try await client.createRelease(
                tag: tag, name: "\(lane): parts of \(base.prefix(7)) (not published)",
                body: "Shiplane's fan-in job publishes this draft once every part uploaded its artifacts.", draft: true, prerelease: false)
            step.done(handle, GitHubReleaseCreated(api: api, repository: repository, id: made.id, tag: tag))
            let claim = PartsDraft(lane: lane, base: base, argumentsDigest: argumentsDigest, forge: ForgeKind.github.rawValue, api: api,
                                   repository: repository, releaseID: made.id, tag: tag, run: run)
            switch try await OriginParts.claimDraft(claim, expected: seen?.value, workTree: context.workingDirectory, environment: context.environment) {
            case .recorded:
                // The release's draft now, not this job's: its rollback leaves it to the fan-in.
                step.keep(handle, "the parts' draft release \(made.id), which origin names (\(OriginParts.draftReference(lane: lane))): the fan-in publishes it")
                step.log("made the parts' draft release \(made.id) on \(repository)")
                return try await upload(artifacts, to: made, client: client)
            case .takenByAnother:
                try await client.deleteRelease(id: made.id)
                step.didNotHappen(handle, "another part's draft became the release's first: this one was deleted")
                step.log("another part job made the parts' draft first: this job's draft \(made.id) was deleted")
            }
        }
        throw ShiplaneError(
            "origin's word of the parts' draft release (\(OriginParts.draftReference(lane: lane))) changed three times while this job read it",
            suggestion: "run the part's job again")
    }

    private func upload(_ artifacts: [Artifact], to release: GitHubRelease, client: GitHubClient) async throws -> PartUpload {
        let results = try await publisher.uploadAssets(request(ForgeReleaseRequest(tag: release.tagName), artifacts), release: release, client: client)
        var outcome = ForgeAttachOutcome()
        for (name, result) in results {
            switch result {
            case .uploaded: outcome.uploaded.append(name)
            case .skipped: outcome.unchanged.append(name)
            case .replaced: outcome.replaced.append(name)
            }
        }
        return PartUpload(releaseID: release.id, attached: outcome)
    }
}
