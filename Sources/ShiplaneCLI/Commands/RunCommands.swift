import Foundation
import Shiplane

/// An earlier run in this repository did not finish, and this command is not its re-run.
struct UnfinishedRun: ReportableError {
    var record: RunRecord
    /// True when the record was found on origin, not in this checkout.
    var onRemote = false
    /// True when this checkout is at the release commit of the record found on origin.
    var atThisCommit = false

    var message: String {
        "an earlier run did not finish: `\(record.commandLine)`"
            + (record.pointOfNoReturn == nil ? "" : ", stopped past its point of no return")
    }

    var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = [
            ("started", ISO8601DateFormatter().string(from: record.startedAt) + " by pid \(record.pid) on \(record.host)"),
        ]
        if let noReturn = record.pointOfNoReturn { facts.append(("point of no return", noReturn)) }
        let open = record.effects.filter { $0.status == .done || $0.status == .intended }
        if !open.isEmpty { facts.append(("its undo would", open.map(\.description).joined(separator: "; "))) }
        return facts
    }

    var suggestion: String? {
        if onRemote, atThisCommit {
            return "origin holds the record (\(RemoteRunRecord.reference)) of another command's unfinished release at this commit: "
                + "finish it by running `\(record.commandLine)` here, or delete the record with `git push origin :\(RemoteRunRecord.reference)` if the release is done"
        }
        if onRemote {
            return "origin holds the record (\(RemoteRunRecord.reference)) of a release this checkout is not at (its release commit is \(record.releaseCommit.map { String($0.prefix(7)) } ?? "unknown")): "
                + "finish it from a checkout of that commit with `\(record.commandLine)`, or delete the record with `git push origin :\(RemoteRunRecord.reference)` if the release is done"
        }
        if record.argumentsDigest != nil {
            // The record keeps a secret option as ***: only the command with the secret resumes it.
            return "finish it by running `\(record.commandLine)` again with the secret option's real value, or undo it with `shiplane rollback`"
        }
        return "finish it with `shiplane resume` (or by running `\(record.commandLine)` again), or undo it with `shiplane rollback`"
    }

    var category: ErrorCategory { .unfinished }
}

/// Sets a live run up with its on-disk record: takes the repository's lock, refuses to start
/// over an unfinished run of another command, and resumes an unfinished run of the same one.
enum DurableRun {
    /// Takes the lock and starts the record; nil when `root` has no git folder to keep it in.
    /// - Throws: `RunLocked` (another run is going), `UnfinishedRun` (another command's run
    ///   stopped unfinished), or an error writing the record.
    /// `fromOrigin`: the unfinished run found on origin that this run resumes (the command
    /// starts again as its resume, see `ResumingFromOrigin`).
    static func begin(
        lane: String, arguments: [String], root: String, context: LaneContext, session: CommandSession, fromOrigin: RunRecord? = nil
    ) async throws -> RunRecorder? {
        let store: RunStore
        do {
            store = try RunStore.forWorkTree(root)
        } catch is RepositoryProblem {
            return nil
        }
        let record = RunRecord(
            lane: lane, arguments: arguments, pid: getpid(), host: RunRecord.currentHost,
            startedAt: Date(), workTree: root
        )
        try store.lock(holder: record)
        do {
            // Holding the run lock: an index lock a killed run left is stale; another program's stops the run.
            if let removed = try StaleIndexLock.clear(root: root) { session.err.line(removed) }
            var previous = try store.load()
            if let stale = previous, let shown = finishedElsewhere(stale, root: root, session: session) {
                store.clear()
                RemoteRunRecord.deleteLocalCopy(workTree: root, scope: stale.packageScope)
                session.err.line(
                    "The unfinished run of `\(stale.commandLine)` recorded here was finished elsewhere (\(shown)): "
                        + "retired its local record instead of resuming it."
                )
                if stale.isRun(of: lane, arguments: arguments) { throw RunFinishedElsewhere(record: stale) }
                previous = nil
            }
            if previous == nil, let fromOrigin {
                previous = fromOrigin
            } else if previous == nil, session.globals.part == nil {
                // A part's job never resumes origin's record: that is the fan-in job's run.
                switch RemoteRunRecord.look(environment: session.laneEnvironment.variables) {
                case .now: previous = try remoteRecord(root: root, session: session, scope: RunRecord.packageScope(lane: lane, arguments: arguments))
                case .beforeFirstEffect: lookBeforeFirstEffect(lane: lane, arguments: arguments, root: root, context: context, session: session)
                case .never: break
                }
            }
            if let previous, !previous.isRun(of: lane, arguments: arguments) {
                throw UnfinishedRun(record: previous, onRemote: previous.fetchedFromRemote == true, atThisCommit: true)
            }
            let recorder = try RunRecorder(
                store: store, record: record, resuming: previous, redactor: SecretRedactor(secrets: Array(session.laneEnvironment.secretValues)))
            try await context.journal.record(with: recorder, environment: session.laneEnvironment)
            if let previous {
                let done = previous.steps.filter { $0.outcome == .succeeded }.count
                session.err.line(
                    "Resuming the unfinished run of `\(previous.commandLine)` (started \(ISO8601DateFormatter().string(from: previous.startedAt))):"
                        + " \(done) step\(done == 1 ? "" : "s") already done return their results; the rest runs."
                )
            }
            return recorder
        } catch {
            store.unlock()
            throw error
        }
    }
}

