import Foundation

/// Which stream a line of command output came from.
public enum CommandStream: String, Codable, Sendable {
    case standardOutput = "stdout"
    case standardError = "stderr"
}

/// The severity of a message an action logs.
public enum LogLevel: String, Codable, Sendable, Comparable {
    case debug, info, warning

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        let order: [LogLevel] = [.debug, .info, .warning]
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}

/// Something that happened during a run, as the reporter receives it.
public enum RunEvent: Sendable {
    case laneStarted(name: String, depth: Int, dryRun: Bool)
    case stepStarted(StepRecord)
    case stepFinished(StepRecord)
    /// A line a command printed while a step ran.
    case output(line: String, stream: CommandStream, step: Int?)
    /// A message from an action or a lane.
    case message(String, level: LogLevel, step: Int?)
    case rollbackStarted(count: Int)
    case rollbackFinished([RollbackEntry])
    case laneFinished(name: String, depth: Int, succeeded: Bool, duration: TimeInterval)
}

/// Receives the events of a run; the CLI supplies one that renders to the terminal.
///
/// The library never prints: every line a person sees passes through a reporter.
public protocol Reporting: Sendable {
    func report(_ event: RunEvent)
}

/// A reporter that keeps every event, for tests and for the JSON report.
public final class RecordingReporter: Reporting, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [RunEvent] = []

    public init() {}

    public func report(_ event: RunEvent) {
        lock.lock()
        storage.append(event)
        lock.unlock()
    }

    public var events: [RunEvent] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
