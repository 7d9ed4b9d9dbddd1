import Foundation
import Shiplane

/// Renders a run live: a line as each step starts and ends, command output as it arrives.
package final class TerminalReporter: Reporting, Sendable {
    private let terminal: Terminal
    private let verbose: Bool
    private let ci: CIPlatform

    package init(terminal: Terminal, verbose: Bool, ci: CIPlatform = .none) {
        self.terminal = terminal
        self.verbose = verbose
        self.ci = ci
    }

    package func report(_ event: RunEvent) {
        switch event {
        case .laneStarted(let name, let depth, let dryRun):
            // A called lane already shows as its step (`▸ lane package`).
            guard depth == 0 else { return }
            let suffix = dryRun && depth == 0 ? terminal.styled("  (dry run: nothing is written, pushed or sent)", .yellow) : ""
            terminal.line(indent(depth) + terminal.styled("▸ lane \(name)", .bold) + suffix)
        case .stepStarted(let step):
            let options = Self.optionSummary(step.options)
            // CI folds one level (GitHub's groups do not nest): the steps of the top lane.
            if step.depth == 0, let open = ci.opening(step: step, title: step.name + (options.isEmpty ? "" : " " + options)) {
                terminal.line(open)
            }
            terminal.line(indent(step.depth + 1) + terminal.styled("▸ \(step.name)", .cyan) + (options.isEmpty ? "" : " " + options))
        case .stepFinished(let step):
            let time = step.duration.map(formatSeconds) ?? ""
            let prefix = indent(step.depth + 1)
            switch step.outcome {
            case .failed where step.error?.hasSuffix(ResumingFromOrigin.ending) == true:
                // Not a failure: the step stopped for the unfinished run on origin, which the
                // command now resumes.
                terminal.line(prefix + terminal.styled("↻ \(step.name) stopped", .yellow) + " (\(time)): " + (step.error ?? ""))
            case .failed:
                terminal.line(prefix + terminal.styled("✗ \(step.name) failed", .red, .bold) + " (\(time))" + (step.error.map { ": \($0)" } ?? ""))
            default:
                terminal.line(prefix + terminal.styled("✓ \(step.name)", .green) + " (\(time))" + (step.note.map { "  \($0)" } ?? ""))
            }
            if step.depth == 0, let close = ci.closing(step: step) { terminal.line(close) }
        case .output(let line, _, _):
            terminal.line("    " + terminal.styled("│", .dim) + " " + line)
        case .message(let text, let level, _):
            guard level > .debug || verbose else { return }
            let mark = level == .warning ? terminal.styled("! ", .yellow) : terminal.styled("· ", .dim)
            terminal.line("    " + mark + text)
        case .rollbackStarted(let count):
            terminal.line(terminal.styled("↺ rolling back \(count) change\(count == 1 ? "" : "s")", .yellow, .bold))
        case .rollbackFinished(let entries):
            for entry in entries {
                if entry.undone {
                    terminal.line("  " + terminal.styled("↺ undone:", .yellow) + " \(entry.description)")
                } else if entry.stays == true {
                    terminal.line("  " + terminal.styled("· stays:", .dim) + " \(entry.error ?? entry.description)")
                } else {
                    terminal.line("  " + terminal.styled("! could not undo:", .red) + " \(entry.description): \(entry.error ?? "unknown")")
                }
            }
        case .laneFinished:
            // The top lane ends in the summary table; a called lane in its step's line.
            return
        }
    }

    private func indent(_ depth: Int) -> String { String(repeating: "  ", count: depth) }

    /// `matching=main|release/.+`, or the command itself for `sh`.
    static func optionSummary(_ options: [StepOption]) -> String {
        if options.count >= 1, options[0].name == "command" {
            return ([options[0].value] + options.dropFirst().map { "\($0.name)=\($0.value)" }).joined(separator: "  ")
        }
        return options.map { "\($0.name)=\($0.value)" }.joined(separator: "  ")
    }
}
