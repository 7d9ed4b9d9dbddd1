import Foundation

/// A unit of work a lane calls: a built-in action or a user's own, run as a recorded step.
///
/// The runner gives every action the same treatment: a step with name, call site, options
/// (secrets shown as `***`), timing and outcome; dry-run through `StepContext.isDryRun` and
/// the overlay file system; rollback through the effects it records (`StepContext.record`).
public protocol Action {
    /// What `run` returns to the lane; `Void` unless the action declares otherwise.
    associatedtype Output = Void
    /// The name shown in steps and reports (`ensureGitBranch`).
    static var name: String { get }
    /// The options as shown in steps and reports.
    var options: [StepOption] { get }
    /// Does the action's work as step `step`: reads and writes through the step's lane context,
    /// registers an undo for each side effect, and in a dry run writes nothing outside the overlay.
    /// - Throws: whatever stops the action; the runner wraps it in a `StepFailure` with the call site.
    func run(in step: StepContext) throws -> Output
    /// The run's outputs that this step's result gives (CI outputs such as `version`, `tag`,
    /// `release_url`), also when a resumed run replays the result; none unless the action says.
    /// - Parameter output: what `run` returned.
    func runOutputs(of output: Output) -> [(name: String, value: String)]
}

/// An action that awaits: runs commands, talks to servers.
public protocol AsyncAction {
    /// What `run` returns to the lane; `Void` unless the action declares otherwise.
    associatedtype Output = Void
    /// The name shown in steps and reports (`push`).
    static var name: String { get }
    /// The options as shown in steps and reports.
    var options: [StepOption] { get }
    /// Does the action's work as step `step`, awaiting commands and servers: reads and writes through
    /// the step's lane context, registers an undo for each side effect, and in a dry run writes nothing
    /// outside the overlay.
    /// - Throws: whatever stops the action; the runner wraps it in a `StepFailure` with the call site.
    func run(in step: StepContext) async throws -> Output
    /// The run's outputs that this step's result gives (CI outputs such as `version`, `tag`,
    /// `release_url`), also when a resumed run replays the result; none unless the action says.
    /// - Parameter output: what `run` returned.
    func runOutputs(of output: Output) -> [(name: String, value: String)]
}

extension Action {
    /// No options shown.
    public var options: [StepOption] { [] }
    /// No outputs.
    /// - Parameter output: what `run` returned.
    public func runOutputs(of output: Output) -> [(name: String, value: String)] { [] }
}

extension AsyncAction {
    /// No options shown.
    public var options: [StepOption] { [] }
    /// No outputs.
    /// - Parameter output: what `run` returned.
    public func runOutputs(of output: Output) -> [(name: String, value: String)] { [] }
}

/// What an action sees while it runs as a step.
public struct StepContext: Sendable {
    /// The lane context the step belongs to: repository, environment, file system, processes.
    public let lane: LaneContext
    /// The step's number in the run.
    public let number: Int

    /// True in a dry run: read for real, write nothing outside the overlay.
    public var isDryRun: Bool { lane.isDryRun }

    /// Logs a message under this step.
    public func log(_ message: String, level: LogLevel = .info) {
        lane.state.reporter.report(.message(message, level: level, step: number))
    }

    /// Leaves a short note on the step for the summary ("v1.2.0", "would run: make").
    public func note(_ text: String) {
        lane.state.setNote(number, text)
    }

    /// Replaces a file's bytes through the lane's file system (an overlay in a dry run) and
    /// records the write: the old bytes are saved first, and a rollback puts them back (or removes
    /// the file, if it was new) unless the file changed again since, which it then reports.
    /// Returns the change, or nil when the file already held `data`.
    @discardableResult
    public func writeFile(_ data: Data, to path: String, describedAs name: String? = nil) throws -> FileChange? {
        // Checked before it is read too: reading a device or a pipe may fail or never end.
        try checkWritable(path, label: name ?? lane.displayPath(path))
        return try writeFile(data, to: path, describedAs: name, replacing: try lane.fileSystem.contents(of: path))
    }

