import Foundation
import Shiplane

/// `shiplane rollback [--forget] [--dry-run]`: undo a run that did not finish, from its record —
/// this checkout's, or else the one origin holds (`refs/shiplane/run`: a fresh clone, a CI job
/// after the runner that ran the release was lost) — and say what stays.
extension RunCommands {
    /// Undoes an unfinished run as far as it safely can, from its record, and says what stays.
    /// `forget`: drop the record without undoing anything. With `--dry-run` it only reads, and
    /// lists what it would undo and what would stay.
    static func rollback(session: CommandSession, forget: Bool) async throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let store = try RunStore.forWorkTree(root)
        let dryRun = session.globals.dryRun
        try store.lock()
        defer { store.unlock() }
        var found = try store.load()
        var place = ""
        if found == nil, !forget, let remote = originRecord(root: root, session: session) {
            found = remote
            place = " recorded on origin (\(RemoteRunRecord.reference))"
        }
        guard let record = found else {
            if !forget, let rolledBack = try await rollbackParts(root: root, session: session, dryRun: dryRun) { return rolledBack }
            session.out.line("No unfinished run in this repository or on origin: nothing to roll back.")
            return ShiplaneExitCode.success.rawValue
        }
        if forget {
            if dryRun {
                session.out.line("Would forget the unfinished run of `\(record.commandLine)` (dry run: nothing was changed).")
                return ShiplaneExitCode.success.rawValue
            }
            forgetRemoteRecord(of: record, root: root, session: session)
            store.clear()
            session.out.line("Forgot the unfinished run of `\(record.commandLine)`; nothing was changed.")
            return ShiplaneExitCode.success.rawValue
        }
        // Lane code's own effect kinds are undone by the lane program, compiled (or found in the
        // cache) only when the record holds one.
        let elsewhere = LaneEffectUndo.elsewhere(workTree: root, store: store, environment: session.laneEnvironment.variables) {
            try ShiplaneCommandLine.compileLanes(
                root: root, session: session, environment: session.laneEnvironment.variables, executable: ShiplaneCommandLine.executablePath()
            ).lanes.executable
        }
        let outcome = try await RecordedRollback(store: store, workTree: root, environment: session.laneEnvironment, undoElsewhere: elsewhere)
            .run(record, planOnly: dryRun)
        session.out.line((dryRun ? "Would roll back" : "Rolling back") + " the unfinished run of `\(record.commandLine)`\(place)"
            + (dryRun ? " (dry run: nothing is changed)" : "") + ":")
        for line in outcome.lines {
            session.out.line("  " + (dryRun && line.hasPrefix("undone: ") ? "would undo: " + line.dropFirst("undone: ".count) : line))
        }
        if !outcome.failed.isEmpty, !dryRun {
            try store.save(outcome.record)
            throw ShiplaneError(
                "rollback could not undo \(outcome.failed.count) effect\(outcome.failed.count == 1 ? "" : "s")",
                info: outcome.failed.map { ("kept", $0) },
                suggestion: "fix what is named and run `shiplane rollback` again, or `shiplane rollback --forget` to keep things as they are"
            )
        }
        // A fan-in past its point of no return: its parts go with it, the release is rolled back as one.
        var stays = !outcome.stays.isEmpty
        if outcome.record.isFanInPastItsPoint {
            let parts: [PartsRollback.Outcome]
            do {
                parts = try await PartsRollback.run(workTree: root, environment: session.laneEnvironment, lane: record.lane, dryRun: dryRun)
            } catch {
                if !dryRun { try store.save(outcome.record) }
                throw ShiplaneError(
                    "rollback could not reach origin for the parts of the release (refs/shiplane/parts/\(record.lane)/…): \(describe(error))",
                    suggestion: "run `shiplane rollback` again once origin can be reached: the run's record is kept until its parts are rolled back")
            }
            let failed = printParts(parts, dryRun: dryRun, session: session)
            stays = stays || parts.contains { !$0.stays.isEmpty }
            if !failed.isEmpty, !dryRun {
                try store.save(outcome.record)
                throw ShiplaneError(
                    "rollback could not undo \(failed.count) thing\(failed.count == 1 ? "" : "s") the release's parts left",
                    info: failed.map { ("kept", $0) },
                    suggestion: "fix what is named and run `shiplane rollback` again")
            }
        }
        if dryRun {
            if let remote = record.remoteRecord {
                session.out.line("  would undo: delete \(remote)'s run record (\(RemoteRunRecord.reference(scope: record.packageScope)))")
            }
            session.out.line("Dry run: nothing was changed.")
            return ShiplaneExitCode.success.rawValue
        }
        if forgetRemoteRecord(of: record, root: root, session: session), let remote = record.remoteRecord, !place.isEmpty {
            session.out.line("  undone: deleted \(remote)'s run record (\(RemoteRunRecord.reference(scope: record.packageScope)))")
        }
        store.clear()
        session.out.line(stays ? "Rolled back as far as it safely can; the rest stays (listed above)." : "Rolled back completely.")
        return ShiplaneExitCode.success.rawValue
    }

    /// The unfinished run origin records (`refs/shiplane/run`), for a checkout with none of its own;
    /// nil when origin holds none, or cannot be reached (said as a warning).
    private static func originRecord(root: String, session: CommandSession) -> RunRecord? {
        guard RemoteRunRecord.look(environment: session.laneEnvironment.variables) != .never else { return nil }
        do {
            return try RemoteRunRecord.fetch(workTree: root, remote: "origin", environment: session.laneEnvironment)?.record
        } catch {
            session.err.line("warning: could not look on origin for an unfinished run (\(RemoteRunRecord.reference)): \(describe(error))")
            return nil
        }
    }

    /// Prints what rolling back the parts of fanned-out releases did (or would do); returns what failed.
    private static func printParts(_ outcomes: [PartsRollback.Outcome], dryRun: Bool, session: CommandSession) -> [String] {
        var failed: [String] = []
        for outcome in outcomes {
            for line in outcome.undone { session.out.line("  " + (dryRun ? "would undo: " : "undone: ") + line) }
            for line in outcome.stays { session.out.line("  stays: " + line) }
            for line in outcome.failed { session.out.line("  kept: " + line) }
            failed += outcome.failed
        }
        return failed
    }

    /// No run here or on origin: rolls back what a release fanned out over CI jobs whose fan-in
    /// never ran left (its part records, its word of the draft release, the draft release while
    /// it is as the parts left it, drafts part jobs made and never claimed), lane by lane, and
    /// says what it did; nil when there is none.
    private static func rollbackParts(root: String, session: CommandSession, dryRun: Bool) async throws -> Int32? {
        let outcomes: [PartsRollback.Outcome]
        do {
            outcomes = try await PartsRollback.run(workTree: root, environment: session.laneEnvironment, dryRun: dryRun)
        } catch {
            session.err.line("warning: could not look on origin for the parts of a release fanned out over CI jobs (refs/shiplane/parts/…): \(error)")
            return nil
        }
        guard !outcomes.isEmpty else { return nil }
        var failed: [String] = []
        var stays = false
        for outcome in outcomes {
            session.out.line((dryRun ? "Would roll back" : "Rolling back") + " the release of `\(outcome.lane)` fanned out over CI jobs, whose fan-in never ran (its parts are on origin)"
                + (dryRun ? " (dry run: nothing is changed)" : "") + ":")
            failed += printParts([outcome], dryRun: dryRun, session: session)
            stays = stays || !outcome.stays.isEmpty
        }
        if dryRun {
            session.out.line("Dry run: nothing was changed.")
            return ShiplaneExitCode.success.rawValue
        }
        guard failed.isEmpty else {
            throw ShiplaneError(
                "rollback could not undo \(failed.count) thing\(failed.count == 1 ? "" : "s") the release's parts left",
                info: failed.map { ("kept", $0) },
                suggestion: "fix what is named and run `shiplane rollback` again")
        }
        session.out.line(stays ? "Rolled back as far as it safely can; the rest stays (listed above)." : "Rolled back completely.")
        return ShiplaneExitCode.success.rawValue
    }

    /// Deletes the copy of the record the run pushed to its remote, once the run is settled here:
    /// a fresh clone must not resume what was rolled back or forgotten. True when it is gone
    /// (deleted now, or none there); a record that could not be deleted is said as a warning.
    @discardableResult
    private static func forgetRemoteRecord(of record: RunRecord, root: String, session: CommandSession) -> Bool {
        guard let remote = record.remoteRecord else { return false }
        guard let warning = RemoteRunRecord.remove(workTree: root, remote: remote, environment: session.laneEnvironment, runID: record.id) else { return true }
        session.err.line("warning: " + warning)
        return false
    }
}
