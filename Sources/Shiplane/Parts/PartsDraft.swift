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

/// How the parts left their draft release before a fan-in took it over (its placeholder tag,
/// name and body with `PartsDraftMarker`'s word): the fan-in's rollback gives it back to them
/// like this instead of deleting it, for the draft holds the parts' bytes (their records on origin
/// name its assets), so a fan-in run again finishes the release without any part built again.
package struct PartsDraftLeftAs: Codable, Sendable, Equatable {
    package var tag: String
    package var name: String
    package var body: String

    package init(tag: String, name: String, body: String) {
        self.tag = tag
        self.name = name
        self.body = body
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

/// The word Shiplane writes into the body of every parts' draft release it creates (an HTML
/// comment, which GitHub does not show): the lane, the parts' commit and the lane options' digest.
/// A part job killed after GitHub made its draft and before origin named it leaves that draft
/// unclaimed; the next part job of the release, or `shiplane rollback`, finds it by its
/// placeholder tag and this word, and adopts or deletes it. A draft a person made carries no such
/// word, and is never touched.
package struct PartsDraftMarker: Sendable, Equatable {
    /// The lane, as the command line names it.
    package var lane: String
    /// The commit the parts are built from.
    package var base: String
    /// The SHA-256 of the lane's arguments.
    package var argumentsDigest: String

    private static let opening = "<!-- shiplane:parts-draft "
    private static let closing = " -->"

    /// The word as it stands in the draft's body.
    package var text: String { Self.opening + "lane=\(lane) base=\(base) arguments=\(argumentsDigest)" + Self.closing }

    /// The placeholder tag's beginning for parts built from `base` (`shiplane-parts-COMMIT-`).
    static func tagPrefix(base: String) -> String { "shiplane-parts-\(base.prefix(12))-" }

    package init(lane: String, base: String, argumentsDigest: String) {
        self.lane = lane
        self.base = base
        self.argumentsDigest = argumentsDigest
    }

    /// The word a release's body carries, or nil when it carries none.
    package init?(body: String?) {
        guard let body, let start = body.range(of: Self.opening),
              let end = body.range(of: Self.closing, range: start.upperBound..<body.endIndex) else { return nil }
        var fields: [String: String] = [:]
        for pair in body[start.upperBound..<end.lowerBound].split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        guard let lane = fields["lane"], let base = fields["base"], let digest = fields["arguments"], !lane.isEmpty, !base.isEmpty else { return nil }
        self.init(lane: lane, base: base, argumentsDigest: digest)
    }

    /// The marker of `release` when it is a parts' draft Shiplane made: still a draft, with the
    /// placeholder tag of its commit and this word in its body (a fan-in that took it over gave it
    /// the release's tag and notes); nil for anything else, a person's draft included.
    package static func of(_ release: GitHubRelease) -> PartsDraftMarker? {
        of(draft: release.draft, tag: release.tagName, body: release.body)
    }

    /// The marker of a release on any forge with drafts, as `of(_:)` reads a GitHub one.
    static func of(_ release: PartsDraftRelease) -> PartsDraftMarker? {
        of(draft: release.draft, tag: release.tag, body: release.body)
    }

    /// The marker of a release that is a draft or not, with `tag` and `body`.
    static func of(draft: Bool, tag: String, body: String?) -> PartsDraftMarker? {
        guard draft, let marker = PartsDraftMarker(body: body), tag.hasPrefix(tagPrefix(base: marker.base)) else { return nil }
        return marker
    }
}
