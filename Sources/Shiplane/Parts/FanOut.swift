import Foundation
internal import Git

/// How a run treats the parts its lane declares with `lane.part` (issue 42): one release fanned
/// out over CI jobs, which meet on origin.
package enum FanOutMode: Sendable, Equatable {
    /// One job: every part's body runs here, in order (as if there were no parts).
    case inline
    /// `shiplane plan`: a dry run that lists the parts and stops after them.
    case plan
    /// `--part NAME`: builds that part, records its artifacts on origin, and stops.
    case part(String)
    /// `--fan-in`: every part's artifacts come from origin; the rest of the lane publishes once.
    case fanIn
}

/// A part as the lane declares it: its name and what runner it needs.
package struct PlannedPart: Sendable, Equatable, Codable {
    /// The part's name (`ios`, `linux-arm64`): `--part NAME`.
    package var name: String
    /// The operating system its runner must have (`macos`, `linux`, `windows`), when it needs one.
    package var os: String?
    /// The CPU architecture its runner must have (`x86_64`, `arm64`), when it needs one.
    package var arch: String?
}

/// What one run knows of its lane's parts: those declared so far, the one running now, and
/// (fan-in) those origin does not have.
package final class FanOutRun: @unchecked Sendable {
    // @unchecked: `mode` and `base` are set once in `init`; every `var` is only touched under `lock`.
    package let mode: FanOutMode
    /// The commit HEAD named when the run started: the commit the parts are built from.
    let base: String?
    private let lock = NSLock()
    private var declared: [PlannedPart] = []
    private var current: String?
    private var missing: [MissingPart] = []
    private var afterParts = false
    private var listing: OriginParts.Listing?
    private var used: [String: ObjectID] = [:]
    private var builtFrom: String?
    private var topLane = ""
    private var draftValue: ObjectID?
    /// The forge and repository the fan-in's release went to (API, `owner/name`) and the parts'
    /// draft it published, if any: where it looks for drafts the parts left unclaimed.
    private var draftForge: (kind: ForgeKind, api: String, repository: String, published: Int?)?

    /// The state of a run in `mode` in the work tree `workTree`.
    package init(mode: FanOutMode, workTree: String) {
        self.mode = mode
        if mode == .inline || mode == .plan {
            base = nil
        } else {
            base = try? git {
                switch try RepositoryAccess.open(at: workTree).head() {
                case .branch(_, let commit), .detached(let commit): commit.hex
                case .unborn: nil
                }
            }
        }
    }

    /// The top lane's name (`release`): its parts' records are under `refs/shiplane/parts/NAME/`.
    package var laneName: String {
        get { lock.withLock { topLane } }
        set { lock.withLock { topLane = newValue } }
    }

    /// Every part declared so far, in order.
    package var parts: [PlannedPart] { lock.withLock { declared } }

    /// The part whose body runs now, if any.
    var currentPart: String? { lock.withLock { current } }

    /// Adds a part the lane declared.
    /// - Throws: `ValidationFailure` for a name a ref cannot hold or a name declared twice.
    func declare(_ part: PlannedPart) throws {
        var problems: [String] = []
        if !Self.isValidName(part.name) {
            problems.append("the part name `\(part.name)` is not a name: use letters, digits, `.`, `_` and `-` (it names a ref on origin and a CI job)")
        }
        for (label, value) in [("os", part.os), ("arch", part.arch)] {
            if let value, !Self.isValidName(value) { problems.append("the part's \(label) `\(value)` is not a name (letters, digits, `.`, `_`, `-`)") }
        }
        try lock.withLock {
            if declared.contains(where: { $0.name == part.name }) { problems.append("the part `\(part.name)` is declared twice") }
            guard problems.isEmpty else {
                throw ValidationFailure(problems: problems, suggestion: "give each lane.part a name of its own, like `ios`, `android` or `linux-arm64`")
            }
            declared.append(part)
        }
    }

    /// The body of `name` starts (`nil`: it ended).
    func enter(_ name: String?) {
        lock.withLock {
            current = name
            if name == nil { afterParts = true }
        }
    }

    /// A part whose body did not run here ended (skipped, taken from origin).
    func passed() {
        lock.withLock { afterParts = true }
    }

    /// Notes a part origin does not have (fan-in).
    func noteMissing(_ part: MissingPart) {
        lock.withLock { missing.append(part) }
    }

    /// Called before every step: after the parts, a plan is complete and a fan-in with missing
    /// parts stops before the first step that is not a part.
    func beforeStep() throws {
        let (inPart, after, missing, declared) = lock.withLock { (current != nil, afterParts, self.missing, self.declared) }
        guard !inPart, after else { return }
        switch mode {
        case .plan: throw FanOutStop(kind: .planned)
        case .fanIn: if !missing.isEmpty { throw PartsMissing(missing: missing, declared: declared.map(\.name)) }
        case .part(let name): throw UnknownPart(name: name, declared: declared.map(\.name))
        case .inline: break
        }
    }

    /// The lane's `run` returned: a plan is complete; a fan-in with missing parts fails; a part
    /// job whose part the lane never declared fails.
    package func laneEnded() throws {
        let (missing, declared) = lock.withLock { (self.missing, self.declared) }
        switch mode {
        case .plan:
            guard !declared.isEmpty else {
                throw UnknownPart(name: nil, declared: [])
            }
            throw FanOutStop(kind: .planned)
        case .fanIn: if !missing.isEmpty { throw PartsMissing(missing: missing, declared: declared.map(\.name)) }
        case .part(let name): throw UnknownPart(name: name, declared: declared.map(\.name))
        case .inline: break
        }
    }

    /// Refuses the point of no return in a part job: a part publishes nothing but its record.
    func checkMayPublish(_ reason: String) throws {
        guard case .part(let name) = mode else { return }
        throw ShiplaneError(
            "the job of part `\(name)` would publish (\(reason)): a part only builds and records its artifacts on origin",
            suggestion: "move pushes, releases and messages after the lane's parts: the fan-in job (`--fan-in`) runs them, once")
    }

    /// Origin's part records of this lane and its word of the last release published (cached for the run).
    func originParts(lane: String, context: LaneContext) async throws -> OriginParts.Listing {
        if let listing = lock.withLock({ listing }) { return listing }
        let found = try await OriginParts.list(lane: lane, workTree: context.workingDirectory, environment: context.environment)
        lock.withLock { listing = found }
        return found
    }

    /// Notes the record of `part` this run took its artifacts from (fan-in), to retire it, and
    /// the commit it was built from.
    func noteUsed(_ part: String, _ value: ObjectID, base: String) {
        lock.withLock {
            used[part] = value
            builtFrom = base
        }
    }

    /// The commit the parts this run took were built from (else the commit it started at).
    var partsBase: String? { lock.withLock { builtFrom } ?? base }

    /// The records this run used, by part: those it took artifacts from, and for a part whose
    /// step a resumed run replayed, the record origin held when the run listed it.
    var usedRecords: [String: ObjectID] {
        lock.withLock {
            var records = used
            for part in declared where records[part.name] == nil {
                if let value = listing?.parts[part.name] { records[part.name] = value }
            }
            return records
        }
    }

    /// The fan-in's release on `repository` (API `api`): the id of the draft release this
    /// release's parts uploaded to, which origin names (`refs/shiplane/drafts/LANE`), if any;
    /// the ref is retired with the parts' records, in the same push, once the release is published.
    /// - Throws: when origin cannot be reached.
    func partsDraft(forge: ForgeKind, api: String, repository: String, in context: LaneContext) async throws -> Int? {
        guard mode == .fanIn else { return nil }
        lock.withLock { draftForge = (forge, api, repository, nil) }
        guard let base = partsBase,
              let (draft, value) = try await OriginParts.readDraft(lane: laneName, workTree: context.workingDirectory, environment: context.environment),
              let draft, draft.forge == forge.rawValue, draft.base == base, draft.api == api, draft.repository == repository,
              context.isResumed || draft.argumentsDigest == argumentsDigest(context.state.journal.recorder?.current) else { return nil }
        lock.withLock {
            draftValue = value
            draftForge = (forge, api, repository, draft.releaseID)
        }
        return draft.releaseID
    }

    /// After a fan-in published: leaves word of it on origin and retires the parts' records and
    /// origin's word of their draft release, in one push.
    func retire(_ context: LaneContext) async -> [String] {
        let head = (try? git {
            switch try context.repository().head() {
            case .branch(_, let commit), .detached(let commit): commit.hex
            case .unborn: ""
            }
        }) ?? ""
        let published = PublishedRelease(base: partsBase ?? head, head: head, run: context.state.journal.recorder?.current.id ?? "")
        await noteDraftOfResumedRun(context)
        let warnings = await OriginParts.retire(
            lane: laneName, parts: usedRecords, draft: lock.withLock { draftValue }, published: published,
            workTree: context.workingDirectory, environment: context.environment)
        return warnings + (await deleteUnclaimedDrafts(context))
    }

    /// A resumed fan-in whose release step was replayed from its record (it finished before the
    /// kill) never asked for the parts' draft: origin's word of it, when it is this release's, is
    /// taken here, so that it is retired with the part records and the drafts the parts left
    /// unclaimed are cleaned up as after an uninterrupted fan-in. Never throws: the release is done.
    private func noteDraftOfResumedRun(_ context: LaneContext) async {
        guard mode == .fanIn, lock.withLock({ draftForge == nil }), let base = partsBase,
              let (found, value) = try? await OriginParts.readDraft(lane: laneName, workTree: context.workingDirectory, environment: context.environment),
              let draft = found, draft.base == base,
              context.isResumed || draft.argumentsDigest == argumentsDigest(context.state.journal.recorder?.current) else { return }
        lock.withLock {
            draftValue = value
            draftForge = (ForgeKind(draft.forge), draft.api, draft.repository, draft.releaseID)
        }
    }

    /// After a fan-in published on a forge with drafts (GitHub, Gitea): deletes the drafts of this
    /// release (its lane, the parts' commit and lane options) that part jobs made and never
    /// claimed, each only while it is as they left it (`PartsDraftOrphans`): a job killed while
    /// another job's draft won the claim leaves one. Returns a warning for each left; never
    /// throws: the release is done.
    private func deleteUnclaimedDrafts(_ context: LaneContext) async -> [String] {
        guard let forge = lock.withLock({ draftForge }), let drafts = forge.kind.forge as? any PartsDraftForge.Type,
              let base = partsBase else { return [] }
        let lane = laneName
        let digest = argumentsDigest(context.state.journal.recorder?.current)
        do {
            guard let host = try drafts.partsDrafts(api: forge.api, repository: forge.repository, environment: context.environment) else { return [] }
            let fates = try await PartsDraftOrphans.clean(host, claimed: Set(forge.published.map { [$0] } ?? []), dryRun: false) {
                $0.lane == lane && $0.base == base && (context.isResumed || $0.argumentsDigest == digest)
            }
            var warnings: [String] = []
            for (_, fate) in fates {
                switch fate {
                case .deleted(let line): context.log(line)
                case .stays(let line): warnings.append(line)
                case .failed(let line): warnings.append("could not delete " + line + "; `shiplane rollback` deletes it")
                }
            }
            return warnings
        } catch {
            return ["could not look on \(forge.repository) for drafts the parts left unclaimed: \(describe(error)); `shiplane rollback` deletes them"]
        }
    }

    /// True for a name a part, its os or arch may have: it is a ref's component and a CI job's name.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."), !name.hasPrefix("-"), !name.hasSuffix(".lock"), !name.contains("..") else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }
}

