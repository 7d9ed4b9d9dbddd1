import Foundation
import Shiplane

/// Finds the signing keys lane code names, by reading the lane sources when they are compiled,
/// so that the run's preflight (`SigningKeyCheck`) checks them before the first step:
///
/// - `lane.sign(files, format: "minisign", key: "MY_KEY")`: the key in `MY_KEY` (format `ssh`
///   when the call spells none);
/// - `lane.provenance(for:to:key: "MY_KEY", format: …)`;
/// - `sign: true` on `commitVersionBump`, `gitCommit` or `addGitTag`: a signed commit or tag
///   whatever git's configuration says.
///
/// Only literal arguments count: a key name or a `sign:` the code computes is known at its step
/// alone, and checked there. The sources are read by `SwiftLexer`, as `LaneDiscovery` reads them:
/// a call in a comment or a string is not one; a key's name may be any literal without
/// interpolation (`"MY_KEY"`, `#"MY_KEY"#`). A declaration (`func sign(`) is not a call.
package enum SigningKeyDiscovery {
    /// The keys the sources name, in source order, each call once; `path` is relative to the root.
    package static func scan(_ sources: [(path: String, text: String)]) -> [NamedSigningKey] {
        scan(sources.map { LaneSource(path: $0.path, text: $0.text) })
    }

    /// The keys sources already read into tokens (`SwiftLexer`) name.
    static func scan(_ sources: [LaneSource]) -> [NamedSigningKey] {
        sources.flatMap { keys(in: $0.tokens, path: $0.path) }
    }

    static func keys(in tokens: [SwiftToken], path: String) -> [NamedSigningKey] {
        var found: [NamedSigningKey] = []
        for index in tokens.indices {
            guard case .word(let name) = tokens[index].kind, ["sign", "provenance", "gitCommit", "commitVersionBump", "addGitTag"].contains(name),
                  index + 1 < tokens.count, tokens[index + 1].kind == .punctuation("("),
                  index == 0 || tokens[index - 1].kind != .word("func") else { continue }
            let arguments = labeledArguments(tokens, openingAt: index + 1)
            let location = "\(path):\(tokens[index].line)"
            func literal(_ label: String) -> String?? {
                guard let value = arguments[label] else { return .none }
                if value.count == 1, case .string(let text) = value[0] { return .some(text) }
                return .some(nil)
            }
            switch name {
            case "sign", "provenance":
                // `key:` spelled as a literal; a computed name is checked at its step.
                guard case .some(.some(let variable)) = literal("key"), !variable.isEmpty else { continue }
                let format: String? = switch literal("format") {
                case .none: name == "sign" ? "ssh" : nil
                case .some(let spelled): spelled
                }
                found.append(NamedSigningKey(name == "sign" ? .files(format: format) : .provenance(format: format), variable: variable, location: location))
            default:
                guard arguments["sign"] == [.word("true")] else { continue }
                found.append(NamedSigningKey(name == "addGitTag" ? .tag : .commit, variable: nil, location: location))
            }
        }
        return found
    }

    /// The labeled arguments of the call whose `(` is at `opening`: each label's value tokens.
    static func labeledArguments(_ tokens: [SwiftToken], openingAt opening: Int) -> [String: [SwiftToken.Kind]] {
        var arguments: [String: [SwiftToken.Kind]] = [:]
        var depth = 0
        var index = opening
        var current: (label: String?, value: [SwiftToken.Kind]) = (nil, [])
        func finish() {
            if let label = current.label { arguments[label] = current.value }
            current = (nil, [])
        }
        while index < tokens.count {
            let token = tokens[index].kind
            switch token {
            case .punctuation("("), .punctuation("["), .punctuation("{"):
                depth += 1
                if depth == 1 { index += 1; continue }
            case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                depth -= 1
                if depth == 0 { finish(); return arguments }
            case .punctuation(",") where depth == 1:
                finish()
                index += 1
                continue
            default:
                break
            }
            if depth == 1, current.label == nil, current.value.isEmpty, case .word(let label) = token,
               index + 1 < tokens.count, tokens[index + 1].kind == .punctuation(":") {
                current.label = label
                index += 2
                continue
            }
            current.value.append(token)
            index += 1
        }
        return arguments
    }
}
