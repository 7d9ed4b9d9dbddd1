import Foundation
import Shiplane

/// The run as JUnit XML for CI test reporters (`--junit FILE`): one test case per step.
package enum JUnitReport {
    package static func xml(for result: LaneRunResult, redactor: SecretRedactor) -> String {
        let failures = result.steps.filter { $0.outcome == .failed }.count
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="shiplane" tests="\#(result.steps.count)" failures="\#(failures)" time="\#(seconds(result.duration))">"#,
            #"  <testsuite name="lane \#(escape(result.lane))" tests="\#(result.steps.count)" failures="\#(failures)" time="\#(seconds(result.duration))">"#,
        ]
        let errorText = result.failure.map { ErrorTree.lines(for: $0).joined(separator: "\n") }
        var seen: [String: Int] = [:]
        for step in result.steps {
            // Named by what ran and where, so a CI's history tracks one step across runs; a call
            // made again at the same line (a loop) gets its count. `file` and `line` point at it.
            let site = step.callSite.map { " (\($0))" } ?? ""
            var name = step.name + site
            seen[name, default: 0] += 1
            if let count = seen[name], count > 1 { name += " #\(count)" }
            let location = step.callSite.map { #" file="\#(escape($0.file))" line="\#($0.line)""# } ?? ""
            let open = #"    <testcase classname="\#(escape(result.lane))" name="\#(escape(name))"\#(location) time="\#(seconds(step.duration ?? 0))""#
            if step.outcome == .failed {
                lines.append(open + ">")
                let message = escape(step.error ?? "failed")
                lines.append(#"      <failure message="\#(message)">\#(escape(errorText ?? ""))</failure>"#)
                lines.append("    </testcase>")
            } else if step.outcome == .skipped || step.outcome == .running {
                lines.append(open + "><skipped/></testcase>")
            } else {
                lines.append(open + "/>")
            }
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return redactor.redact(lines.joined(separator: "\n") + "\n")
    }

    /// A command that ended before any step ran (a usage or compile error): one failed test case
    /// named by the command, so CI shows the failure instead of an empty or missing report.
    package static func xml(forError error: any Error, command: String, redactor: SecretRedactor) -> String {
        let tree = ErrorTree.lines(for: error).joined(separator: "\n")
        let message = ErrorTree.node(error).message
        let lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="shiplane" tests="1" failures="1" time="0.000">"#,
            #"  <testsuite name="\#(escape(command))" tests="1" failures="1" time="0.000">"#,
            #"    <testcase classname="\#(escape(command))" name="\#(escape(command))" time="0.000">"#,
            #"      <failure message="\#(escape(message))">\#(escape(tree))</failure>"#,
            "    </testcase>",
            "  </testsuite>",
            "</testsuites>",
        ]
        return redactor.redact(lines.joined(separator: "\n") + "\n")
    }

    private static func seconds(_ value: TimeInterval) -> String { String(format: "%.3f", value) }

    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n", "\t", "\r": result.unicodeScalars.append(scalar)
            default:
                // XML 1.0 forbids most control characters even when escaped.
                if scalar.value < 0x20 { result += "?" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }
}