extension DurableRun {
    /// How long the first effect waits for origin's answer before the run goes on without it.
    static let originLookTimeout: Double = 10

    /// Starts the look at origin's record in the background when the lane starts its first step
    /// (a lane with no step never looks) and makes the run's first effect wait for it: a lane that
    /// only reads never waits. What it finds stops the run before that effect:
    /// the same command at this commit restarts as its resume (`ResumingFromOrigin`), anything
    /// else is an `UnfinishedRun` (exit 7) that says which command finishes it.
    static func lookBeforeFirstEffect(lane: String, arguments: [String], root: String, context: LaneContext, session: CommandSession) {
        let look = OriginLook(root: root, environment: session.laneEnvironment, scope: RunRecord.packageScope(lane: lane, arguments: arguments))
        let err = session.err
        context.journal.holdFirstEffect(begin: { look.start() }) {
            var found: (record: RunRecord, head: String)
            switch look.wait(seconds: originLookTimeout) {
            case nil:
                err.line("warning: origin did not say within \(Int(originLookTimeout)) s whether it holds an unfinished run (\(RemoteRunRecord.reference)); going on without it")
                return
            case .failure(let error)?:
                err.line("warning: could not look for an unfinished run on origin: \(describe(error))")
                return
            case .success(nil)?:
                return
            case .success(let record?)?:
                // A record of a push this checkout took back, which origin applied late.
                if let said = try TakenBackRecord.lateRecord(record.record, workTree: root, environment: session.laneEnvironment) {
                    err.line("warning: " + said)
                    return
                }
                found = record
            }
            if let moved = catchUp(found, root: root, session: session) { found.head = moved }
            let atThisCommit = found.record.releaseCommit == nil || found.record.releaseCommit == found.head
            guard atThisCommit, found.record.isRun(of: lane, arguments: arguments) else {
                throw UnfinishedRun(record: found.record, onRemote: true, atThisCommit: atThisCommit)
            }
            throw ResumingFromOrigin(record: found.record)
        }
    }
}

extension DurableRun {
    /// This checkout moved forward to the release commit of origin's unfinished run, when it is
    /// at the commit that run started from (`RemoteRunRecord.catchUp`: a CI retry's checkout of
    /// the trigger commit), said on stderr; nil when it did not move (a failure to move is a
    /// warning: the caller stops as before, since the checkout is not at the release).
    static func catchUp(_ found: (record: RunRecord, head: String), root: String, session: CommandSession) -> String? {
        do {
            guard let moved = try RemoteRunRecord.catchUp(found.record, head: found.head, workTree: root, remote: "origin", environment: session.laneEnvironment)
            else { return nil }
            session.err.line("This checkout was at \(found.head.prefix(7)), the commit the unfinished release of `\(found.record.commandLine)` started from; "
                + "origin's branch holds its release commit \(moved.prefix(7)), so the checkout moved forward to it to finish the release.")
            return moved
        } catch {
            session.err.line("warning: could not move this checkout to the unfinished release's commit: \(describe(error))")
            return nil
        }
    }

    /// A dry run changes nothing, so it has no first effect to look before: it looks at once (when
    /// the real run would) and says when the real run would not do what the plan shows — it would
    /// resume an unfinished run, here or on origin, or be refused.
    static func noteUnfinishedRunForDryRun(lane: String, arguments: [String], root: String, session: CommandSession) {
        guard let store = try? RunStore.forWorkTree(root) else { return }
        var found = (try? store.load()) ?? nil
        var place = "in this checkout"
        if found == nil, RemoteRunRecord.look(environment: session.laneEnvironment.variables) != .never {
            let look = OriginLook(root: root, environment: session.laneEnvironment, scope: RunRecord.packageScope(lane: lane, arguments: arguments))
            if case .success(let remote?)? = look.wait(seconds: originLookTimeout) {
                guard remote.record.releaseCommit == nil || remote.record.releaseCommit == remote.head else {
                    if remote.record.startCommit == remote.head {
                        session.err.line("Note: origin holds the unfinished run of `\(remote.record.commandLine)` (\(RemoteRunRecord.reference)), started from this commit: the real run would move this checkout forward to its release commit when origin's branch holds it, and resume it, not do what this plan shows.")
                        return
                    }
                    session.err.line("Note: origin holds the unfinished run of `\(remote.record.commandLine)` (\(RemoteRunRecord.reference)) for another commit: the real run would stop with exit 7.")
                    return
                }
                found = remote.record
                place = "on origin (\(RemoteRunRecord.reference))"
            }
        }
        guard let found else { return }
        if found.isRun(of: lane, arguments: arguments) {
            session.err.line("Note: the unfinished run of `\(found.commandLine)` is recorded \(place): the real run would resume it (its steps done so far return their recorded results), not do what this plan shows.")
        } else {
            session.err.line("Note: the unfinished run of `\(found.commandLine)` is recorded \(place): the real run would stop with exit 7 until it is finished or rolled back.")
        }
    }
}

