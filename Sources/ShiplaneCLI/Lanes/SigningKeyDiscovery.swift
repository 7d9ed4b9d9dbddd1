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
/// alone, and checked there. Comments and string literals are skipped, so a call in a comment is
/// not one. A declaration (`func sign(`) is not a call.
package enum SigningKeyDiscovery {
    /// The keys the sources name, in source order, each call once; `path` is relative to the root.
    package static func scan(_ sources: [(path: String, text: String)]) -> [NamedSigningKey] {
        sources.flatMap { source in keys(in: tokens(of: source.text), path: source.path) }
    }

    enum Token: Equatable {
        case word(String)
        /// A string literal's text; nil when it is not a plain one (interpolated, escaped, raw, multi-line).
        case string(String?)
        case punctuation(Character)
    }

    static func keys(in tokens: [(token: Token, line: Int)], path: String) -> [NamedSigningKey] {
        var found: [NamedSigningKey] = []
        for index in tokens.indices {
            guard case .word(let name) = tokens[index].token, ["sign", "provenance", "gitCommit", "commitVersionBump", "addGitTag"].contains(name),
                  index + 1 < tokens.count, tokens[index + 1].token == .punctuation("("),
                  index == 0 || tokens[index - 1].token != .word("func") else { continue }
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
    static func labeledArguments(_ tokens: [(token: Token, line: Int)], openingAt opening: Int) -> [String: [Token]] {
        var arguments: [String: [Token]] = [:]
        var depth = 0
        var index = opening
        var current: (label: String?, value: [Token]) = (nil, [])
        func finish() {
            if let label = current.label { arguments[label] = current.value }
            current = (nil, [])
        }
        while index < tokens.count {
            let token = tokens[index].token
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
               index + 1 < tokens.count, tokens[index + 1].token == .punctuation(":") {
                current.label = label
                index += 2
                continue
            }
            current.value.append(token)
            index += 1
        }
        return arguments
    }

    /// The source's words, string literals and punctuation, with their lines; comments dropped.
    static func tokens(of source: String) -> [(token: Token, line: Int)] {
        var tokens: [(token: Token, line: Int)] = []
        let characters = Array(source)
        var index = 0
        var line = 1
        func at(_ position: Int) -> Character? { position < characters.count ? characters[position] : nil }
        while index < characters.count {
            let character = characters[index]
            if character == "\n" { line += 1; index += 1; continue }
            if character.isWhitespace { index += 1; continue }
            if character == "/" && at(index + 1) == "/" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/" && at(index + 1) == "*" {
                var depth = 0
                repeat {
                    if characters[index] == "\n" { line += 1 }
                    if characters[index] == "/" && at(index + 1) == "*" { depth += 1; index += 2; continue }
                    if characters[index] == "*" && at(index + 1) == "/" { depth -= 1; index += 2; continue }
                    index += 1
                } while depth > 0 && index < characters.count
                continue
            }
            if character == "\"" || (character == "#" && (at(index + 1) == "\"" || at(index + 1) == "#")) {
                let start = line
                var hashes = 0
                while at(index) == "#" { hashes += 1; index += 1 }
                guard at(index) == "\"" else { tokens.append((.punctuation("#"), line)); continue }
                let multiline = at(index + 1) == "\"" && at(index + 2) == "\""
                let quote = multiline ? 3 : 1
                index += quote
                var text = ""
                var plain = hashes == 0 && !multiline
                while index < characters.count {
                    if characters[index] == "\\" {
                        if hashes == 0 { plain = false; index += 2; continue }
                        plain = false
                    }
                    if characters[index] == "\"",
                       (0..<quote).allSatisfy({ at(index + $0) == "\"" }),
                       (0..<hashes).allSatisfy({ at(index + quote + $0) == "#" }) {
                        index += quote + hashes
                        break
                    }
                    if characters[index] == "\n" { line += 1 }
                    text.append(characters[index])
                    index += 1
                }
                tokens.append((.string(plain ? text : nil), start))
                continue
            }
            if character.isLetter || character == "_" || character.isNumber {
                var word = ""
                while let next = at(index), next.isLetter || next.isNumber || next == "_" { word.append(next); index += 1 }
                tokens.append((.word(word), line))
                continue
            }
            if character == "`" {
                var word = ""
                index += 1
                while let next = at(index), next != "`", next != "\n" { word.append(next); index += 1 }
                index += 1
                tokens.append((.word(word), line))
                continue
            }
            tokens.append((.punctuation(character), line))
            index += 1
        }
        return tokens
    }
}
