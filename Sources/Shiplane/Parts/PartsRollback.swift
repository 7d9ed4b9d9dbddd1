import Foundation
internal import Git

/// `shiplane rollback` of what a release fanned out over CI jobs left of its parts (issue 42): the
/// part jobs' records on origin (`refs/shiplane/parts/LANE/PART`), their word of the draft release
/// (`refs/shiplane/drafts/LANE`), the draft release on the forge holding their artifacts, and a
/// draft a part job made but was stopped before it claimed (`PartsDraftMarker`). Run with no run
/// record anywhere (the fan-in never ran), and after a fan-in's record found on origin was
/// rolled back (the release is rolled back as one).
package enum PartsRollback {
    /// What rolling back one lane's parts did (or, in a dry run, would do).
    package struct Outcome: Sendable {
        /// The lane, as the command line names it.
        package var lane: String
        /// What was undone (a dry run: what would be), one line each.
        package var undone: [String] = []
        /// What stays by design, and why (it changed since the parts left it).
        package var stays: [String] = []
        /// What could not be undone, and why: `shiplane rollback` again once it is fixed.
        package var failed: [String] = []
    }

    /// What origin holds of one lane's parts.
    private struct Leftovers {
        var parts: [String: ObjectID] = [:]
        var draft: ObjectID?
    }

    /// Rolls back every fanned-out release that origin holds parts or a draft of, lane by lane
    /// (`lane`: that lane's alone), and the unclaimed drafts part jobs left on every forge with
    /// drafts where they may be (`PartsDraftForge`: GitHub, Gitea); empty when there are none. `dryRun`: only reads, and says what it would undo.
    /// - Throws: when origin cannot be reached (nothing changed).
    package static func run(workTree: String, environment: LaneEnvironment, lane only: String? = nil, dryRun: Bool = false) async throws -> [Outcome] {
        let listed: [String: ObjectID]? = try await gitOffThePool {
            guard try RepositoryAccess.open(at: workTree).remoteURL(named: OriginParts.remote) != nil else { return nil }
            let (repository, credentials) = try OriginParts.connection(workTree: workTree, environment: environment)
            return try repository.remoteReferences(remote: OriginParts.remote, credentials: credentials, peeled: false)
        }
        guard let refs = listed else { return [] }
        let draftPrefix = OriginParts.draftReference(lane: "")
        var lanes: [String: Leftovers] = [:]
        for (name, value) in refs {
            if name.hasPrefix(OriginParts.prefix) {
                let rest = name.dropFirst(OriginParts.prefix.count)
                guard let slash = rest.lastIndex(of: "/") else { continue }
                lanes[String(rest[..<slash]), default: Leftovers()].parts[String(rest[rest.index(after: slash)...])] = value
            } else if name.hasPrefix(draftPrefix) {
                lanes[String(name.dropFirst(draftPrefix.count)), default: Leftovers()].draft = value
            }
        }
        if let only { lanes = lanes.filter { $0.key == only } }
        var outcomes: [String: Outcome] = [:]
        var named: [PartsDraft] = []
        for lane in lanes.keys.sorted() {
            if let leftovers = lanes[lane] {
                let (outcome, draft) = await rollBack(lane: lane, leftovers, workTree: workTree, environment: environment, dryRun: dryRun)
                outcomes[lane] = outcome
                if let draft { named.append(draft) }
            }
        }
        for (lane, lines) in await unclaimedDrafts(workTree: workTree, environment: environment, lane: only, except: named, dryRun: dryRun) {
            outcomes[lane, default: Outcome(lane: lane)].undone += lines.undone
            outcomes[lane, default: Outcome(lane: lane)].stays += lines.stays
            outcomes[lane, default: Outcome(lane: lane)].failed += lines.failed
        }
        return outcomes.keys.sorted().compactMap { outcomes[$0] }
    }

    /// Deletes `lane`'s draft release while it is as the parts left it, then origin's part records
    /// and word of the draft in one compare-and-swap push (each at the value read). A draft that
    /// changed (taken over by a fan-in, published, edited) is left, and so is everything on origin.
    /// Also returns the draft origin names, if any.
    private static func rollBack(lane: String, _ leftovers: Leftovers, workTree: String, environment: LaneEnvironment, dryRun: Bool) async -> (Outcome, PartsDraft?) {
        var outcome = Outcome(lane: lane)
        let draftRef = OriginParts.draftReference(lane: lane)
        var draftValue = leftovers.draft
        var named: PartsDraft?
        if leftovers.draft != nil {
            do {
                let read = try await OriginParts.readDraft(lane: lane, workTree: workTree, environment: environment)
                draftValue = read?.value
                named = read?.draft
                if let draft = read?.draft {
                    switch try await deleteDraft(draft, environment: environment, dryRun: dryRun) {
                    case .deleted(let line): outcome.undone.append(line)
                    case .stays(let why):
                        outcome.stays.append(why + "; origin's part records and \(draftRef) stay with it")
                        return (outcome, named)
                    }
                } else if read != nil {
                    outcome.undone.append("\(draftRef) names no draft release Shiplane can read: only the ref is " + (dryRun ? "to be deleted" : "deleted"))
                }
            } catch {
                outcome.failed.append("the parts' draft release (\(draftRef)): \(describe(error))")
                return (outcome, named)
            }
        }
        let parts = leftovers.parts.keys.sorted()
        guard !parts.isEmpty || draftValue != nil else { return (outcome, named) }
        let recordsLine = "origin's record\(parts.count == 1 ? "" : "s") of part\(parts.count == 1 ? "" : "s") " + parts.joined(separator: ", ") + " (\(OriginParts.prefix)\(lane)/…)"
        let draftLine = "origin's word of the draft release (\(draftRef))"
        if dryRun {
            if !parts.isEmpty { outcome.undone.append("delete " + recordsLine) }
            if draftValue != nil { outcome.undone.append("delete " + draftLine) }
            return (outcome, named)
        }
        let swaps = parts.map { RefSwap.delete(OriginParts.reference(lane: lane, part: $0), expected: leftovers.parts[$0]) }
            + (draftValue.map { [RefSwap.delete(draftRef, expected: $0)] } ?? [])
        do {
            let result = try await gitOffThePool {
                let (repository, credentials) = try OriginParts.connection(workTree: workTree, environment: environment)
                return try repository.compareAndSwap(remote: OriginParts.remote, swaps, credentials: credentials)
            }
            switch result {
            case .swapped:
                if !parts.isEmpty { outcome.undone.append("deleted " + recordsLine) }
                if draftValue != nil { outcome.undone.append("deleted " + draftLine) }
            case .moved(let ref, _):
                outcome.failed.append("origin's \(ref) changed while rollback read it (a part job is running?): nothing on origin was deleted")
            case .refused(let pushed):
                outcome.failed.append("origin refused to delete " + pushed.refused.map { "\($0.ref) (\($0.reason))" }.joined(separator: ", "))
            }
        } catch {
            outcome.failed.append("could not delete the part records on origin: \(describe(error))")
        }
        return (outcome, named)
    }

    private enum DraftOutcome {
        case deleted(String)
        case stays(String)
    }

    /// The HTTP transport of work outside a lane's steps (rollback, the fan-in's clean-up): the
    /// environment's retries, its secrets and `token` redacted.
    static func transport(environment: LaneEnvironment, token: String) -> HTTPTransport {
        HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(environment: environment),
                      redactor: SecretRedactor(secrets: Array(environment.secretValues) + [token]))
    }

    /// Deletes the parts' draft release `draft` while it is still a draft with the placeholder tag
    /// the part job gave it (a fan-in that took it over gave it the release's tag), on whichever
    /// forge with drafts made it (`PartsDraftForge`: GitHub, Gitea), through the same host the
    /// part jobs used. A draft on a forge that has none registered stays, said so.
    /// - Throws: when no token is set or the forge refuses.
    private static func deleteDraft(_ draft: PartsDraft, environment: LaneEnvironment, dryRun: Bool) async throws -> DraftOutcome {
        guard let forge = ForgeKind(rawValue: draft.forge)?.forge as? any PartsDraftForge.Type else {
            return .stays("the parts' draft release \(draft.releaseID) is on \(draft.forge), which this Shiplane does not roll back: delete it by hand")
        }
        guard let host = try forge.partsDrafts(api: draft.api, repository: draft.repository, environment: environment) else {
            throw ShiplaneError("the parts' draft release \(draft.releaseID) on \(forge.displayName) \(draft.repository) stays: set \(forge.partsDraftsToken) so rollback can delete it, then run `shiplane rollback` again")
        }
        return try await deleteDraft(draft, on: host, dryRun: dryRun)
    }

    /// `deleteDraft` on `host`, the forge's releases.
    private static func deleteDraft(_ draft: PartsDraft, on host: some PartsDraftHost, dryRun: Bool) async throws -> DraftOutcome {
        guard let release = try await host.release(id: draft.releaseID).map(host.facts) else {
            return .deleted("the parts' draft release \(draft.releaseID) \(host.place) was gone already")
        }
        guard release.draft, release.tag == draft.tag else {
            return .stays("the draft release \(draft.releaseID) \(host.place) is no longer as the parts left it ("
                + (release.draft ? "its tag is \(release.tag)" : "published as \(release.tag)")
                + "): a fan-in took it over; finish or roll back that run where it ran (`shiplane resume`, `shiplane rollback`)")
        }
        if !dryRun { try await host.deleteRelease(id: release.id) }
        return .deleted((dryRun ? "delete" : "deleted") + " the parts' draft release \(release.id) \(host.place)" + PartsDraftOrphans.assetList(release))
    }

    /// Deletes the drafts part jobs made and never claimed on origin (stopped between the forge's
    /// answer and their compare-and-swap), of `lane` (nil: any), found by their placeholder tag and
    /// `PartsDraftMarker` on every forge with drafts where part jobs may have made them: the
    /// releases of origin's repository on the forge origin is on (`ForgeChoice`: the settings, the
    /// host, the CI; every forge with drafts when nothing says which), as `.github()` or `.gitea()`
    /// finds them, and the releases holding the drafts origin names (`named`, which stay: their
    /// own rollback deletes them). Each is deleted only while it is as listed
    /// (`PartsDraftOrphans.clean`). A forge with no token set is not asked.
    private static func unclaimedDrafts(
        workTree: String, environment: LaneEnvironment, lane: String?, except named: [PartsDraft], dryRun: Bool
    ) async -> [String: (undone: [String], stays: [String], failed: [String])] {
        var found: [String: (undone: [String], stays: [String], failed: [String])] = [:]
        func fail(_ line: String) { found[lane ?? "", default: ([], [], [])].failed.append(line) }
        let forges = Forges.all.compactMap { $0 as? any PartsDraftForge.Type }
        var hosts: [any PartsDraftHost] = []
        // origin's URL as configured (not as `insteadOf` rewrites it), as a part job's `draft:` reads it.
        if let origin = (try? git({ try RepositoryAccess.open(at: workTree).configString("remote.\(OriginParts.remote).url") })) ?? nil {
            do {
                let settings = try ProjectSettings.load(root: workTree).forge
                let chosen = (try? ForgeChoice.choose(explicit: nil, settings: settings, environment: environment.variables, originURL: origin))?.forge.kind
                for forge in forges where chosen == nil || forge.kind == chosen {
                    do {
                        if let host = try forge.partsDrafts(origin: origin, settings: settings, environment: environment) { hosts.append(host) }
                    } catch where chosen == nil {
                        // Nothing says origin is on this forge, and it cannot be found there: not asked.
                    } catch {
                        fail("could not find origin's repository on \(forge.displayName) to look for drafts part jobs left unclaimed: \(describe(error))")
                    }
                }
            } catch {
                fail("could not read the forge settings to look for drafts part jobs left unclaimed: \(describe(error))")
            }
        }
        for draft in named {
            guard let forge = forges.first(where: { $0.kind.rawValue == draft.forge }),
                  let host = try? forge.partsDrafts(api: draft.api, repository: draft.repository, environment: environment) else { continue }
            hosts.append(host)
        }
        var asked: Set<String> = []
        for host in hosts where asked.insert("\(host.kind.rawValue) \(host.api) \(host.repositoryName)").inserted {
            let claimed = Set(named.filter { $0.forge == host.kind.rawValue && $0.api == host.api && $0.repository == host.repositoryName }.map(\.releaseID))
            do {
                let fates = try await PartsDraftOrphans.clean(host, claimed: claimed, dryRun: dryRun) {
                    lane == nil || $0.lane == lane
                }
                for (marker, fate) in fates {
                    switch fate {
                    case .deleted(let line): found[marker.lane, default: ([], [], [])].undone.append(line)
                    case .stays(let line): found[marker.lane, default: ([], [], [])].stays.append(line)
                    case .failed(let line): found[marker.lane, default: ([], [], [])].failed.append(line)
                    }
                }
            } catch {
                fail("could not look \(host.place) for drafts part jobs left unclaimed: \(describe(error))")
            }
        }
        return found
    }
}

extension RunRecord {
    /// True for the record of a fan-in job (`--fan-in`: its steps took parts from origin) that is
    /// past its point of no return: rolling it back leaves nothing for its parts to finish, so
    /// `shiplane rollback` rolls them back with it (`PartsRollback`), as one release. (A part job
    /// never passes a point of no return: it publishes nothing.)
    package var isFanInPastItsPoint: Bool {
        pointOfNoReturn != nil && steps.contains { $0.name == CollectPart.name }
    }
}
