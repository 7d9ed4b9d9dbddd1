import Foundation
import Testing

/// `shiplane` started in the background, so a test can wait for a moment of the run (a request
/// reaching a server) and then SIGKILL the lane program under the supervisor, as a crash or the
/// OOM killer would, and read how the supervisor settled the run.
final class SupervisedRun {
    private let process = Process()
    private let output = Pipe()
    private let folder: String
    private let environment: [String: String]

    /// Starts `shiplane ARGUMENTS` in `folder`.
    init(_ arguments: [String], in folder: String, environment: [String: String]) throws {
        self.folder = folder
        self.environment = environment
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Waits (at most 60 s, polling every 0.1 s) until `condition` holds.
    func wait(until condition: () -> Bool) {
        for _ in 0..<600 where !condition() { usleep(100_000) }
    }

    /// The supervisor's pid.
    var pid: pid_t { process.processIdentifier }

    /// The pids of the lane programs the supervisor runs (its children).
    func lanePrograms() throws -> [pid_t] {
        let children = try runProgram("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"], in: folder, environment: environment)
        return children.stdout.split(separator: "\n").compactMap { Int32($0) }
    }

    /// SIGKILLs the process group of each lane program the supervisor runs; false when there was none.
    @discardableResult
    func killLaneProgram() throws -> Bool {
        let lanePrograms = try lanePrograms()
        for pid in lanePrograms { kill(-pid, SIGKILL) }
        return !lanePrograms.isEmpty
    }

    /// Waits for the supervisor to end; its exit status and everything it printed.
    func finish() -> (status: Int32, all: String) {
        let all = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, all)
    }
}
