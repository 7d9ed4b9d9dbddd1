import Foundation

/// A unit of work a lane calls: a built-in action or a user's own, run as a recorded step.
///
/// The runner gives every action the same treatment: a step with name, call site, options
/// (secrets shown as `***`), timing and outcome; dry-run through `StepContext.isDryRun` and
/// the overlay file system; rollback through `StepContext.registerUndo`.
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
}

extension Action {
    /// No options shown.
    public var options: [StepOption] { [] }
}

extension AsyncAction {
    /// No options shown.
    public var options: [StepOption] { [] }
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
    /// registers the undo: the old bytes come back (or the file goes, if it was new) unless the
    /// file changed again since, which rollback then reports instead of overwriting.
    /// Returns the change, or nil when the file already held `data`.
    @discardableResult
    public func writeFile(_ data: Data, to path: String, describedAs name: String? = nil) throws -> FileChange? {
        try writeFile(data, to: path, describedAs: name, replacing: try lane.fileSystem.contents(of: path))
    }

    /// `writeFile(_:to:describedAs:)` for a caller that has just read the file: `before` is
    /// what it holds (nil: no file), so it is not read again.
    @discardableResult
    public func writeFile(_ data: Data, to path: String, describedAs name: String? = nil, replacing before: Data?) throws -> FileChange? {
        let fileSystem = lane.fileSystem
        guard before != data else { return nil }
        let label = name ?? lane.displayPath(path)
        let description = before == nil ? "remove \(label)" : "restore \(label)"
        var effect: Int?
        if let recorder = lane.state.journal.recorder, !isDryRun {
            // The old bytes are saved before the write, so any process can put them back.
            let saved = try before.map { try recorder.store.saveCopy($0, name: "step\(number)-\(UUID().uuidString)") }
            effect = try intend(description, .file(path: path, saved: saved, afterHash: SHA256.hex(of: data)))
        }
        try fileSystem.write(data, to: path)
        done(effect)
        registerUndo(description, effectIndex: effect) {
            guard try fileSystem.contents(of: path) == data else {
                throw ShiplaneError("\(label) changed after Shiplane wrote it; left as it is")
            }
            if let before { try fileSystem.write(before, to: path) } else { try fileSystem.remove(path) }
        }
        return FileChange(path: path, displayPath: lane.displayPath(path), before: before, after: data)
    }

    /// Creates a folder (and missing parents) through the lane's file system; rollback removes
    /// the folders it created once they are empty again. In a dry run nothing is created.
    public func createFolder(_ path: String) throws {
        let fileSystem = lane.fileSystem
        let created = try fileSystem.createFolder(path)
        guard let outermost = created.first else { return }
        let description = "remove the folder \(lane.displayPath(outermost)) if empty"
        let effect = try intend(description, .folders(paths: created))
        done(effect)
        registerUndo(description, effectIndex: effect) {
            for folder in created.reversed() where fileSystem.isFolder(folder) {
                guard try fileSystem.list(folder).isEmpty else {
                    throw ShiplaneError("\(folder) holds files Shiplane did not write; left as it is")
                }
                try fileSystem.remove(folder)
            }
        }
    }

    /// Registers how to undo a side effect this step just made (ignored in a dry run).
    ///
    /// In a recorded run the effect is written down too, so a later process knows it happened;
    /// only this process can undo it, so a rollback from the record reports it as staying.
    public func registerUndo(_ description: String, undo: @escaping () async throws -> Void) {
        guard !isDryRun else { return }
        let effect = try? intend(description, .external(kind: "effect", handle: description))
        done(effect ?? nil)
        registerUndo(description, effectIndex: effect ?? nil, undo: undo)
    }

    /// Registers the undo of an effect recorded with `intend`.
    func registerUndo(_ description: String, effectIndex: Int?, undo: @escaping () async throws -> Void) {
        guard !isDryRun else { return }
        lane.state.journal.register(description, effectIndex: effectIndex, undo: undo)
    }

    /// Writes down an effect before it happens; nil in a dry run or a run without a record.
    /// - Throws: when the record cannot be written: the effect must not happen unrecorded.
    func intend(_ description: String, _ effect: Effect) throws -> Int? {
        guard !isDryRun, let recorder = lane.state.journal.recorder else { return nil }
        return try recorder.intend(step: number, description: description, effect: effect)
    }

    /// Writes down that an effect recorded with `intend` happened, with what became known.
    func done(_ index: Int?, _ effect: Effect? = nil) {
        guard let index, let recorder = lane.state.journal.recorder else { return }
        recorder.done(index, effect: effect)
    }

    /// Writes down that an effect recorded with `intend` can no longer be undone and stays (`why`).
    func keep(_ index: Int?, _ why: String) {
        guard let index, let recorder = lane.state.journal.recorder else { return }
        recorder.resolved(index, undone: false, note: why)
    }

    /// Writes down that an effect recorded with `intend` did not happen after all (`why`).
    func didNotHappen(_ index: Int?, _ why: String) {
        guard let index, let recorder = lane.state.journal.recorder else { return }
        recorder.resolved(index, undone: true, note: why)
    }

    /// Says that from here on this run does what others can see (pushes, publishes, notifies).
    ///
    /// A run that stops before this point is rolled back; one that stops after it is never
    /// half-undone: it is finished by `shiplane resume` or by running the same command again.
    public func passPointOfNoReturn(_ reason: String) throws {
        guard !isDryRun else { return }
        lane.state.passPointOfNoReturn(reason)
        try lane.state.journal.recorder?.passPointOfNoReturn(reason)
    }
}
