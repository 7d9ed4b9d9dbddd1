import Foundation

/// Which stream a line of command output came from.
public enum CommandStream: String, Codable, Sendable {
    /// Standard output (`stdout` in reports).
    case standardOutput = "stdout"
    /// Standard error (`stderr` in reports).
    case standardError = "stderr"
}

/// The severity of a message an action logs.
public enum LogLevel: String, Codable, Sendable, Comparable {
    /// Detail for debugging, ordinary progress, or something that went wrong without failing the step.
    case debug, info, warning

    /// Orders the levels by severity: `debug` < `info` < `warning`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        let order: [LogLevel] = [.debug, .info, .warning]
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}

/// Something that happened during a run, as the reporter receives it.
public enum RunEvent: Sendable {
    /// A lane began: the top lane (depth 0) or one it called.
    case laneStarted(name: String, depth: Int, dryRun: Bool)
    /// A step began.
    case stepStarted(StepRecord)
    /// A step ended; its record holds the outcome, duration and note.
    case stepFinished(StepRecord)
    /// A line a command printed while a step ran.
    case output(line: String, stream: CommandStream, step: Int?)
    /// A message from an action or a lane.
    case message(String, level: LogLevel, step: Int?)
    /// Rollback began, with this many undos to run.
    case rollbackStarted(count: Int)
    /// Rollback ended; what happened to each undo, newest first.
    case rollbackFinished([RollbackEntry])
    /// A lane ended, well or not, after `duration` seconds.
    case laneFinished(name: String, depth: Int, succeeded: Bool, duration: TimeInterval)
}

/// Receives the events of a run; the CLI supplies one that renders to the terminal.
///
/// The library never prints: every line a person sees passes through a reporter.
public protocol Reporting: Sendable {
    /// Receives one event; called from any task, so it must be thread-safe.
    func report(_ event: RunEvent)
}

/// A reporter that keeps every event, for tests and for the JSON report.
public final class RecordingReporter: Reporting, @unchecked Sendable {
    // @unchecked: `storage` is only touched under `lock`.
    private let lock = NSLock()
    private var storage: [RunEvent] = []

    /// Creates a reporter with no events.
    public init() {}

    /// Keeps the event.
    public func report(_ event: RunEvent) {
        lock.lock()
        storage.append(event)
        lock.unlock()
    }

    /// Every event received, in order.
    public var events: [RunEvent] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
