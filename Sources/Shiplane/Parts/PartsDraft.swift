import Foundation
internal import Git

/// The one draft release the parts of a fanned-out release upload their artifacts to (issue 42),
/// as origin names it under `refs/shiplane/drafts/LANE`: the first part job to push this ref
/// (compare-and-swap) made the draft every other part and the fan-in use.
package struct PartsDraft: Codable, Sendable, Equatable {
    /// The record's format.
    package var format = 1
    /// The lane, as the command line names it.
    package var lane: String
    /// The commit the parts are built from.
    package var base: String
    /// The SHA-256 of the lane's arguments: the same release.
    package var argumentsDigest: String
    /// The forge (`github`).
    package var forge: String
    /// The API base the draft lives on.
    package var api: String
    /// The repository, `owner/name`.
    package var repository: String
    /// The draft release's id.
    package var releaseID: Int
    /// The placeholder tag the draft was created with (the fan-in gives it the release's tag).
    package var tag: String
    /// The id of the part job's run that made it.
    package var run: String

    /// True when this draft is the one of the release `base` with `argumentsDigest` on `repository`.
    func isFor(base: String, argumentsDigest: String, api: String, repository: String) -> Bool {
        self.base == base && self.argumentsDigest == argumentsDigest && self.api == api && self.repository == repository
    }
}

extension OriginParts {
    /// Where origin names the parts' draft release of `lane`.
    package static func draftReference(lane: String) -> String { "refs/shiplane/drafts/" + lane }

    /// Origin's word of `lane`'s parts' draft and the ref's value; nil when origin has none.
    /// - Throws: when origin cannot be reached.
    static func readDraft(lane: String, workTree: String, environment: LaneEnvironment) async throws -> (draft: PartsDraft?, value: ObjectID)? {
        try await gitOffThePool {
            let (repository, credentials) = try connection(workTree: workTree, environment: environment)
            let local = "refs/shiplane/fetched-drafts/" + lane
            defer { try? repository.deleteReference(local) }
            guard try repository.fetchIfPresent(remote: remote, source: draftReference(lane: lane), destination: local, credentials: credentials) else { return nil }
            let value = try repository.resolveCommit(local)
            let json = try repository.readFileReference(local, name: "draft.json")
            return (json.flatMap { try? RunStore.decoder.decode(PartsDraft.self, from: $0) }, value)
        }
    }

    /// Pushes `draft` to origin only if origin's ref still holds `expected` (nil: no ref): the
    /// compare-and-swap that makes one draft the release's.
    /// - Throws: when origin cannot be reached or refuses the ref for another reason.
    static func claimDraft(_ draft: PartsDraft, expected: ObjectID?, workTree: String, environment: LaneEnvironment) async throws -> Written {
        let ref = draftReference(lane: draft.lane)
        return try await swapIn(ref, files: [("draft.json", try RunStore.encoder.encode(draft))],
                                            message: "shiplane: the parts' draft release of \(draft.lane)", expected: expected,
                                            naming: "\(ref), which names the parts' draft release", workTree: workTree, environment: environment)
    }
}
