import Foundation

/// Runs a command from the repository root, streaming its output live and capturing it.
///
/// The command is an argument list: nothing is interpreted by a shell, so a value with spaces or
/// `;` stays one argument. For a shell line (pipes, `&&`), use `lane.shell("...")`, which runs
/// `/bin/sh -c` and says so. In a dry run the command is printed instead of run, unless the
/// call is marked `readOnly: true` (it only reads, so running it keeps the dry run exact).
package struct Sh: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "sh"
    /// The command: the first element of the argument list.
    package var executable: String
    /// The arguments after the command, passed as they are.
    package var arguments: [String]
    /// Variables added to (or replacing) the lane's environment for this command.
    package var environment: [String: String]
    /// A folder relative to the repository root (or absolute) to run in.
    package var directory: String?
    /// Seconds before the command is stopped; nil: no limit.
    package var timeout: TimeInterval?
    /// True when the command only reads, so it runs in a dry run too.
    package var readOnly: Bool

    /// Creates the action for an argument list: the executable first, then its arguments.
    package init(
        _ command: [String], environment: [String: String] = [:], directory: String? = nil,
        timeout: TimeInterval? = nil, readOnly: Bool = false
    ) {
        executable = command.first ?? ""
        arguments = Array(command.dropFirst())
        self.environment = environment
        self.directory = directory
        self.timeout = timeout
        self.readOnly = readOnly
    }

    /// The command with its arguments, quoted as a shell would need them, for display.
    package var commandLine: String { ([executable] + arguments).map(shellQuoted).joined(separator: " ") }

    /// The command line and, when set, the environment's names (never its values), folder and timeout.
    package var options: [StepOption] {
        var shown = [StepOption("command", commandLine)]
        if !environment.isEmpty {
            shown.append(StepOption("environment", environment.keys.sorted().joined(separator: ", ")))
        }
        if let directory { shown.append(StepOption("directory", directory)) }
        if let timeout { shown.append(StepOption("timeout", "\(formatSeconds(timeout))")) }
        return shown
    }

    /// Returns the command's standard output with the final newline removed.
    package func run(in step: StepContext) async throws -> String {
        guard !executable.isEmpty else {
            throw ValidationFailure(problems: ["sh was called with no command"], suggestion: "pass the command and its arguments: lane.sh(\"swift\", \"build\")")
        }
        if step.isDryRun && !readOnly {
            step.note("would run: \(commandLine)")
            step.log("would run: \(commandLine)")
            return ""
        }
        // A command may take minutes (a build, the tests): before one that may change things, the
        // run learns whether origin holds an unfinished release it must resume instead.
        if !readOnly, !step.isDryRun { try step.lane.state.journal.checkBeforeFirstEffect() }
        var variables = step.lane.environment.variables
        for (name, value) in environment { variables[name] = value }
        // A secret handed to a command is a secret in everything printed from now on.
        RuntimeSecrets.register(environment.filter { LaneEnvironment.looksSecret($0.key) }.map(\.value))
        let root = step.lane.workingDirectory
        let folder = directory.map { $0.hasPrefix("/") ? $0 : root + "/" + $0 } ?? root
        let invocation = ProcessInvocation(
            executable: executable, arguments: arguments, workingDirectory: folder,
            environment: variables, timeout: timeout
        )
        let reporter = step.lane.state.reporter
        let number = step.number
        let result = try await step.lane.processRunner.run(invocation) { line, stream in
            reporter.report(.output(line: line, stream: stream, step: number))
        }
        if result.timedOut || result.exitCode != 0 || result.terminatedBySignal {
            throw CommandFailed(commandLine: commandLine, result: result, timeout: timeout)
        }
        var output = result.standardOutput
        if output.hasSuffix("\n") { output.removeLast() }
        return output
    }
}

/// A command that exited non-zero, was killed, or ran out of time.
package struct CommandFailed: ReportableError {
    /// The command line as shown.
    package var commandLine: String
    /// How the command ended, with its captured output.
    package var result: ProcessResult
    /// The time limit it had, if any.
    package var timeout: TimeInterval?

    /// The exit code (the signal number when it was killed).
    package var exitCode: Int32 { result.exitCode }

    /// Says whether the command timed out, was killed or exited non-zero.
    package var message: String {
        if result.timedOut, let timeout { return "`\(commandLine)` timed out after \(formatSeconds(timeout)) and was stopped" }
        if result.terminatedBySignal { return "`\(commandLine)` was killed by signal \(result.exitCode)" }
        return "`\(commandLine)` exited with code \(result.exitCode)"
    }

    /// The exit code and the last lines of output.
    package var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = [("exit code", "\(result.exitCode)")]
        if !result.lastLines.isEmpty {
            facts.append(("last output", result.lastLines.joined(separator: "\n")))
        }
        return facts
    }
}

