import Foundation

/// What every step of one run shares: the step counter and records, the journal, the reporter.
final class RunState: @unchecked Sendable {
    let reporter: any Reporting
    let journal: Journal
    let now: @Sendable () -> Date
    private let lock = NSLock()
    private var records: [StepRecord] = []
    private var versionChanges: [String] = []

    init(reporter: any Reporting, journal: Journal, now: @escaping @Sendable () -> Date) {
        self.reporter = reporter
        self.journal = journal
        self.now = now
    }

    func start(name: String, callSite: CallSite?, options: [StepOption], depth: Int) -> StepRecord {
        lock.lock()
        let record = StepRecord(
            number: records.count + 1, name: name, callSite: callSite, options: options,
            depth: depth, startedAt: now()
        )
        records.append(record)
        lock.unlock()
        reporter.report(.stepStarted(record))
        return record
    }

    func finish(_ number: Int, outcome: StepOutcome, error: String? = nil) {
        lock.lock()
        guard number >= 1, number <= records.count else {
            lock.unlock()
            return
        }
        var record = records[number - 1]
        record.outcome = outcome
        record.duration = now().timeIntervalSince(record.startedAt)
        record.error = error
        records[number - 1] = record
        lock.unlock()
        reporter.report(.stepFinished(record))
    }

    func setNote(_ number: Int, _ note: String) {
        lock.lock()
        if number >= 1, number <= records.count { records[number - 1].note = note }
        lock.unlock()
    }

    /// Remembers a file a release step changed (version files, CHANGELOG.md), so
    /// `commitVersionBump` commits exactly those.
    func recordReleaseFile(_ path: String) {
        lock.withLock { if !versionChanges.contains(path) { versionChanges.append(path) } }
    }

    /// The files release steps changed in this run, in the order they were first changed.
    var changedReleaseFiles: [String] { lock.withLock { versionChanges } }

    /// Forgets the changed files once they are committed.
    func clearReleaseFiles() { lock.withLock { versionChanges.removeAll() } }

    var steps: [StepRecord] {
        lock.lock()
        defer { lock.unlock() }
        return records
    }
}
