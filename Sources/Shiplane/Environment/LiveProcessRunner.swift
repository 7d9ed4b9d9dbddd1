import Foundation

/// Runs real processes, streaming their output line by line.
///
/// Each command is started by `SpawnedProcess`: nothing blocked, the default action for SIGINT,
/// SIGTERM and SIGHUP, and a process group of its own, so stopping it (a timeout, an interrupt)
/// reaches the command and what it started, and its own handlers run.
package struct LiveProcessRunner: ProcessRunning {
    /// How many trailing lines a result keeps for error messages.
    package var tailLength: Int
    /// The most bytes of each stream a result keeps; later output is still streamed, not stored.
    package var captureLimit: Int

    /// Creates a runner that keeps `tailLength` trailing lines and at most `captureLimit` bytes of each stream.
    package init(tailLength: Int = 20, captureLimit: Int = 16 << 20) {
        self.tailLength = tailLength
        self.captureLimit = captureLimit
    }

    /// Starts the process with standard input from `/dev/null`, streams both outputs to `onLine`, and
    /// stops the process (SIGTERM to its group, then SIGKILL 3 s later) on a timeout or a cancellation.
    /// - Throws: `CommandNotFound` when the executable is not on `PATH` or cannot be started;
    ///   `CancellationError` when the task is cancelled.
    package func run(
        _ invocation: ProcessInvocation,
        onLine: @escaping @Sendable (String, CommandStream) -> Void
    ) async throws -> ProcessResult {
        try Task.checkCancellation()
        guard let path = findExecutable(
            invocation.executable, path: invocation.environment["PATH"], workingDirectory: invocation.workingDirectory
        ) else {
            throw CommandNotFound(command: invocation.executable, searched: invocation.environment["PATH"] ?? "")
        }
        let collector = OutputCollector(tailLength: tailLength, captureLimit: captureLimit, onLine: onLine)
        let state = ChildProcessState()

        let result = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ProcessResult, any Error>) in
                let process: SpawnedProcess
                var readEnds: [Int32] = []
                do {
                    (process, readEnds) = try Self.start(path, invocation)
                } catch {
                    continuation.resume(throwing: CommandNotFound(command: invocation.executable, searched: "\(path): \(describe(error))"))
                    return
                }
                state.started(process)
                let group = DispatchGroup()
                for (descriptor, stream) in zip(readEnds, [CommandStream.standardOutput, .standardError]) {
                    group.enter()
                    Thread.detachNewThread {
                        SpawnedProcess.readAll(descriptor) { collector.append($0, from: stream) }
                        close(descriptor)
                        collector.finish(stream)
                        group.leave()
                    }
                }
                if let timeout = invocation.timeout {
                    // A thread of its own: a timer on Dispatch's shared pool can fire late when
                    // that pool is busy with blocking work.
                    Thread.detachNewThread {
                        let deadline = Date().addingTimeInterval(timeout)
                        while !state.hasExited && Date() < deadline {
                            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
                        }
                        if !state.hasExited {
                            state.markTimedOut()
                            state.stop()
                        }
                    }
                }
                Thread.detachNewThread {
                    let ending = process.wait()
                    state.exited()
                    group.wait()
                    continuation.resume(returning: collector.result(
                        exitCode: ending.code, bySignal: ending.bySignal, timedOut: state.timedOut
                    ))
                }
            }
        } onCancel: {
            state.stop()
        }
        // A command stopped by the interrupt may still end well (its TERM handler exits 0): the
        // run was interrupted all the same.
        try Task.checkCancellation()
        return result
    }

    /// Starts the command with its output on two pipes; returns it and the pipes' read ends.
    private static func start(_ path: String, _ invocation: ProcessInvocation) throws -> (SpawnedProcess, [Int32]) {
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SpawnFailure(path: "/dev/null", reason: String(cString: strerror(errno))) }
        defer { close(input) }
        let output = try SpawnedProcess.makePipe()
        let errors: (read: Int32, write: Int32)
        do {
            errors = try SpawnedProcess.makePipe()
        } catch {
            [output.read, output.write].forEach { close($0) }
            throw error
        }
        defer { [output.write, errors.write].forEach { close($0) } }
        do {
            let process = try SpawnedProcess.spawn(
                path: path, arguments: invocation.arguments, environment: invocation.environment,
                workingDirectory: invocation.workingDirectory,
                standardInput: input, standardOutput: output.write, standardError: errors.write
            )
            return (process, [output.read, errors.read])
        } catch {
            [output.read, errors.read].forEach { close($0) }
            throw error
        }
    }
}

/// Tracks the child so a timeout or a cancellation can stop it: SIGTERM, then SIGKILL.
private final class ChildProcessState: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`.
    private let lock = NSLock()
    private var process: SpawnedProcess?
    private var stopRequested = false
    private var signalled = false
    private var ended = false
    private var timedOutFlag = false

    var timedOut: Bool { lock.withLock { timedOutFlag } }
    var hasExited: Bool { lock.withLock { ended } }

    func started(_ process: SpawnedProcess) {
        let stopNow = lock.withLock {
            self.process = process
            return stopRequested
        }
        if stopNow { stop() }
    }

    func exited() {
        lock.withLock { ended = true }
    }

    func markTimedOut() {
        lock.withLock { timedOutFlag = true }
    }

    /// Stops the command's process group; also once the command itself has ended, when a
    /// grandchild it left may still hold its output open.
    func stop() {
        let running = lock.withLock { () -> SpawnedProcess? in
            stopRequested = true
            guard let process, !signalled else { return nil }
            signalled = true
            return process
        }
        running?.stop()
    }
}

/// Splits both streams into lines, forwards them live, and keeps a bounded copy.
private final class OutputCollector: @unchecked Sendable {
    // @unchecked: the `let`s are set once in `init`; `pending`, `captured` and `tail` are only touched under `lock`.
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