/// A look at origin's run record (`RemoteRunRecord.fetch`) going on in a thread of its own, with a
/// repository handle of its own: the lane's git actions do not wait for the network.
final class OriginLook: @unchecked Sendable {
    // @unchecked: the `let`s are set in `init`; `answered`, `found`, `failure` and `started` are
    // only touched under `condition`.
    private let condition = NSCondition()
    // Not one stored `Result`: a generic field makes the class's metadata check `Failure: Error`
    // when the first look is made, a scan of every conformance of the program, on the start of
    // every lane (a lane that never looks included).
    private var answered = false
    private var found: (record: RunRecord, head: String)?
    private var failure: (any Error)?
    private var started = false
    private let root: String
    private let environment: LaneEnvironment
    /// The package a `bump --package` run releases: it looks for that package's record.
    private let scope: String?

    init(root: String, environment: LaneEnvironment, scope: String? = nil) {
        self.root = root
        self.environment = environment
        self.scope = scope
    }

    /// Starts the look on a thread of its own; later calls do nothing.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        started = true
        let (root, environment, scope) = (root, environment, scope)
        let thread = Thread { [self] in
            var looked: (record: RunRecord, head: String)?
            var error: (any Error)?
            do {
                looked = try RemoteRunRecord.fetch(workTree: root, remote: "origin", environment: environment, ownHandle: true, scope: scope)
            } catch let thrown {
                error = thrown
            }
            condition.lock()
            (answered, found, failure) = (true, looked, error)
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// What the look found (started here if it has not started), waiting up to `seconds` for it;
    /// nil when it has not answered by then.
    func wait(seconds: Double) -> Result<(record: RunRecord, head: String)?, any Error>? {
        start()
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !answered {
            if !condition.wait(until: deadline) { break }
        }
        guard answered else { return nil }
        if let failure { return .failure(failure) }
        return .success(found)
    }
}

/// The run being re-run (or resumed) was finished elsewhere; its stale local record was retired.
struct RunFinishedElsewhere: Error {
    var record: RunRecord
}

extension DurableRun {
    /// What origin shows when the local record's run was finished elsewhere, else nil (also when
    /// origin cannot be reached: then the run resumes as before, with a warning).
    static func finishedElsewhere(_ record: RunRecord, root: String, session: CommandSession) -> String? {
        do {
            return try RemoteRunRecord.finishedElsewhere(record, workTree: root, environment: session.laneEnvironment)
        } catch {
            session.err.line("warning: could not ask \(record.remoteRecord ?? "origin") whether the unfinished run was finished elsewhere: \(describe(error))")
            return nil
        }
    }

    /// The unfinished run recorded on origin, when this checkout is at its release commit.
    /// - Throws: `UnfinishedRun` when origin holds a record of a run this checkout cannot finish
    ///   (another commit): releasing again would make a second version.
    static func remoteRecord(root: String, session: CommandSession, scope: String? = nil) throws -> RunRecord? {
        let found: (record: RunRecord, head: String)?
        do {
            found = try RemoteRunRecord.fetch(workTree: root, remote: "origin", environment: session.laneEnvironment, scope: scope)
        } catch {
            session.err.line("warning: could not look for an unfinished run on origin: \(describe(error))")
            return nil
        }
        guard var found else { return nil }
        if let said = try TakenBackRecord.lateRecord(found.record, workTree: root, environment: session.laneEnvironment) {
            session.err.line("warning: " + said)
            return nil
        }
        if let moved = DurableRun.catchUp(found, root: root, session: session) { found.head = moved }
        guard found.record.releaseCommit == nil || found.record.releaseCommit == found.head else {
            throw UnfinishedRun(record: found.record, onRemote: true)
        }
        session.err.line("Found the unfinished run of `\(found.record.commandLine)` recorded on origin (\(RemoteRunRecord.reference)).")
        return found.record
    }
}

/// `shiplane rollback [--forget]` (RollbackCommand.swift) and `shiplane resume`: settle a run that did not finish.
enum RunCommands {
    /// The command line that resumes the unfinished run, or nil when there is none.
    static func resumeArguments(session: CommandSession) throws -> [String]? {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let store = try RunStore.forWorkTree(root)
        guard let record = try store.load() else { return nil }
        if store.isLocked { throw RunLocked(holder: record, lockPath: store.folder + "/lock") }
        if record.argumentsDigest != nil {
            throw ShiplaneError(
                "the unfinished run of `\(record.commandLine)` was started with a secret on its command line, which its record does not keep",
                suggestion: "run that command again with the same options (the secret included) to resume it, or `shiplane rollback`"
            )
        }
        return [record.lane] + record.arguments
    }
}

