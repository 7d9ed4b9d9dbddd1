import Foundation

/// A command to run: an executable and its argument list, never a shell string.
public struct ProcessInvocation: Sendable, Equatable {
    /// A name looked up on `PATH`, or a path.
    public var executable: String
    public var arguments: [String]
    public var workingDirectory: String?
    /// The complete environment of the child process.
    public var environment: [String: String]
    /// Seconds before the process is terminated; nil waits as long as it takes.
    public var timeout: TimeInterval?

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
public func shellQuoted(_ word: String) -> String {
    if word.isEmpty { return "''" }
    let safe = word.unicodeScalars.allSatisfy {
        CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%^".unicodeScalars.contains($0)
    }
    return safe ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// What a finished process left: its exit status and its output.
public struct ProcessResult: Sendable, Equatable {
    public var exitCode: Int32
    /// True when the process ended by a signal; `exitCode` is then the signal number.
    public var terminatedBySignal: Bool
    public var timedOut: Bool
    public var standardOutput: String
    public var standardError: String
    /// The last lines of both streams, interleaved as they arrived.
    public var lastLines: [String]

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
public struct CommandNotFound: ReportableError {
    public var command: String
    public var searched: String

    public var message: String { "command not found: \(command)" }
    public var category: ErrorCategory { .environment }
    public var info: [(key: String, value: String)] { [("searched PATH", searched)] }
    public var suggestion: String? { "install \(command) or put it on PATH" }
}

/// Finds an executable on a `PATH`-style search list.
public func findExecutable(_ name: String, path: String?, workingDirectory: String?) -> String? {
    let manager = FileManager.default
    if name.contains("/") {
        let full = name.hasPrefix("/") ? name : ((workingDirectory ?? manager.currentDirectoryPath) + "/" + name)
        return manager.isExecutableFile(atPath: full) ? full : nil
    }
    for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !folder.isEmpty {
        let candidate = "\(folder)/\(name)"
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: candidate, isDirectory: &isFolder), !isFolder.boolValue,
           manager.isExecutableFile(atPath: candidate) {
            return candidate
        }
    }
    return nil
}
