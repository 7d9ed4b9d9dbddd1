import Foundation
internal import Git

/// A forge whose releases can be drafts, as a fanned-out release's parts use them (issue 42):
/// GitHub and Gitea (`draft: true` in their release APIs), each in its own folder. GitLab has no
/// drafts: its parts' artifacts go in their records on origin and the fan-in uploads them.
protocol PartsDraftForge: Forge {
    /// Checks the token and the repository's access, every problem at once and before any change
    /// (`ReleasePreflightError`), and returns the forge's releases as the parts' draft uses them.
    /// - Throws: `ReleasePreflightError`.
    func partsDrafts() async throws -> any PartsDraftHost
    /// The releases of `repository` (`owner/name`) on the API `api`, with the token
    /// `environment` holds, for work that has no step of its own (the fan-in's clean-up after it
    /// published); nil when no token is set.
    /// - Throws: when `repository` is not one.
    static func partsDrafts(api: String, repository: String, environment: LaneEnvironment) throws -> (any PartsDraftHost)?
    /// The releases of origin's repository on this forge, where a part job's `draft:` of this
    /// forge that names no server or repository (`.github()`, `.gitea()`) puts its draft: where
    /// `shiplane rollback` looks for drafts no record on origin names. `origin` is the origin
    /// remote's URL as configured, `settings` the project's forge settings; nil when no token is set.
    /// - Throws: when nothing names the repository or its server.
    static func partsDrafts(origin: String, settings: ForgeSettings, environment: LaneEnvironment) throws -> (any PartsDraftHost)?
    /// The variables `partsDrafts(api:repository:environment:)` takes its token from, as an
    /// error asks for them (`GITHUB_TOKEN (or GH_TOKEN)`).
    static var partsDraftsToken: String { get }
    /// Whether `environment` holds a token for this forge (`partsDraftsToken`): without one a
    /// part's artifacts go in its record on origin, as where there is no draft.
    static func hasPartsDraftsToken(_ environment: LaneEnvironment) -> Bool
}

/// A forge's releases, as a part job of a fanned-out release and the fan-in use them for the
/// parts' draft release (issue 42).
protocol PartsDraftHost: Sendable {
    associatedtype Release: Sendable
    /// Which forge (`github`, `gitea`): written in origin's word of the draft.
    var kind: ForgeKind { get }
    /// The API base the drafts live on.
    var api: String { get }
    /// The repository, `owner/name`.
    var repositoryName: String { get }
    /// Where the releases are, for messages, as the forge says it (`on acme/rocket`, `on Gitea acme/rocket`).
    var place: String { get }
    /// Every release of the repository, drafts included.
    func releases() async throws -> [Release]
    /// The release `id` as the forge has it now; nil when it is gone.
    func release(id: Int) async throws -> Release?
    /// What the parts' draft code reads of a release.
    func facts(_ release: Release) -> PartsDraftRelease
    /// Creates a draft release, its creation written down in `step` first.
    func createDraft(tag: String, name: String, body: String, in step: StepContext) async throws -> (Release, EffectHandle?)
    /// Deletes a release (a draft this job made and lost the claim with, or one nobody claimed).
    func deleteRelease(id: Int) async throws
    /// Uploads `artifacts` to `release`: the same bytes under a name kept, other bytes replaced
    /// (the new one first), nothing written in the run's journal (the draft holds them).
    func upload(_ artifacts: [Artifact], to release: Release) async throws -> ForgeAttachOutcome
    /// Downloads the bytes of the asset `id` of the release `releaseID` into `path`, as the
    /// forge's API describes it; false when the forge no longer has that asset there.
    /// - Throws: the forge's errors.
    func downloadAsset(id: Int, releaseID: Int, to path: String) async throws -> Bool
}

/// A release on a forge with drafts, as the parts' draft code compares and names it.
struct PartsDraftRelease: Sendable, Equatable {
    /// A file on the release: its name, id and size, and its digest where the forge gives one
    /// (GitHub's `sha256:HEX`; Gitea gives none).
    struct Asset: Sendable, Equatable {
        var name: String
        var id: Int
        var size: Int64
        var digest: String?
        /// What tells its bytes apart: a replaced file is a new id.
        var fingerprint: String { "\(id) \(size) \(digest ?? "")" }
    }
    var id: Int
    var tag: String
    var name: String?
    var body: String?
    var draft: Bool
    var assets: [Asset]
}

/// What uploading a part's artifacts to the parts' draft did.
struct PartUpload: Sendable {
    var releaseID: Int
    var attached: ForgeAttachOutcome
}

extension PartsDraftHost {
    /// What the parts' draft code reads of the release `id` as the forge has it now; nil when it is gone.
    func releaseFacts(id: Int) async throws -> PartsDraftRelease? {
        try await release(id: id).map(facts)
    }

