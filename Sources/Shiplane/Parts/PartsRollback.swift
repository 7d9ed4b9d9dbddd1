import Foundation
internal import Git

/// `shiplane rollback` of a release fanned out over CI jobs whose fan-in never ran (issue 42):
/// no run record anywhere, only what the part jobs left on origin — their records
/// (`refs/shiplane/parts/LANE/PART`), their word of the draft release (`refs/shiplane/drafts/LANE`)
/// — and the draft release on the forge holding their artifacts.
package enum PartsRollback {
    /// What rolling back one lane's parts did.
    package struct Outcome: Sendable {
        /// The lane, as the command line names it.
        package var lane: String
        /// What was undone, one line each.
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

    /// Rolls back every fanned-out release that origin holds parts or a draft of, lane by lane;
    /// empty when origin holds none.
    /// - Throws: when origin cannot be reached (nothing changed).
    package static func run(workTree: String, environment: LaneEnvironment) async throws -> [Outcome] {
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
        var outcomes: [Outcome] = []
        for lane in lanes.keys.sorted() {
            if let leftovers = lanes[lane] { outcomes.append(await rollBack(lane: lane, leftovers, workTree: workTree, environment: environment)) }
        }
        return outcomes
    }

    /// Deletes `lane`'s draft release while it is as the parts left it, then origin's part records
    /// and word of the draft in one compare-and-swap push (each at the value read). A draft that
    /// changed (taken over by a fan-in, published, edited) is left, and so is everything on origin.
    private static func rollBack(lane: String, _ leftovers: Leftovers, workTree: String, environment: LaneEnvironment) async -> Outcome {
        var outcome = Outcome(lane: lane)
        let draftRef = OriginParts.draftReference(lane: lane)
        var draftValue = leftovers.draft
        if leftovers.draft != nil {
            do {
                let read = try await OriginParts.readDraft(lane: lane, workTree: workTree, environment: environment)
                draftValue = read?.value
                if let draft = read?.draft {
                    switch try await deleteDraft(draft, environment: environment) {
                    case .deleted(let line): outcome.undone.append(line)
                    case .stays(let why):
                        outcome.stays.append(why + "; origin's part records and \(draftRef) stay with it")
                        return outcome
                    }
                } else if read != nil {
                    outcome.undone.append("\(draftRef) names no draft release Shiplane can read: only the ref is deleted")
                }
            } catch {
                outcome.failed.append("the parts' draft release (\(draftRef)): \(describe(error))")
                return outcome
            }
        }
        let parts = leftovers.parts.keys.sorted()
        guard !parts.isEmpty || draftValue != nil else { return outcome }
        let swaps = parts.map { RefSwap.delete(OriginParts.reference(lane: lane, part: $0), expected: leftovers.parts[$0]) }
            + (draftValue.map { [RefSwap.delete(draftRef, expected: $0)] } ?? [])
        do {
            let result = try await gitOffThePool {
                let (repository, credentials) = try OriginParts.connection(workTree: workTree, environment: environment)
                return try repository.compareAndSwap(remote: OriginParts.remote, swaps, credentials: credentials)
            }
            switch result {
            case .swapped:
                if !parts.isEmpty {
                    outcome.undone.append("deleted origin's record\(parts.count == 1 ? "" : "s") of part\(parts.count == 1 ? "" : "s") "
                        + parts.joined(separator: ", ") + " (\(OriginParts.prefix)\(lane)/…)")
                }
                if draftValue != nil { outcome.undone.append("deleted origin's word of the draft release (\(draftRef))") }
            case .moved(let ref, _):
                outcome.failed.append("origin's \(ref) changed while rollback read it (a part job is running?): nothing on origin was deleted")
            case .refused(let pushed):
                outcome.failed.append("origin refused to delete " + pushed.refused.map { "\($0.ref) (\($0.reason))" }.joined(separator: ", "))
            }
        } catch {
            outcome.failed.append("could not delete the part records on origin: \(describe(error))")
        }
        return outcome
    }

    private enum DraftOutcome {
        case deleted(String)
        case stays(String)
    }

    /// Deletes the parts' draft release `draft` while it is still a draft with the placeholder tag
    /// the part job gave it (a fan-in that took it over gave it the release's tag).
    /// - Throws: when no token is set or the forge refuses.
    private static func deleteDraft(_ draft: PartsDraft, environment: LaneEnvironment) async throws -> DraftOutcome {
        guard draft.forge == ForgeKind.github.rawValue else {
            return .stays("the parts' draft release \(draft.releaseID) is on \(draft.forge), which this Shiplane does not roll back: delete it by hand")
        }
        let variables = environment.variables.merging(["GITHUB_API_URL": draft.api]) { $1 }
        guard let token = GitHubReleasePublisher.token(from: variables) else {
            throw ShiplaneError("the parts' draft release \(draft.releaseID) on \(draft.repository) stays: set GITHUB_TOKEN (or GH_TOKEN) so rollback can delete it, then run `shiplane rollback` again")
        }
        let transport = HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(environment: environment),
                                      redactor: SecretRedactor(secrets: Array(environment.secretValues) + [token]))
        let client = try GitHubClient(repository: try GitHubRepository(remoteURL: draft.repository), token: token, environment: variables,
                                      transport: transport, version: ShiplaneVersion.current)
        guard let release = try await client.release(id: draft.releaseID) else {
            return .deleted("the parts' draft release \(draft.releaseID) on \(draft.repository) was gone already")
        }
        guard release.draft, release.tagName == draft.tag else {
            return .stays("the draft release \(draft.releaseID) on \(draft.repository) is no longer as the parts left it ("
                + (release.draft ? "its tag is \(release.tagName)" : "published as \(release.tagName)")
                + "): a fan-in took it over; finish or roll back that run where it ran (`shiplane resume`, `shiplane rollback`)")
        }
        try await client.deleteRelease(id: release.id)
        let names = (release.assets ?? []).map(\.name).sorted()
        return .deleted("deleted the parts' draft release \(release.id) on \(draft.repository)"
            + (names.isEmpty ? "" : " (\(names.count) asset\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", ")))"))
    }
}
