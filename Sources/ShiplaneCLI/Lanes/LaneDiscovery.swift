import Foundation

/// Finds the lane and hook types in lane sources by reading their declarations.
///
/// A type is a lane when its declaration (or an extension of it) lists `Lane` among its
/// conformances: `struct Release: Lane`, `final class Nightly: Lane, Sendable`,
/// `extension Deploy: Lane`. Hooks likewise list `LaneHooks`. Nested types are found by their
/// qualified name. Comments and string literals are skipped, so a lane in a comment is not one.
/// A `private`/`fileprivate` or generic lane is a mistake the compile step reports with its
/// file and line (the generated entry could not see or name it), never a lane that silently
/// disappears.
package enum LaneDiscovery {
    package struct Found: Equatable {
        package var lanes: [String]
        package var hooks: [String]
        /// Where each lane is declared (`Lanes/Release.swift:12`), in the order of `lanes`.
        package var locations: [String] = []
        /// Declaration mistakes, as compiler diagnostics: `Lanes/X.swift:3:1: error: …`.
        package var problems: [String] = []
        /// Lane code's own effect types (`struct StampWritten: Effect`), so the lane program can
        /// decode them from the record and undo them for the supervisor and `shiplane rollback`.
        package var effects: [String] = []
        /// The lanes that declare `static let isPrivate = true` (in their body or an extension):
        /// other lanes call them, the command line does not offer them.
        package var privateLanes: [String] = []
    }

    package static func scan(_ sources: [String]) -> Found {
        scan(sources.map { (path: "", text: $0) })
    }

    /// The lanes and hooks of sources given with their paths relative to the repository root.
    package static func scan(_ sources: [(path: String, text: String)]) -> Found {
        var found = Found(lanes: [], hooks: [])
        var declaredPrivate: Set<String> = []
        for source in sources {
            for declaration in declarations(in: source.text) {
                if declaration.declaresPrivateLane { declaredPrivate.insert(declaration.name) }
                if declaration.conformances.contains("Effect"), !declaration.isPrivate, !declaration.isGeneric,
                   !found.effects.contains(declaration.name) {
                    found.effects.append(declaration.name)
                }
                let isLane = declaration.conformances.contains("Lane")
                let isHooks = !isLane && declaration.conformances.contains("LaneHooks")
                guard isLane || isHooks else { continue }
                let location = "\(source.path):\(declaration.line)"
                let kind = isLane ? "lane" : "hooks type"
                if declaration.isPrivate {
                    found.problems.append("\(location):1: error: \(kind) `\(declaration.name)` is private: the command line cannot see it; remove `private`/`fileprivate` (a lane only other lanes call sets `static let isPrivate = true`)")
                    continue
                }
                if declaration.isGeneric {
                    found.problems.append("\(location):1: error: \(kind) `\(declaration.name)` is generic: the command line cannot choose its type parameters; make it a concrete type")
                    continue
                }
                if isLane {
                    if !found.lanes.contains(declaration.name) {
                        found.lanes.append(declaration.name)
                        found.locations.append(location)
                    }
                } else if !found.hooks.contains(declaration.name) {
                    found.hooks.append(declaration.name)
                }
            }
        }
        found.privateLanes = found.lanes.filter(declaredPrivate.contains)
        return found
    }

    struct Declaration {
        var name: String
        var conformances: [String]
        var isPrivate: Bool
        var isGeneric: Bool
        /// The line of the declaration's name, 1-based.
        var line: Int = 1
        /// True when its own body (not a nested type's) sets `isPrivate` to true.
        var declaresPrivateLane = false
    }

    /// True when `body` declares `static let isPrivate = true`, `static var isPrivate: Bool { true }`
    /// or another spelling of them (read as words, no regular expression: this runs on every start).
    static func setsPrivate(_ body: String) -> Bool {
        var tokens: [Substring] = []
        var start: String.Index?
        for index in body.indices {
            let character = body[index]
            if character.isLetter || character.isNumber || character == "_" {
                if start == nil { start = index }
                continue
            }
            if let begun = start { tokens.append(body[begun..<index]) }
            start = nil
            if !character.isWhitespace { tokens.append(body[index...index]) }
        }
        if let begun = start { tokens.append(body[begun...]) }
        func token(_ position: Int) -> Substring? { tokens.indices.contains(position) ? tokens[position] : nil }
        for position in tokens.indices where tokens[position] == "isPrivate" && position >= 2
            && (tokens[position - 1] == "let" || tokens[position - 1] == "var") && tokens[position - 2] == "static" {
            var next = position + 1
            if token(next) == ":" && token(next + 1) == "Bool" { next += 2 }
            if token(next) == "=" && token(next + 1) == "true" { return true }
            if token(next) == "{" {
                next += token(next + 1) == "return" ? 2 : 1
                if token(next) == "true" && token(next + 1) == "}" { return true }
            }
        }
        return false
    }

    static let modifierWords: Set<String> = ["public", "internal", "private", "fileprivate", "final", "open", "indirect", "package", "nonisolated"]

    /// The type declarations and extensions in `source`, with qualified names.
    static func declarations(in source: String) -> [Declaration] {
        let code = stripCommentsAndStrings(source)
        var result: [Declaration] = []
        var stack: [String?] = []   // one entry per open brace: the type it opens, if any
        // Per open brace: the declaration it opens (its index in `result`) and where its body starts.
        var bodies: [(declaration: Int, start: Int)?] = []
        var bodyRanges: [Int: Range<Int>] = [:]
        var offset = -1
        var pending: (name: String, isExtension: Bool, isPrivate: Bool, line: Int)?
        var line = 1
        var header = ""
        var collecting = false
        var previousWords: [String] = []
        var word = ""

        func qualified(_ name: String, isExtension: Bool) -> String {
            if isExtension { return name }
            let outer = stack.compactMap { $0 }
            return (outer + [name]).joined(separator: ".")
        }

        func endWord() {
            guard !word.isEmpty else { return }
            if collecting {
                header += word
            } else if let last = previousWords.last, ["struct", "class", "enum", "actor", "extension"].contains(last),
                      pending == nil, word != "func", word != "var" {
                let modifiers = previousWords.dropLast().reversed().prefix { modifierWords.contains($0) }
                pending = (word, last == "extension", modifiers.contains("private") || modifiers.contains("fileprivate"), line)
                collecting = true
                header = ""
            }
            previousWords.append(word)
            if previousWords.count > 6 { previousWords.removeFirst() }
            word = ""
        }

        for character in code {
            offset += 1
            if character.isLetter || character.isNumber || character == "_" || (character == "." && !word.isEmpty) {
                word.append(character)
                continue
            }
            endWord()
            if character == "\n" { line += 1 }
            switch character {
            case "{":
                if let declared = pending {
                    let name = qualified(declared.name, isExtension: declared.isExtension)
                    let conformances = conformanceList(header)
                    let isGeneric = header.trimmingCharacters(in: .whitespaces).hasPrefix("<")
                    result.append(Declaration(
                        name: name, conformances: conformances,
                        isPrivate: declared.isPrivate,
                        isGeneric: isGeneric,
                        line: declared.line
                    ))
                    stack.append(declared.isExtension ? nil : name.components(separatedBy: ".").last)
                    bodies.append((result.count - 1, offset + 1))
                    pending = nil
                    collecting = false
                    header = ""
                } else {
                    stack.append(nil)
                    bodies.append(nil)
                }
            case "}":
                if !stack.isEmpty { stack.removeLast() }
                if let body = bodies.popLast(), let body { bodyRanges[body.declaration] = body.start..<offset }
            case ";":
                pending = nil
                collecting = false
            default:
                if collecting { header.append(character) }
            }
        }
        // A body's own text: nested types' bodies blanked, so their `isPrivate` is theirs.
        guard code.contains("isPrivate") else { return result }
        let characters = Array(code)
        for (index, range) in bodyRanges {
            var own = characters[range]
            for (other, nested) in bodyRanges where other != index && range.contains(nested.lowerBound) && nested.upperBound <= range.upperBound {
                for position in nested { own[position] = " " }
            }
            result[index].declaresPrivateLane = setsPrivate(String(own))
        }
        return result
    }

    /// `<T>: Lane, Sendable where T: X` → ["Lane", "Sendable"].
    static func conformanceList(_ header: String) -> [String] {
        var text = header
        if let whereRange = text.range(of: " where ") { text = String(text[..<whereRange.lowerBound]) }
        guard let colon = text.firstIndex(of: ":") else { return [] }
        return text[text.index(after: colon)...]
            .split(whereSeparator: { $0 == "," || $0 == "&" })
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0.hasPrefix("Shiplane.") ? String($0.dropFirst("Shiplane.".count)) : $0 }
    }

    /// The source with comments removed and string literal contents blanked.
    static func stripCommentsAndStrings(_ source: String) -> String {
        var output = ""
        output.reserveCapacity(source.utf8.count)
        let characters = Array(source)
        var index = 0
        var commentDepth = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if commentDepth > 0 {
                if character == "*" && next == "/" { commentDepth -= 1; index += 2; continue }
                if character == "/" && next == "*" { commentDepth += 1; index += 2; continue }
                if character == "\n" { output.append("\n") }
                index += 1
                continue
            }
            if character == "/" && next == "/" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/" && next == "*" { commentDepth = 1; index += 2; continue }
            if character == "\"" || (character == "#" && next.map { $0 == "\"" || $0 == "#" } == true) {
                // Raw delimiters (#"..."#) and multi-line strings ("""...""").
                var hashes = 0
                while index < characters.count && characters[index] == "#" { hashes += 1; index += 1 }
                guard index < characters.count, characters[index] == "\"" else { output.append(character); continue }
                let multiline = index + 2 < characters.count && characters[index + 1] == "\"" && characters[index + 2] == "\""
                let quote = multiline ? 3 : 1
                index += quote
                output.append(" ")
                while index < characters.count {
                    if hashes == 0 && characters[index] == "\\" { index += 2; continue }
                    if characters[index] == "\"" {
                        var matches = true
                        for offset in 0..<quote where index + offset >= characters.count || characters[index + offset] != "\"" { matches = false }
                        if matches {
                            var end = index + quote
                            var closing = 0
                            while closing < hashes && end < characters.count && characters[end] == "#" { closing += 1; end += 1 }
                            if closing == hashes { index = end; break }
                        }
                    }
                    if characters[index] == "\n" { output.append("\n") }
                    index += 1
                }
                output.append(" ")
                continue
            }
            output.append(character)
            index += 1
        }
        return output
    }
}
