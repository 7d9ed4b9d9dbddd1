import Foundation
import Shiplane

/// Runs a system tool (an independent oracle: tar, unzip, gzip, sha256sum) and returns its status and output.
func runTool(_ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Every message, description and fact value in an error tree, for secret checks.
func allText(of error: any Error) -> String {
    var parts = [String(describing: error), "\(error)"]
    if let reportable = error as? any Shiplane.ReportableError {
        parts.append(reportable.message)
        parts.append(reportable.suggestion ?? "")
        parts += reportable.info.map { "\($0.key)=\($0.value)" }
        parts += reportable.underlyingErrors.map(allText(of:))
    }
    return parts.joined(separator: "\n")
}
