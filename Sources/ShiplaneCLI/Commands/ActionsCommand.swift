import Foundation
import Shiplane

/// `shiplane actions` and `shiplane action NAME`.
enum ActionsCommand {
    static func list(json: Bool, markdown: Bool = false) -> String {
        if markdown { return ActionCatalog.markdownTable }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(["actions": ActionCatalog.all])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let width = ActionCatalog.all.map(\.name.count).max() ?? 0
        var lines = ["Built-in actions (`shiplane action NAME` for options):"]
        var domain = ""
        let order = ["Git", "Versioning", "Build", "Changelog", "Release", "Stores", "Notify"]
        let grouped = ActionCatalog.all.enumerated().sorted {
            let left = order.firstIndex(of: $0.element.domain) ?? order.count
            let right = order.firstIndex(of: $1.element.domain) ?? order.count
            return left == right ? $0.offset < $1.offset : left < right
        }.map(\.element)
        for action in grouped {
            if action.domain != domain {
                domain = action.domain
                lines.append("  \(domain)")
            }
            lines.append("    " + action.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + action.summary)
        }
        return lines.joined(separator: "\n")
    }

    static func show(_ name: String?) throws -> String {
        guard let name else {
            throw UsageError("`shiplane action` needs an action name", suggestion: "run `shiplane actions` to list them")
        }
        guard let action = ActionCatalog.named(name) else {
            let names = ActionCatalog.all.map(\.name)
            let close = names.min { editDistance($0, name) < editDistance($1, name) }
            var info: [(key: String, value: String)] = [("actions", names.joined(separator: ", "))]
            if let close, editDistance(close, name) <= 3 { info.insert(("did you mean", close), at: 0) }
            throw UsageError("unknown action `\(name)`", suggestion: "run `shiplane actions` to list them", info: info)
        }
        var lines = ["\(action.name) — \(action.summary)", "", "  \(action.signature)", "", "OPTIONS:"]
        for parameter in action.parameters {
            let defaultText = parameter.defaultValue.map { " (default: \($0))" } ?? ""
            lines.append("  \(parameter.name): \(parameter.type)\(defaultText)")
            lines.append("      \(parameter.help)")
        }
        lines += ["", "EXAMPLE:", "  \(action.example)", "", "DRY RUN: \(action.dryRun)", "ROLLBACK: \(action.rollback)"]
        return lines.joined(separator: "\n")
    }
}