    /// Uploads `artifacts` of part `part` to the parts' draft release: the one origin names when
    /// it is this release's (same commit, lane options and repository) and still a draft; else an
    /// unclaimed draft of this release that a part job killed before its claim left (found by its
    /// placeholder tag and `PartsDraftMarker`: adopted, never a second one made beside it); else a
    /// new draft made here. Either is offered to origin by compare-and-swap — a job that loses the
    /// swap takes the winner's, and deletes the draft it offered when it made it (an adopted one
    /// may be a running job's, which deletes it itself).
    /// - Throws: the forge's and origin's errors.
    func uploadPart(_ artifacts: [Artifact], part: String, lane: String, base: String, argumentsDigest: String,
                    in step: StepContext) async throws -> PartUpload {
        let context = step.lane
        let run = context.state.journal.recorder?.current.id ?? UUID().uuidString
        let marker = PartsDraftMarker(lane: lane, base: base, argumentsDigest: argumentsDigest)
        for _ in 0..<3 {
            let seen = try await OriginParts.readDraft(lane: lane, workTree: context.workingDirectory, environment: context.environment)
            let releases = try await self.releases()
            let unclaimed = releases.filter {
                let facts = facts($0)
                return PartsDraftMarker.of(facts) == marker && facts.id != seen?.draft?.releaseID
            }
            if let draft = seen?.draft, draft.isFor(base: base, argumentsDigest: argumentsDigest, api: api, repository: repositoryName) {
                if let release = releases.first(where: { facts($0).id == draft.releaseID }), facts(release).draft {
                    return PartUpload(releaseID: draft.releaseID, attached: try await upload(artifacts, to: release))
                }
                step.log("the parts' draft release \(draft.releaseID) that origin names is gone or published (deleted by hand or by a rollback): this job makes a new one")
            } else if let draft = seen?.draft {
                step.log("origin names the draft release \(draft.releaseID) of another release (parts built from \(draft.base.prefix(7))): left as it is, this release gets its own")
            }
            let offered: Release
            var handle: EffectHandle?
            var madeHere = false
            if let orphan = unclaimed.first {
                // A part job killed between the forge's making of its draft and its claim on origin
                // left it: this release's, unclaimed. Adopted, so no second draft appears.
                offered = orphan
                step.log("found the unclaimed draft release \(facts(orphan).id) (\(facts(orphan).tag)) a part job of this release made before it was stopped: this job adopts it")
            } else {
                let tag = PartsDraftMarker.tagPrefix(base: base) + String(run.filter { $0.isLetter || $0.isNumber }.prefix(12))
                let made = try await createDraft(
                    tag: tag, name: "\(lane): parts of \(base.prefix(7)) (not published)",
                    body: "Shiplane's fan-in job publishes this draft once every part uploaded its artifacts.\n\n" + marker.text, in: step)
                offered = made.0
                handle = made.1
                madeHere = true
            }
            let id = facts(offered).id
            let claim = PartsDraft(lane: lane, base: base, argumentsDigest: argumentsDigest, forge: kind.rawValue, api: api,
                                   repository: repositoryName, releaseID: id, tag: facts(offered).tag, run: run)
            var won = try await OriginParts.claimDraft(claim, expected: seen?.value, workTree: context.workingDirectory, environment: context.environment) == .recorded
            if !won {
                // Another job may have offered the same unclaimed draft and won: it is the release's.
                won = try await OriginParts.readDraft(lane: lane, workTree: context.workingDirectory, environment: context.environment)?
                    .draft.map { $0.releaseID == id && $0.isFor(base: base, argumentsDigest: argumentsDigest, api: api, repository: repositoryName) } ?? false
            }
            if won {
                // The release's draft now, not this job's: its rollback leaves it to the fan-in.
                if madeHere {
                    step.keep(handle, "the parts' draft release \(id), which origin names (\(OriginParts.draftReference(lane: lane))): the fan-in publishes it")
                }
                step.log((madeHere ? "made" : "adopted") + " the parts' draft release \(id) on \(repositoryName)")
                return PartUpload(releaseID: id, attached: try await upload(artifacts, to: offered))
            }
            guard madeHere else {
                // Not this job's to delete: its maker may be running still, and deletes it when it loses.
                step.log("another part job's draft became the release's first: the unclaimed draft \(id) is left to the job that made it")
                continue
            }
            try await deleteRelease(id: id)
            step.didNotHappen(handle, "another part's draft became the release's first: this one was deleted")
            step.log("another part job made the parts' draft first: this job's draft \(id) was deleted")
        }
        throw ShiplaneError(
            "origin's word of the parts' draft release (\(OriginParts.draftReference(lane: lane))) changed three times while this job read it",
            suggestion: "run the part's job again")
    }
}
