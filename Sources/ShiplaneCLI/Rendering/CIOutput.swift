import Foundation
import Shiplane

/// Output for the CI a run is in: GitHub Actions (groups, annotations, the step summary, outputs)
/// or GitLab CI (collapsible sections). Detected from `GITHUB_ACTIONS` / `GITLAB_CI`, or chosen
/// with `--ci github|gitlab|none`.
package enum CIPlatform: String, Sendable {
    case githubActions = "github", gitlab, none

    package static func detect(flag: String?, environment: [String: String]) -> CIPlatform {
        if let flag, let chosen = CIPlatform(rawValue: flag) { return chosen }
        if environment["GITHUB_ACTIONS"] == "true" { return .githubActions }
        if environment["GITLAB_CI"] == "true" { return .gitlab }
        return .none
    }

    /// The line that opens a step's fold, or nil.
    func opening(step: StepRecord, title: String) -> String? {
        switch self {
        case .githubActions: return "::group::" + Self.escapeData(title)
        case .gitlab: return "\u{1B}[0Ksection_start:\(Int(Date().timeIntervalSince1970)):step_\(step.number)[collapsed=true]\r\u{1B}[0K" + title
        case .none: return nil
        }
    }

    /// The line that closes a step's fold, or nil.
    func closing(step: StepRecord) -> String? {
        switch self {
        case .githubActions: return "::endgroup::"
        case .gitlab: return "\u{1B}[0Ksection_end:\(Int(Date().timeIntervalSince1970)):step_\(step.number)\r\u{1B}[0K"
        case .none: return nil
        }
    }

    // MARK: - GitHub Actions

    /// `%`, CR and LF escaped as workflow commands need in a message.
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    /// The same, plus `:` and `,`, for a property value.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// The annotations for a failed run: an error at the failing lane line, a warning per effect
    /// that could not be rolled back.
    static func annotations(for failure: LaneFailure, redactor: SecretRedactor) -> [String] {
        var lines: [String] = []
        let causes = failure.allErrors.map(describe)
        let message = redactor.redact(causes.dropFirst().last ?? failure.message)
        var properties = "title=" + escapeProperty(redactor.redact(failure.message))
        if let callSite = failure.failingStep?.callSite, callSite.file.hasPrefix("Lanes/") {
            properties = "file=\(escapeProperty(callSite.file)),line=\(callSite.line)," + properties
        }
        lines.append("::error \(properties)::" + escapeData(message))
        for entry in failure.rollback where !entry.undone {
            if entry.stays == true {
                lines.append("::warning title=stays::" + escapeData(redactor.redact(entry.error ?? entry.description)))
                continue
            }
            lines.append("::warning title=could not roll back::" + escapeData(redactor.redact("\(entry.description): \(entry.error ?? "unknown")")))
        }
        return lines
    }

    /// The Markdown the run appends to `GITHUB_STEP_SUMMARY`: outcome, steps, error tree, rollback.
    static func summary(for result: LaneRunResult, exitCode: Int32, redactor: SecretRedactor) -> String {
        func cell(_ text: String) -> String { redactor.redact(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
        var lines: [String] = []
        let outcome = result.failure == nil ? "succeeded ✅" : (result.failure?.pointOfNoReturn != nil ? "stopped unfinished ⏸️" : "failed ❌")
        lines.append("### shiplane \(result.lane) \(outcome)")
        lines.append("")
        lines.append("Exit code \(exitCode), \(result.steps.count) step\(result.steps.count == 1 ? "" : "s") in \(formatSeconds(result.duration))\(result.dryRun ? " (dry run)" : "").")
        lines.append("")
        if !result.steps.isEmpty {
            lines.append("| # | step | called at | time | result |")
            lines.append("| ---: | --- | --- | ---: | --- |")
            for step in result.steps {
                let name = String(repeating: "  ", count: step.depth) + step.name
                let mark = step.outcome == .failed ? "❌ " + (step.error ?? "failed") : "✅ " + (step.note ?? "ok")
                lines.append("| \(step.number) | \(cell(name)) | \(cell(step.callSite?.description ?? "")) | \(step.duration.map(formatSeconds) ?? "") | \(cell(mark)) |")
            }
            lines.append("")
        }
        if let failure = result.failure {
            lines.append("<details open><summary>Error</summary>")
            lines.append("")
            let tree = errorTree(failure).map { depth, error in redactor.redact(String(repeating: "  ", count: depth) + describe(error)) }
            // A fence longer than any run of backticks in the text, so the text cannot close it.
            let fence = String(repeating: "`", count: max(3, longestBacktickRun(in: tree.joined(separator: "\n")) + 1))
            lines.append(fence)
            lines += tree
            lines.append(fence)
            lines.append("</details>")
            lines.append("")
            if !failure.rollback.isEmpty {
                lines.append("Rollback:")
                lines.append("")
                for entry in failure.rollback {
                    let line = entry.undone ? "undone: \(entry.description)"
                        : entry.stays == true ? "stays: \(entry.error ?? entry.description)"
                        : "could not undo: \(entry.description): \(entry.error ?? "unknown")"
                    lines.append("- " + cell(line))
                }
                lines.append("")
            }
        }
        // A failed run's outputs are not written (`CommandSession`): the summary does not list them.
        if result.failure == nil, !result.outputs.isEmpty {
            lines.append("Outputs: " + result.outputs.map { "\(codeSpan($0.name)) = \(codeSpan(cell($0.value)))" }.joined(separator: ", "))
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The error tree, depth first, with each error's depth.
    private static func errorTree(_ error: any Error, depth: Int = 0) -> [(Int, any Error)] {
        var nodes: [(Int, any Error)] = [(depth, error)]
        if let reportable = error as? any ReportableError {
            for child in reportable.underlyingErrors { nodes += errorTree(child, depth: depth + 1) }
        }
        return nodes
    }

    /// The `GITHUB_OUTPUT` lines for the outputs: `name=value`, or a heredoc for a value of
    /// several lines.
    static func outputLines(_ outputs: [(name: String, value: String)], redactor: SecretRedactor) -> String {
        outputs.map { output in
            let value = redactor.redact(output.value)
            guard value.contains("\n") else { return "\(output.name)=\(value)\n" }
            let delimiter = "SHIPLANE_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
            return "\(output.name)<<\(delimiter)\n\(value)\n\(delimiter)\n"
        }.joined()
    }

    /// Appends text to the file a CI variable names (GitHub creates it for each step).
    static func append(_ text: String, toFileIn variable: String, environment: [String: String]) throws {
        guard let path = environment[variable], !path.isEmpty else { return }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw EnvironmentProblem("could not write \(variable) (\(path)): \(String(cString: strerror(errno)))",
                                     suggestion: "check that the file GitHub Actions named is writable")
        }
        defer { close(descriptor) }
        writeAll(Array(text.utf8), to: descriptor)
    }
}

/// The escaping of GitHub's workflow commands, for tests and for lanes that print their own.
package enum CIPlatformEscaping {
    package static func data(_ text: String) -> String { CIPlatform.escapeData(text) }
    package static func property(_ text: String) -> String { CIPlatform.escapeProperty(text) }
}
