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

    /// Waits (at most 300 s, polling every 0.1 s) until `condition` holds. The bound is generous:
    /// the run first compiles its lane program, which takes minutes on a loaded 2-core CI machine.
    func wait(until condition: () -> Bool) {
        for _ in 0..<3000 {
            if condition() { return }
            usleep(100_000)
        }
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
    /// SIGKILLs `shiplane` and its lane programs' process groups at once, as a dead machine or a
    /// killed CI job would, waits for `shiplane`, and waits (at most 10 s) until every lane program
    /// has ended: until then it holds the run's lock, and a `rollback` or a re-run started at once
    /// would be refused as another run in progress.
    func killEverything() throws {
        let lanes = try lanePrograms()
        kill(pid, SIGKILL)
        for lane in lanes { kill(-lane, SIGKILL) }
        _ = finish()
        for _ in 0..<200 where lanes.contains(where: { !Self.hasEnded($0) }) { usleep(50_000) }
    }

    /// Gone, or a zombie (which holds no file and no lock).
    private static func hasEnded(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    func finish() -> (status: Int32, all: String) {
        let all = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, all)
    }
}