    /// `writeFile(_:to:describedAs:)` for a caller that has just read the file: `before` is
    /// what it holds (nil: no file), so it is not read again.
    @discardableResult
    public func writeFile(_ data: Data, to path: String, describedAs name: String? = nil, replacing before: Data?) throws -> FileChange? {
        let label = name ?? lane.displayPath(path)
        // Every file a step writes stays inside the repository and out of its git folder: a
        // committed link must not take the write elsewhere on the machine (checked in a dry run
        // too, so the plan says so).
        try checkWritable(path, label: label)
        guard before != data else { return nil }
        let afterDigest = SHA256.hex(of: data)
        let effect = try record(
            FileWritten(path: path, saved: try saveCopy(before), afterHash: afterDigest),
            before == nil ? "remove \(label)" : "restore \(label)")
        try lane.fileSystem.write(data, to: path)
        done(effect)
        return FileChange(path: path, displayPath: lane.displayPath(path), beforeDigest: before.map { SHA256.hex(of: $0) }, afterDigest: afterDigest)
    }

    /// Refuses a path Shiplane must not write (`RepositoryFileGuard`, the one check of every path
    /// written): through a link out of the repository, inside `.git`, or over something that is
    /// not a file.
    /// - Throws: `LinkLeavesRepository`, or `ShiplaneError` naming the path and what is there.
    func checkWritable(_ path: String, label: String) throws {
        switch RepositoryFileGuard.problem(writing: path, workTree: lane.workingDirectory, purpose: .stepFile) {
        case nil: return
        case .linkLeaves(let destination)?: throw LinkLeavesRepository(path: label, destination: destination)
        case let problem?:
            throw ShiplaneError(
                "\(label) \(problem.text)",
                suggestion: "write it to a file of the work tree outside .git (e.g. dist/); nothing was written"
            )
        }
    }

    /// Saves bytes a step is about to replace, so any process can put them back; returns the
    /// saved copy's name (nil for no bytes, or in a dry run).
    /// - Throws: when the copy cannot be written.
    func saveCopy(_ bytes: Data?) throws -> String? {
        guard let bytes, !isDryRun else { return nil }
        // Saved before the effect is recorded: a run refused every effect saves nothing either.
        try lane.state.journal.checkRefusal()
        return try lane.state.journal.effectContext.savedCopies.saveCopy(bytes, name: "step\(number)-\(UUID().uuidString)")
    }

    /// Creates a folder (and missing parents) through the lane's file system; rollback removes
    /// the folders it created once they are empty again. In a dry run nothing is created.
    public func createFolder(_ path: String) throws {
        let fileSystem = lane.fileSystem
        let missing = LiveFileSystem.missingFolders(path, kind: fileSystem.kind(of:))
        guard let outermost = missing.first else { return }
        try checkWritable(outermost, label: lane.displayPath(outermost))
        // Written down before the folders exist: a kill in between leaves nothing unrecorded.
        let effect = try record(FoldersCreated(paths: missing), "remove the folder \(lane.displayPath(outermost)) if empty")
        let created = try fileSystem.createFolder(path)
        done(effect, FoldersCreated(paths: created))
    }

    // MARK: - Effects

    /// Writes an effect down before it happens — in the run's record, when it has one, and in the
    /// journal — so a rollback in this process or any other undoes it with the effect's own
    /// `undo(in:status:)`. Returns its handle for `done`; nil in a dry run, where nothing happens.
    /// - Throws: when the record cannot be written: the effect must not happen unrecorded.
    public func record<E: Effect>(_ effect: E, _ description: String) throws -> EffectHandle? {
        guard !isDryRun else { return nil }
        return EffectHandle(index: try lane.state.journal.intend(
            step: number, description, try AnyEffect(effect), pastPointOfNoReturn: lane.state.pointOfNoReturn != nil))
    }

    /// Writes down that the effect happened, with what became known (an id, a commit) and, when
    /// it turned out other than described (a push the remote accepted in part), what it did.
    public func done<E: Effect>(_ handle: EffectHandle?, _ effect: E, description: String? = nil) {
        guard let handle else { return }
        lane.state.journal.done(handle.index, effect: try? AnyEffect(effect), description: description)
    }

