import Foundation

/// The parts' drafts part jobs made on a forge with drafts (GitHub, Gitea) and never claimed on
/// origin (issue 42): a job stopped between the forge's making of its draft and its
/// compare-and-swap, or killed after another job's draft won that swap and before it deleted its
/// own. The fan-in (once it published) and `shiplane rollback` delete them, each only while it is
/// still as the stopped job left it.
enum PartsDraftOrphans {
    /// What became of one unclaimed draft.
    enum Fate: Sendable {
        /// Deleted (a dry run: would be); the line says which.
        case deleted(String)
        /// Changed since it was listed: left as it is, and why.
        case stays(String)
        /// The forge refused or could not be reached.
        case failed(String)
    }

    /// Deletes every parts' draft of `host`'s repository that carries Shiplane's
    /// `PartsDraftMarker` with its placeholder tag, for which `belongs` holds, and that no record
    /// claims (`claimed`: the drafts origin or the run names). No forge has a conditional delete,
    /// so each is read again just before its deletion and deleted only when it is still exactly
    /// as listed (a draft, its tag, name, body and files): the journal's compare-and-swap rule,
    /// with the narrowest window the forge allows. A draft without the marker (a person's) or of
    /// another release (`belongs` false) is never touched. `dryRun`: only reads.
    /// - Throws: when the releases cannot be listed (nothing deleted).
    static func clean(_ host: some PartsDraftHost, claimed: Set<Int>, dryRun: Bool,
                      belongs: (PartsDraftMarker) -> Bool) async throws -> [(marker: PartsDraftMarker, fate: Fate)] {
        var fates: [(marker: PartsDraftMarker, fate: Fate)] = []
        for listed in try await host.releases().map(host.facts) where !claimed.contains(listed.id) {
            guard let marker = PartsDraftMarker.of(listed), belongs(marker) else { continue }
            let line = "the unclaimed draft release \(listed.id) (\(listed.tag)) on \(host.repositoryName) that a stopped part job of `\(marker.lane)` made" + assetList(listed)
            do {
                guard let now = try await host.release(id: listed.id).map(host.facts) else { continue }
                let changes = changes(from: listed, to: now)
                guard changes.isEmpty else {
                    fates.append((marker, .stays(line + " changed while it was looked at (" + changes.joined(separator: ", ") + "): left as it is")))
                    continue
                }
                if !dryRun { try await host.deleteRelease(id: listed.id) }
                fates.append((marker, .deleted((dryRun ? "delete " : "deleted ") + line)))
            } catch {
                fates.append((marker, .failed(line + ": " + describe(error))))
            }
        }
        return fates
    }

    /// What differs between two readings of one release, one phrase each.
    static func changes(from before: PartsDraftRelease, to after: PartsDraftRelease) -> [String] {
        var changes: [String] = []
        if !after.draft { changes.append("published") }
        if after.tag != before.tag { changes.append("its tag is now \(after.tag)") }
        if after.name != before.name { changes.append("renamed") }
        if after.body != before.body { changes.append("its notes were edited") }
        let assets = { (release: PartsDraftRelease) in release.assets.map { $0.name + " " + $0.fingerprint }.sorted() }
        if assets(after) != assets(before) { changes.append("its assets changed") }
        return changes
    }

    /// ` (N assets: a, b)` for a release with assets, else nothing.
    static func assetList(_ release: PartsDraftRelease) -> String {
        let names = release.assets.map(\.name).sorted()
        return names.isEmpty ? "" : " (\(names.count) asset\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", ")))"
    }
}
