import Foundation
@testable import Shiplane

/// The local run record of the repository at `workTree`, as one pretty-printed document: the file
/// (`.git/shiplane/run.json`) is the record written whole once and then a log of changes, which
/// this replays as `resume` reads it. Nil when there is no record.
func runRecordText(_ workTree: String) -> String? {
    guard let record = try? RunStore.forWorkTree(workTree).load() else { return nil }
    return (try? RunStore.encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) }
}
