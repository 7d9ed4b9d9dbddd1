import Foundation

/// A command to run: an executable and its argument list, never a shell string.
public struct ProcessInvocation: Sendable, Equatable {
    /// A name looked up on `PATH`, or a path.
    public var executable: String
    /// The arguments, each passed as one word.
    public var arguments: [String]
    /// The folder to run in; nil: the current folder.
    public var workingDirectory: String?
    /// The complete environment of the child process.
    public var environment: [String: String]
    /// Seconds before the process is terminated; nil waits as long as it takes.
    public var timeout: TimeInterval?

    /// Creates an invocation; the environment is given whole, not added to the parent's.
    public init(
        executable: String, arguments: [String], workingDirectory: String? = nil,
        environment: [String: String], timeout: TimeInterval? = nil
    ) {
        self.executable = executable
        self.arguments = arguments
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.timeout = timeout
    }

    /// The command line as a person would type it, with arguments quoted where needed.
    public var commandLine: String {
        ([executable] + arguments).map(shellQuoted).joined(separator: " ")
    }
}

/// Quotes a word for display the way a POSIX shell would need it.
package func shellQuoted(_ word: String) -> String {
    if word.isEmpty { return "''" }
    let safe = word.unicodeScalars.allSatisfy {
        CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%^".unicodeScalars.contains($0)
    }
    return safe ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// What a finished process left: its exit status and its output.
public struct ProcessResult: Sendable, Equatable {
    /// The exit status, or the signal number when `terminatedBySignal`.
    public var exitCode: Int32
    /// True when the process ended by a signal; `exitCode` is then the signal number.
    public var terminatedBySignal: Bool
    /// True when the process was stopped because it ran past its timeout.
    public var timedOut: Bool
    /// Standard output, up to the runner's capture limit.
    public var standardOutput: String
    /// Standard error, up to the runner's capture limit.
    public var standardError: String
    /// The last lines of both streams, interleaved as they arrived.
    public var lastLines: [String]

    /// Creates a result; runners and test doubles build one per finished process.
    public init(
        exitCode: Int32, terminatedBySignal: Bool = false, timedOut: Bool = false,
        standardOutput: String = "", standardError: String = "", lastLines: [String] = []
    ) {
        self.exitCode = exitCode
        self.terminatedBySignal = terminatedBySignal
        self.timedOut = timedOut
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.lastLines = lastLines
    }
}

/// Runs commands; the live value starts real processes, tests may record or script them.
public protocol ProcessRunning: Sendable {
    /// Runs the command to completion, handing each output line to `onLine` as it arrives.
    /// - Throws: `CommandNotFound` when the executable cannot be found; `CancellationError`
    ///   when the task is cancelled (the process is terminated first).
    func run(
        _ invocation: ProcessInvocation,
        onLine: @escaping @Sendable (String, CommandStream) -> Void
    ) async throws -> ProcessResult
}

/// The executable of a command could not be found.
package struct CommandNotFound: ReportableError {
    /// The executable as it was asked for.
    package var command: String
    /// The `PATH` that was searched, or the path that could not be started and why.
    package var searched: String

    /// Names the command that was not found.
    package var message: String { "command not found: \(command)" }
    /// An environment problem: a missing tool.
    package var category: ErrorCategory { .environment }
    /// What was searched.
    package var info: [(key: String, value: String)] { [("searched PATH", searched)] }
    /// Install the command or put it on `PATH`.
    package var suggestion: String? { "install \(command) or put it on PATH" }
}

/// Finds an executable on a `PATH`-style search list.
package func findExecutable(_ name: String, path: String?, workingDirectory: String?) -> String? {
    let manager = FileManager.default
    if name.contains("/") {
        let full = name.hasPrefix("/") ? name : ((workingDirectory ?? manager.currentDirectoryPath) + "/" + name)
        return manager.isExecutableFile(atPath: full) ? full : nil
    }
    // `stat` and `access` themselves: `FileManager` costs more than the rest of a cached lane's
    // start, for the dozen folders of a usual PATH.
    for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !folder.isEmpty {
        let candidate = String(folder) + "/" + name
        var info = stat()
        if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR, access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    return nil
}
