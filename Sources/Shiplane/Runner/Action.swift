import Foundation

/// A unit of work a lane calls: a built-in action or a user's own, run as a recorded step.
///
/// The runner gives every action the same treatment: a step with name, call site, options
/// (secrets shown as `***`), timing and outcome; dry-run through `StepContext.isDryRun` and
/// the overlay file system; rollback through `StepContext.registerUndo`.
public protocol Action {
    associatedtype Output = Void
    /// The name shown in steps and reports (`ensureGitBranch`).
    static var name: String { get }
    /// The options as shown in steps and reports.
    var options: [StepOption] { get }
    func run(in step: StepContext) throws -> Output
}

/// An action that awaits: runs commands, talks to servers.
public protocol AsyncAction {
    associatedtype Output = Void
    static var name: String { get }
    var options: [StepOption] { get }
    func run(in step: StepContext) async throws -> Output
}

extension Action {
    public var options: [StepOption] { [] }
}

extension AsyncAction {
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
        try fileSystem.write(data, to: path)
        let label = name ?? lane.displayPath(path)
        registerUndo(before == nil ? "remove \(label)" : "restore \(label)") {
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
        registerUndo("remove the folder \(lane.displayPath(outermost)) if empty") {
            for folder in created.reversed() where fileSystem.isFolder(folder) {
                guard try fileSystem.list(folder).isEmpty else {
                    throw ShiplaneError("\(folder) holds files Shiplane did not write; left as it is")
                }
                try fileSystem.remove(folder)
            }
        }
    }

    /// Registers how to undo a side effect this step just made (ignored in a dry run).
    public func registerUndo(_ description: String, undo: @escaping () async throws -> Void) {
        guard !isDryRun else { return }
        lane.state.journal.register(description, undo: undo)
    }
}
