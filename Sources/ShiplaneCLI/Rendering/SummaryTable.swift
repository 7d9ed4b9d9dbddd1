import Foundation
import Shiplane

/// The end-of-run table: every step with its call site, time and result.
///
///     #  step             called at                time     result
///     1  ensureGitBranch  Lanes/Release.swift:12   0.01 s   ok  main
package enum SummaryTable {
    package static func lines(for result: LaneRunResult) -> [String] {
        var rows: [[String]] = [["#", "step", "called at", "time", "result"]]
        for step in result.steps {
            let indent = String(repeating: "  ", count: step.depth)
            let outcome: String
            switch step.outcome {
            case .succeeded: outcome = step.note.map { "ok  \($0)" } ?? "ok"
            case .failed: outcome = "FAILED"
            case .skipped: outcome = "skipped"
            case .running: outcome = "did not finish"
            }
            rows.append([
                "\(step.number)", indent + step.name, step.callSite?.description ?? "-",
                step.duration.map(formatSeconds) ?? "-", outcome,
            ])
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        // Padded and joined by hand: `padding(toLength:)` bridges to NSString and `joined` looks
        // its element's conformances up at run time, each a scan of every conformance of a 100 MB
        // static lane program, for the one table every run prints.
        var output: [String] = []
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                line += cell
                if column < 4 { line += String(repeating: " ", count: max(0, widths[column] - cell.count)) }
            }
            output.append(line)
        }
        let verdict: String
        if result.interrupted {
            verdict = "interrupted"
        } else if result.succeeded {
            verdict = result.dryRun ? "dry run completed: nothing was written" : "succeeded"
        } else {
            verdict = "failed"
        }
        output.append("lane \(result.lane) \(verdict) in \(formatSeconds(result.duration)) (\(counted(result.steps.count, "step")))")
        if result.dryRun && !result.plannedWrites.isEmpty {
            output.append("would write: " + result.plannedWrites.joined(separator: ", "))
        }
        return output
    }
}