/// Seconds as a person reads them: `0.42 s`, `12 s`, `2 min 5 s`.
package func formatSeconds(_ seconds: TimeInterval) -> String {
    // Not `String(format:)`: its C variadic arguments are cast at run time, and the first such
    // cast scans every protocol conformance of the program (a summary line of every run).
    guard seconds.isFinite, seconds >= 0 else { return "0.00 s" }
    if seconds < 10 {
        // Rounded as printf rounds: the exact binary value, halves to even (0.005 is a little
        // more than a half-hundredth, so 0.01; 2.675 a little less, so 2.67). `fma` compares with
        // one rounding, which never changes a sign.
        var hundredths = (seconds * 100).rounded(.down)
        if fma(seconds, 100, -hundredths) < 0 { hundredths -= 1 }
        if fma(seconds, 100, -(hundredths + 1)) >= 0 { hundredths += 1 }
        let beyondHalf = fma(seconds, 200, -(2 * hundredths + 1))
        if beyondHalf > 0 || (beyondHalf == 0 && hundredths.truncatingRemainder(dividingBy: 2) != 0) { hundredths += 1 }
        let whole = Int(hundredths)
        let fraction = whole % 100
        return "\(whole / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }
    if seconds < 60 { return "\(Int(seconds.rounded(.toNearestOrEven))) s" }
    let whole = Int(seconds.rounded())
    return "\(whole / 60) min \(whole % 60) s"
}

extension LaneContext {
    /// Runs a command (an argument list, no shell) from the repository root and returns its output.
    ///
    ///     try await lane.sh("swift", "build", "-c", "release")
    @discardableResult
    public func sh(_ command: String..., file: String = #fileID, line: Int = #line) async throws -> String {
        try await run(Sh(command), file: file, line: line)
    }

    /// Runs a command with options: extra environment, folder, timeout, and `readOnly` for
    /// commands that also run in a dry run.
    @discardableResult
    public func sh(
        _ command: [String], environment: [String: String] = [:], directory: String? = nil,
        timeout: TimeInterval? = nil, readOnly: Bool = false, file: String = #fileID, line: Int = #line
    ) async throws -> String {
        try await run(
            Sh(command, environment: environment, directory: directory, timeout: timeout, readOnly: readOnly),
            file: file, line: line
        )
    }

    /// Runs a shell line with `/bin/sh -c`: pipes and `&&` work, and so does injection, so never
    /// put untrusted values in `line`; pass them through `environment` and refer to `"$NAME"`.
    @discardableResult
    public func shell(
        _ line: String, environment: [String: String] = [:], timeout: TimeInterval? = nil,
        readOnly: Bool = false, file: String = #fileID, callLine: Int = #line
    ) async throws -> String {
        try await run(
            Sh(["/bin/sh", "-c", line], environment: environment, timeout: timeout, readOnly: readOnly),
            file: file, line: callLine
        )
    }
}

extension Sh: DocumentedAction {
    /// How `lane.sh` and `lane.shell` appear in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Build",
        summary: "Run a command (an argument list, no shell) from the repository root; output streams live and is returned",
        signature: "try await lane.sh(_ command: String...) -> String; lane.sh(_ command: [String], environment:, directory:, timeout:, readOnly:); lane.shell(_ line: String) for /bin/sh -c",
        parameters: [
            .init(name: "command", type: "[String]", defaultValue: nil, help: "executable and arguments; no shell interprets them"),
            .init(name: "environment", type: "[String: String]", defaultValue: "[:]", help: "variables added for this command"),
            .init(name: "directory", type: "String?", defaultValue: "repository root", help: "folder to run in, relative to the root"),
            .init(name: "timeout", type: "TimeInterval?", defaultValue: "none", help: "seconds before the command is stopped (SIGTERM, then SIGKILL)"),
            .init(name: "readOnly", type: "Bool", defaultValue: "false", help: "the command only reads: run it in a dry run too"),
        ],
        example: #"try await lane.sh("swift", "build", "-c", "release")"#,
        dryRun: "prints `would run: ...` instead of running, unless readOnly", rollback: "nothing to undo (a command's effects are its own)"
    )
}
