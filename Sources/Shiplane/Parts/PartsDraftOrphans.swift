import Foundation

/// The parts' drafts part jobs made on GitHub and never claimed on origin (issue 42): a job
/// stopped between GitHub's making of its draft and its compare-and-swap, or killed after another
/// job's draft won that swap and before it deleted its own. The fan-in (once it published) and
/// `shiplane rollback` delete them, each only while it is still as the stopped job left it.
enum PartsDraftOrphans {
    /// What became of one unclaimed draft.
    enum Fate: Sendable {
        /// Deleted (a dry run: would be); the line says which.
        case deleted(String)
        /// Changed since it was listed: left as it is, and why.
        case stays(String)
        /// GitHub refused or could not be reached.
        case failed(String)
    }

    /// Deletes every parts' draft on `repository` (through `client`) that carries Shiplane's
    /// `PartsDraftMarker` with its placeholder tag, for which `belongs` holds, and that no record
    /// claims (`claimed`: the drafts origin or the run names). GitHub has no conditional delete, so
    /// each is read again just before its deletion and deleted only when it is still exactly as
    /// listed (a draft, its tag, name, body and assets): the journal's compare-and-swap rule,
    /// with the narrowest window GitHub allows. A draft without the marker (a person's) or of
    /// another release (`belongs` false) is never touched. `dryRun`: only reads.
    /// - Throws: when the releases cannot be listed (nothing deleted).
    static func clean(client: GitHubClient, repository: String, claimed: Set<Int>, dryRun: Bool,
                      belongs: (PartsDraftMarker) -> Bool) async throws -> [(marker: PartsDraftMarker, fate: Fate)] {
        var fates: [(marker: PartsDraftMarker, fate: Fate)] = []
        for listed in try await client.listReleases() where !claimed.contains(listed.id) {
            guard let marker = PartsDraftMarker.of(listed), belongs(marker) else { continue }
            let line = "the unclaimed draft release \(listed.id) (\(listed.tagName)) on \(repository) that a stopped part job of `\(marker.lane)` made" + assetList(listed)
            do {
                guard let now = try await client.release(id: listed.id) else { continue }
                let changes = changes(from: listed, to: now)
                guard changes.isEmpty else {
                    fates.append((marker, .stays(line + " changed while it was looked at (" + changes.joined(separator: ", ") + "): left as it is")))
                    continue
                }
                if !dryRun { try await client.deleteRelease(id: listed.id) }
                fates.append((marker, .deleted((dryRun ? "delete " : "deleted ") + line)))
            } catch {
                fates.append((marker, .failed(line + ": " + describe(error))))
            }
        }
        return fates
    }

    /// What differs between two readings of one release, one phrase each.
    static func changes(from before: GitHubRelease, to after: GitHubRelease) -> [String] {
        var changes: [String] = []
        if !after.draft { changes.append("published") }
        if after.tagName != before.tagName { changes.append("its tag is now \(after.tagName)") }
        if after.name != before.name { changes.append("renamed") }
        if after.body != before.body { changes.append("its notes were edited") }
        let assets = { (release: GitHubRelease) in (release.assets ?? []).map { "\($0.id) \($0.name) \($0.size) \($0.digest ?? "")" }.sorted() }
        if assets(after) != assets(before) { changes.append("its assets changed") }
        return changes
    }

    /// ` (N assets: a, b)` for a release with assets, else nothing.
    static func assetList(_ release: GitHubRelease) -> String {
        let names = (release.assets ?? []).map(\.name).sorted()
        return names.isEmpty ? "" : " (\(names.count) asset\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", ")))"
    }
}
