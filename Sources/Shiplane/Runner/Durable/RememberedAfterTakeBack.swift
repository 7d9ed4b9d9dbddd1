import Foundation

/// What a checkout keeps for a while after its run took a cut-short push back (`UnlandedPush`),
/// in the run folder: the push's own refs that may still land (`PushMayStillLand`) and origin's
/// run record the push carried (`TakenBackRecord`). One JSON list per kind (0600, written
/// durably), each entry looked for `lookedForSeconds` and then dropped.
protocol RememberedAfterTakeBack: Codable, Sendable {
    /// The list's file in the run folder.
    static var fileName: String { get }
    /// The taken-back run's id.
    var runID: String { get }
    /// When the run took its push back.
    var takenBackAt: Date { get }
}

extension RememberedAfterTakeBack {
    /// How long a taken-back push is looked for: a remote that still holds a push a day later
    /// (a hook sleeping that long) is not expected; after that the entry is dropped.
    static var lookedForSeconds: TimeInterval { 24 * 60 * 60 }

    static func path(_ store: RunStore) -> String { store.folder + "/" + fileName }

    /// The entries still looked for; none when the file is missing or unreadable.
    static func load(_ store: RunStore) -> [Self] {
        guard let data = FileManager.default.contents(atPath: path(store)) else { return [] }
        let all = (try? RunStore.decoder.decode([Self].self, from: data)) ?? []
        return all.filter { Date().timeIntervalSince($0.takenBackAt) < lookedForSeconds }
    }

    /// Writes `all` durably, or removes the file when `all` is empty.
    /// - Returns: nil once written; else what could not be written and why, for the run to say.
    @discardableResult
    static func save(_ all: [Self], _ store: RunStore) -> String? {
        let file = path(store)
        guard !all.isEmpty else {
            guard unlink(file) == 0 || errno == ENOENT else { return "could not remove \(file): \(String(cString: strerror(errno)))" }
            return nil
        }
        do {
            try store.createRunFolder()
            try RunStore.writeDurably(try RunStore.encoder.encode(all), to: file)
            return nil
        } catch {
            return (error as? any ReportableError)?.message ?? "could not write \(file): \(error)"
        }
    }
}
