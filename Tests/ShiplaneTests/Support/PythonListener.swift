import Foundation

/// A Python script run as a child process that listens on a loopback port and prints the port as
/// its first line: what the holding proxy and the start-up tests' HTTPS server share.
final class PythonListener: @unchecked Sendable {
    // Set once in init, read afterwards.
    let port: Int
    private let process = Process()

    /// Starts `python3 -c script arguments…` and waits for the port line.
    /// - Throws: `TestFailure` naming `what` when the script prints no port.
    init(script: String, arguments: [String], what: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("\(what) did not start")
        }
        self.port = port
    }

    /// Ends the child at once. SIGKILL: the test process may have SIGTERM ignored, which its
    /// children inherit, and a held connection must close now.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
