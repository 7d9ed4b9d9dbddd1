import Foundation

/// Runs real processes with Foundation's `Process`, streaming their output line by line.
public struct LiveProcessRunner: ProcessRunning {
    /// How many trailing lines a result keeps for error messages.
    public var tailLength: Int
    /// The most bytes of each stream a result keeps; later output is still streamed, not stored.
    public var captureLimit: Int

    /// Creates a runner that keeps `tailLength` trailing lines and at most `captureLimit` bytes of each stream.
    public init(tailLength: Int = 20, captureLimit: Int = 16 << 20) {
        self.tailLength = tailLength
        self.captureLimit = captureLimit
    }

    /// Starts the process with standard input from `/dev/null`, streams both outputs to `onLine`, and
    /// stops the process (SIGTERM to its group, then SIGKILL) on a timeout or a cancellation.
    /// - Throws: `CommandNotFound` when the executable is not on `PATH` or cannot be started;
    ///   `CancellationError` when the task is cancelled.
    public func run(
        _ invocation: ProcessInvocation,
        onLine: @escaping @Sendable (String, CommandStream) -> Void
    ) async throws -> ProcessResult {
        try Task.checkCancellation()
        guard let path = findExecutable(
            invocation.executable, path: invocation.environment["PATH"], workingDirectory: invocation.workingDirectory
        ) else {
            throw CommandNotFound(command: invocation.executable, searched: invocation.environment["PATH"] ?? "")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = invocation.arguments
        process.environment = invocation.environment
        if let folder = invocation.workingDirectory {
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")

        let collector = OutputCollector(tailLength: tailLength, captureLimit: captureLimit, onLine: onLine)
        let state = ChildProcessState()

        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ProcessResult, any Error>) in
                let group = DispatchGroup()
                for (pipe, stream) in [(output, CommandStream.standardOutput), (errors, .standardError)] {
                    group.enter()
                    let handle = pipe.fileHandleForReading
                    Thread.detachNewThread {
                        while true {
                            let chunk = handle.availableData
                            if chunk.isEmpty { break }
                            collector.append(chunk, from: stream)
                        }
                        collector.finish(stream)
                        group.leave()
                    }
                }
                do {
                    try process.run()
                } catch {
                    try? output.fileHandleForWriting.close()
                    try? errors.fileHandleForWriting.close()
                    continuation.resume(throwing: CommandNotFound(command: invocation.executable, searched: "\(path): \(error)"))
                    return
                }
                state.started(process)
                try? output.fileHandleForWriting.close()
                try? errors.fileHandleForWriting.close()
                if let timeout = invocation.timeout {
                    // A thread of its own: a timer on Dispatch's shared pool can fire late when
                    // that pool is busy with blocking work.
                    Thread.detachNewThread {
                        let deadline = Date().addingTimeInterval(timeout)
                        while process.isRunning && Date() < deadline {
                            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
                        }
                        if process.isRunning {
                            state.markTimedOut()
                            state.stop()
                        }
                    }
                }
                Thread.detachNewThread {
                    process.waitUntilExit()
                    group.wait()
                    let bySignal = process.terminationReason == .uncaughtSignal
                    continuation.resume(returning: collector.result(
                        exitCode: process.terminationStatus, bySignal: bySignal, timedOut: state.timedOut
                    ))
                }
            }
        } onCancel: {
            state.stop()
        }
    }
}

/// Tracks the child so a timeout or a cancellation can stop it: SIGTERM, then SIGKILL.
private final class ChildProcessState: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?
    private var stopRequested = false
    private(set) var timedOut = false

    func started(_ process: Process) {
        lock.lock()
        self.process = process
        let stopNow = stopRequested
        lock.unlock()
        if stopNow { stop() }
    }

    func markTimedOut() {
        lock.lock()
        timedOut = true
        lock.unlock()
    }

    func stop() {
        lock.lock()
        stopRequested = true
        let running = process
        lock.unlock()
        guard let running, running.isRunning else { return }
        // Foundation starts each command in a process group of its own, whose id is the
        // command's pid: signalling the group stops what `sh -c` started as well, and the
        // command's output pipes close.
        let pid = running.processIdentifier
        if kill(-pid, SIGTERM) != 0 { running.terminate() }
        Thread.detachNewThread {
            for _ in 0..<60 where running.isRunning { Thread.sleep(forTimeInterval: 0.05) }
            // Also when the command itself has ended: a grandchild may outlive it.
            if kill(-pid, SIGKILL) != 0, running.isRunning { kill(pid, SIGKILL) }
        }
    }
}

/// Splits both streams into lines, forwards them live, and keeps a bounded copy.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private let tailLength: Int
    private let captureLimit: Int
    private let onLine: @Sendable (String, CommandStream) -> Void
    private var pending: [CommandStream: Data] = [:]
    private var captured: [CommandStream: Data] = [:]
    private var tail: [String] = []

    init(tailLength: Int, captureLimit: Int, onLine: @escaping @Sendable (String, CommandStream) -> Void) {
        self.tailLength = tailLength
        self.captureLimit = captureLimit
        self.onLine = onLine
    }

    func append(_ chunk: Data, from stream: CommandStream) {
        lock.lock()
        var kept = captured[stream, default: Data()]
        if kept.count < captureLimit { kept.append(chunk.prefix(captureLimit - kept.count)) }
        captured[stream] = kept
        var buffer = pending[stream, default: Data()]
        buffer.append(chunk)
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Self.decode(buffer[buffer.startIndex..<newline]))
            buffer = Data(buffer[buffer.index(after: newline)...])
        }
        pending[stream] = buffer
        remember(lines)
        lock.unlock()
        for line in lines { onLine(line, stream) }
    }

    func finish(_ stream: CommandStream) {
        lock.lock()
        let rest = pending[stream, default: Data()]
        pending[stream] = Data()
        let line = rest.isEmpty ? nil : Self.decode(rest[...])
        if let line { remember([line]) }
        lock.unlock()
        if let line { onLine(line, stream) }
    }

    private func remember(_ lines: [String]) {
        tail.append(contentsOf: lines)
        if tail.count > tailLength { tail.removeFirst(tail.count - tailLength) }
    }

    func result(exitCode: Int32, bySignal: Bool, timedOut: Bool) -> ProcessResult {
        lock.lock()
        defer { lock.unlock() }
        return ProcessResult(
            exitCode: exitCode, terminatedBySignal: bySignal, timedOut: timedOut,
            standardOutput: String(decoding: captured[.standardOutput] ?? Data(), as: UTF8.self),
            standardError: String(decoding: captured[.standardError] ?? Data(), as: UTF8.self),
            lastLines: tail
        )
    }

    private static func decode(_ bytes: Data.SubSequence) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