    /// Writes several effects down before any of them happens, in one write of the run's record
    /// (for many requests sent at once: each goes out only after this returns); their handles, in
    /// order, or nils in a dry run.
    /// - Throws: when the record cannot be written: none of them may happen unrecorded.
    func record<E: Effect>(_ effects: [(effect: E, description: String)]) throws -> [EffectHandle?] {
        guard !isDryRun else { return effects.map { _ in nil } }
        let indexes = try lane.state.journal.intend(
            step: number, try effects.map { (description: $0.description, effect: try AnyEffect($0.effect)) },
            pastPointOfNoReturn: lane.state.pointOfNoReturn != nil)
        return indexes.map { EffectHandle(index: $0) }
    }

    /// Writes down that the effect happened, with what became known, in memory now and in the
    /// run's record at its next write: only for effects whose undo finds them without what
    /// became known (a kill before that write leaves them as intended, which their undo handles).
    func doneLater<E: Effect>(_ handle: EffectHandle?, _ effect: E) {
        guard let handle else { return }
        lane.state.journal.done(handle.index, effect: try? AnyEffect(effect), durable: false)
    }

    /// Writes down that the effect happened, as recorded.
    public func done(_ handle: EffectHandle?) {
        guard let handle else { return }
        lane.state.journal.done(handle.index, effect: nil)
    }

    /// Writes down that the effect can no longer be undone and stays (`why`).
    public func keep(_ handle: EffectHandle?, _ why: String) {
        guard let handle else { return }
        lane.state.journal.settle(handle.index, undone: false, note: why)
    }

    /// Writes down that the effect did not happen after all (`why`).
    public func didNotHappen(_ handle: EffectHandle?, _ why: String) {
        guard let handle else { return }
        lane.state.journal.settle(handle.index, undone: true, note: why)
    }

    /// Registers a closure that undoes a side effect this step just made (ignored in a dry run):
    /// the escape hatch for lane code. Only this process can run a closure, so a rollback from the
    /// record (after a kill, `shiplane rollback`) reports it as staying; an action that declares
    /// its own `Effect` type and calls `record(_:_:)` is undone everywhere.
    public func registerUndo(_ description: String, undo: @escaping @Sendable () async throws -> Void) {
        guard !isDryRun else { return }
        let handle = try? lane.state.journal.intend(
            step: number, description, try AnyEffect(InProcessUndo(description: description)),
            pastPointOfNoReturn: lane.state.pointOfNoReturn != nil, closure: undo)
        if let handle { lane.state.journal.done(handle, effect: nil) }
    }

    /// Says that from here on this run does what others can see (pushes, publishes, notifies).
    ///
    /// A run that stops before this point is rolled back; one that stops after it is never
    /// half-undone: it is finished by `shiplane resume` or by running the same command again.
    public func passPointOfNoReturn(_ reason: String) throws {
        guard !isDryRun else { return }
        // A run that may make no effect never gets past the point where one is public.
        try lane.state.journal.checkRefusal()
        try lane.fanOut.checkMayPublish(reason)
        lane.state.passPointOfNoReturn(reason)
        try lane.state.journal.recorder?.passPointOfNoReturn(reason)
    }

    /// Says what the point of no return this step passed turned out to be, once the other side
    /// answered (a remote that accepted only some refs), or (nil) that nothing others can see
    /// happened after all (the remote refused everything): the run can be undone again.
    /// Only for the step that passed the point, before any later step runs.
    public func amendPointOfNoReturn(_ reason: String?) throws {
        guard !isDryRun else { return }
        lane.state.amendPointOfNoReturn(reason)
        try lane.state.journal.recorder?.amendPointOfNoReturn(reason)
    }
}

/// An effect a step wrote down with `StepContext.record(_:_:)`, for marking it done or settled.
public struct EffectHandle: Sendable {
    let index: Int
}