/// Ends a run early, as a success: a plan is complete, or a part job recorded its part.
package struct FanOutStop: Error {
    package enum Kind: Sendable, Equatable {
        /// `shiplane plan`: every part is known.
        case planned
        /// A part job's part is on origin (`earlier`: a run before this one recorded it).
        case partRecorded(String, earlier: Bool)
    }
    package var kind: Kind

    /// The stop in `error` or any error under it (a lane called by another wraps it).
    package static func find(in error: any Error) -> FanOutStop? {
        if let stop = error as? FanOutStop { return stop }
        if let reportable = error as? any ReportableError {
            for child in reportable.underlyingErrors { if let stop = find(in: child) { return stop } }
        }
        return nil
    }
}

/// A part the fan-in found no usable record of on origin, and why.
package struct MissingPart: Sendable, Equatable {
    package var name: String
    package var reason: String
}

/// The fan-in job ran before every part recorded its artifacts on origin (exit 8).
package struct PartsMissing: ReportableError {
    package var missing: [MissingPart]
    package var declared: [String]

    package var message: String {
        "\(missing.count) of the release's \(declared.count) parts \(missing.count == 1 ? "has" : "have") not recorded their artifacts on origin: "
            + missing.map(\.name).joined(separator: ", ")
    }
    package var info: [(key: String, value: String)] {
        missing.map { ("part \($0.name)", $0.reason) } + [("parts", declared.joined(separator: ", "))]
    }
    package var suggestion: String? {
        "run the missing parts' jobs (`shiplane <lane> --part NAME`; a CI retry of the failed job does it), then this job again: nothing was published"
    }
    package var category: ErrorCategory { .failure }

    /// True when `error` or any error under it is a `PartsMissing`, or a part's asset on the
    /// parts' draft that holds other bytes than recorded (`PartAssetMismatch`): the same exit, the
    /// same remedy (run the part's job again), nothing published.
    package static func isIn(_ error: any Error) -> Bool {
        if error is PartsMissing || error is PartAssetMismatch { return true }
        if let reportable = error as? any ReportableError { return reportable.underlyingErrors.contains(where: isIn) }
        return false
    }
}

/// The fan-in job of a release origin says was published already (`PublishedRelease`).
struct ReleasePublishedAlready: ReportableError {
    var lane: String
    var published: PublishedRelease
    var message: String { "the release of this commit was published already by the fan-in job of `\(lane)` (run \(published.run)): nothing to do" }
    var info: [(key: String, value: String)] { [("parts built from", String(published.base.prefix(7))), ("released at", String(published.head.prefix(7)))] }
    var suggestion: String? { "nothing was changed; a new release starts from a new commit" }
    var category: ErrorCategory { .nothingToDo }
}

/// `--part NAME` names no part of the lane.
/// (`name` nil: `shiplane plan` of a lane that declares no part.)
struct UnknownPart: ReportableError {
    var name: String?
    var declared: [String]
    var message: String {
        name.map { "the lane has no part named `\($0)`" } ?? "the lane declares no parts (lane.part), so there is nothing to plan: it runs in one job"
    }
    var suggestion: String? {
        declared.isEmpty
            ? "wrap each build that needs a runner of its own in `try await lane.part(\"NAME\", os: \"macos\") { … }`, or run the lane without --part"
            : "the parts are: " + declared.joined(separator: ", ")
    }
    var category: ErrorCategory { .usage }
}
