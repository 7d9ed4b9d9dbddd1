@_exported import Shiplane
import Foundation
#if canImport(Testing)
import Testing
#endif

/// A process runner for lane tests: records every command and answers with scripted results
/// instead of starting processes.
///
/// A command no script answers fails the test: it is recorded in `unscriptedCommands`, reported
/// as an issue of the running Swift Testing test, and `run` throws ``UnscriptedCommand`` naming
/// it (as swift-dependencies' `unimplemented` does), never a quiet success. A test that expects a
/// command to succeed with no output scripts it: `script(["swift", "build"], result: ProcessResult(exitCode: 0))`.
public final class RecordingProcessRunner: ProcessRunning, @unchecked Sendable {
    // @unchecked: `recorded`, `unscripted` and `scripted` are only touched under `lock`.
    private let lock = NSLock()
    private var recorded: [ProcessInvocation] = []
    private var unscripted: [ProcessInvocation] = []
    private var scripted: [(matches: @Sendable (ProcessInvocation) -> Bool, result: ProcessResult)] = []

    public init() {}

    /// Answers commands whose executable and first arguments match `command` with `result`; a
    /// later script for the same command wins. A command no script matches fails the test.
    public func script(_ command: [String], result: ProcessResult) {
        lock.withLock {
            scripted.append(({ invocation in
                Array(([invocation.executable] + invocation.arguments).prefix(command.count)) == command
            }, result))
        }
    }

    /// Every command the lane ran, in order.
    public var invocations: [ProcessInvocation] { lock.withLock { recorded } }

    /// The command lines the lane ran, as a person would type them.
    public var commandLines: [String] { invocations.map(\.commandLine) }

    /// The commands no script answered, in order; each one also failed the test.
    public var unscriptedCommands: [ProcessInvocation] { lock.withLock { unscripted } }

    public func run(
        _ invocation: ProcessInvocation, onLine: @escaping @Sendable (String, CommandStream) -> Void
    ) async throws -> ProcessResult {
        let result = lock.withLock { () -> ProcessResult? in
            recorded.append(invocation)
            guard let found = scripted.last(where: { $0.matches(invocation) })?.result else {
                unscripted.append(invocation)
                return nil
            }
            return found
        }
        guard let result else {
            let error = UnscriptedCommand(commandLine: invocation.commandLine)
            #if canImport(Testing)
            Issue.record(Comment(rawValue: error.description))
            #endif
            throw error
        }
        for line in result.standardOutput.split(separator: "\n") { onLine(String(line), .standardOutput) }
        return result
    }
}

/// A command a ``RecordingProcessRunner`` was not told how to answer: the test fails, naming it.
public struct UnscriptedCommand: Error, CustomStringConvertible, Sendable {
    public var commandLine: String

    public var description: String {
        "RecordingProcessRunner: no script answers `\(commandLine)`; script it with script([...], result: ...)"
    }
}

/// A lane context for tests: real files in `workingDirectory`, recorded commands, HTTP requests
/// and events.
public struct TestLaneContext {
    public let context: LaneContext
    public let reporter: RecordingReporter
    public let processes: RecordingProcessRunner
    /// Every HTTP request the lane sends is recorded here and answered by its rules.
    public let http: RecordingHTTPClient

    /// - Parameters:
    ///   - workingDirectory: the repository the lane works on (see `FixtureRepository`).
    ///   - environment: the variables the lane sees; nothing is read from the process environment.
    ///   - dryRun: run as `--dry-run` does.
    public init(workingDirectory: String, environment: [String: String] = [:], dryRun: Bool = false, hooks: [any LaneHooks] = []) {
        reporter = RecordingReporter()
        processes = RecordingProcessRunner()
        http = RecordingHTTPClient()
        context = LaneContext(
            .init(
                workingDirectory: workingDirectory, environment: LaneEnvironment(variables: environment),
                processRunner: processes, http: http,
                // Retries happen, their waits do not.
                retryPolicy: RetryPolicy(maxAttempts: 3, sleep: { _ in }),
                reporter: reporter, isDryRun: dryRun
            ),
            hooks: hooks
        )
    }

    /// Runs a lane as the command line would (hooks, rollback on failure) and returns the result.
    ///
    /// The lane is parsed from `arguments` (so defaults and validation apply, as on the command
    /// line), then `configure` changes typed options. A lane made with `Lane()` instead would have
    /// options that were never parsed, which swift-argument-parser refuses to read.
    /// - Throws: the parse error, when `arguments` are not valid options of the lane.
    public func run<L: Lane>(
        _ type: L.Type, arguments: [String] = [], rollbackOnFailure: Bool = true, configure: (inout L) -> Void = { _ in }
    ) async throws -> LaneRunResult {
        var lane = try L.parse(arguments)
        configure(&lane)
        return await LaneRunner(rollbackOnFailure: rollbackOnFailure).run(lane, in: context)
    }
}

/// A throwaway git repository made with the `git` command, for lane tests.
public final class FixtureRepository {
    public let path: String

    /// Creates a repository on `branch` with one commit of `files` (path → content).
    /// - Throws: when `git` is missing or fails.
    public init(branch: String = "main", files: [String: String] = ["README.md": "# fixture\n"]) throws {
        path = NSTemporaryDirectory() + "shiplane-fixture-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try git("init", "-q", "-b", branch)
        try write(files)
        try git("add", ".")
        try git("commit", "-q", "-m", "Initial commit")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes files (path → content), creating folders as needed.
    public func write(_ files: [String: String]) throws {
        for (relative, text) in files {
            let url = URL(fileURLWithPath: path + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// Runs `git` in the repository with a fixed identity; returns its trimmed output.
    @discardableResult
    public func git(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in ["GIT_AUTHOR_NAME": "Fixture", "GIT_AUTHOR_EMAIL": "fixture@example.com",
                             "GIT_COMMITTER_NAME": "Fixture", "GIT_COMMITTER_EMAIL": "fixture@example.com"] {
            environment[key] = value
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            throw ShiplaneError("git \(arguments.joined(separator: " ")) failed", info: [("output", text)])
        }
        return text
    }
}
