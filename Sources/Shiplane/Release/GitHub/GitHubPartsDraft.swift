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
    /// GitHub; else an unclaimed draft of this release that a part job killed before its claim
    /// left (found by its placeholder tag and `PartsDraftMarker`: adopted, never a second one made
    /// beside it); else a new draft made here. Either is offered to origin by compare-and-swap — a
    /// job that loses the swap takes the winner's, and deletes the draft it offered when it made it
    /// (an adopted one may be a running job's, which deletes it itself). Assets already on the
    /// draft with the same name, size and digest are left; a different one is replaced, never
    /// deleted first.
    /// - Throws: `ReleasePreflightError` (token, access) before any change; GitHub's and origin's errors after.
    func uploadPart(_ artifacts: [Artifact], part: String, lane: String, base: String, argumentsDigest: String,
                    in step: StepContext) async throws -> PartUpload {
        let context = step.lane
        let client = try client()
        try await publisher.preflight(request(ForgeReleaseRequest(tag: lane)))
        let api = publisher.apiURL
        let repository = publisher.repository.description
        let run = context.state.journal.recorder?.current.id ?? UUID().uuidString
        let marker = PartsDraftMarker(lane: lane, base: base, argumentsDigest: argumentsDigest)
        for _ in 0..<3 {
            let seen = try await OriginParts.readDraft(lane: lane, workTree: context.workingDirectory, environment: context.environment)
            let releases = try await client.listReleases()
            let unclaimed = releases.filter { PartsDraftMarker.of($0) == marker && $0.id != seen?.draft?.releaseID }
            if let draft = seen?.draft, draft.isFor(base: base, argumentsDigest: argumentsDigest, api: api, repository: repository) {
                if let release = releases.first(where: { $0.id == draft.releaseID }), release.draft {
                    return try await upload(artifacts, to: release, client: client)
                }
                step.log("the parts' draft release \(draft.releaseID) that origin names is gone or published (deleted by hand or by a rollback): this job makes a new one")
            } else if let draft = seen?.draft {
                step.log("origin names the draft release \(draft.releaseID) of another release (parts built from \(draft.base.prefix(7))): left as it is, this release gets its own")
            }
            let offered: GitHubRelease
            var handle: EffectHandle?
            var madeHere = false
            if let orphan = unclaimed.first {
                // A part job killed between GitHub's making of its draft and its claim on origin
                // left it: this release's, unclaimed. Adopted, so no second draft appears.
                offered = orphan
                step.log("found the unclaimed draft release \(orphan.id) (\(orphan.tagName)) a part job of this release made before it was stopped: this job adopts it")
            } else {
                let tag = PartsDraftMarker.tagPrefix(base: base) + String(run.filter { $0.isLetter || $0.isNumber }.prefix(12))
                let recorded = try step.record(GitHubReleaseCreated(api: api, repository: repository, id: nil, tag: tag),
                                               "delete the draft release \(tag) this part job made")
                let (made, _) = try await client.createRelease(
                    tag: tag, name: "\(lane): parts of \(base.prefix(7)) (not published)",
                    body: "Shiplane's fan-in job publishes this draft once every part uploaded its artifacts.\n\n" + marker.text,
                    draft: true, prerelease: false)
                step.done(recorded, GitHubReleaseCreated(api: api, repository: repository, id: made.id, tag: tag))
                offered = made
                handle = recorded
                madeHere = true
            }
            let claim = PartsDraft(lane: lane, base: base, argumentsDigest: argumentsDigest, forge: ForgeKind.github.rawValue, api: api,
                                   repository: repository, releaseID: offered.id, tag: offered.tagName, run: run)
            var won = try await OriginParts.claimDraft(claim, expected: seen?.value, workTree: context.workingDirectory, environment: context.environment) == .recorded
            if !won {
                // Another job may have offered the same unclaimed draft and won: it is the release's.
                won = try await OriginParts.readDraft(lane: lane, workTree: context.workingDirectory, environment: context.environment)?
                    .draft.map { $0.releaseID == offered.id && $0.isFor(base: base, argumentsDigest: argumentsDigest, api: api, repository: repository) } ?? false
            }
            if won {
                // The release's draft now, not this job's: its rollback leaves it to the fan-in.
                if madeHere {
                    step.keep(handle, "the parts' draft release \(offered.id), which origin names (\(OriginParts.draftReference(lane: lane))): the fan-in publishes it")
                }
                step.log((madeHere ? "made" : "adopted") + " the parts' draft release \(offered.id) on \(repository)")
                return try await upload(artifacts, to: offered, client: client)
            }
            guard madeHere else {
                // Not this job's to delete: its maker may be running still, and deletes it when it loses.
                step.log("another part job's draft became the release's first: the unclaimed draft \(offered.id) is left to the job that made it")
                continue
            }
            try await client.deleteRelease(id: offered.id)
            step.didNotHappen(handle, "another part's draft became the release's first: this one was deleted")
            step.log("another part job made the parts' draft first: this job's draft \(offered.id) was deleted")
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
