import Foundation

/// Finds the lane and hook types in lane sources by reading their declarations.
///
/// A type is a lane when its declaration (or an extension of it) lists `Lane` among its
/// conformances: `struct Release: Lane`, `final class Nightly: Lane, Sendable`,
/// `extension Deploy: Lane`. Hooks likewise list `LaneHooks`. Nested types are found by their
/// qualified name. The sources are read by `SwiftLexer` (as `SigningKeyDiscovery` reads them):
/// comments and string literals are skipped, so a lane in a comment or a string is not one.
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
        scan(sources.map { LaneSource(path: $0.path, text: $0.text) })
    }

    /// The lanes and hooks of sources already read into tokens (`SwiftLexer`).
    static func scan(_ sources: [LaneSource]) -> Found {
        var found = Found(lanes: [], hooks: [])
        var declaredPrivate: Set<String> = []
        for source in sources {
            for declaration in declarations(in: source.tokens) {
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

    /// True when `body` (a declaration's own tokens) declares `static let isPrivate = true`,
    /// `static var isPrivate: Bool { true }` or another spelling of them.
    static func setsPrivate(_ body: [SwiftToken]) -> Bool {
        func token(_ position: Int) -> SwiftToken.Kind? { body.indices.contains(position) ? body[position].kind : nil }
        for position in body.indices where body[position].kind == .word("isPrivate") && position >= 2
            && (token(position - 1) == .word("let") || token(position - 1) == .word("var")) && token(position - 2) == .word("static") {
            var next = position + 1
            if token(next) == .punctuation(":") && token(next + 1) == .word("Bool") { next += 2 }
            if token(next) == .punctuation("=") && token(next + 1) == .word("true") { return true }
            if token(next) == .punctuation("{") {
                next += token(next + 1) == .word("return") ? 2 : 1
                if token(next) == .word("true") && token(next + 1) == .punctuation("}") { return true }
            }
        }
        return false
    }

    static let modifierWords: Set<String> = ["public", "internal", "private", "fileprivate", "final", "open", "indirect", "package", "nonisolated"]
    static let typeKeywords: Set<String> = ["struct", "class", "enum", "actor", "extension"]
    /// Words after `class` that make it a modifier (`class func`, `class override var`), not a declaration.
    static let memberWords: Set<String> = ["func", "var", "let", "subscript", "init", "deinit", "override", "final", "static", "required", "convenience", "nonisolated", "dynamic"]

    /// The type declarations and extensions in `tokens`, with qualified names.
    static func declarations(in tokens: [SwiftToken]) -> [Declaration] {
        var result: [Declaration] = []
        var stack: [String?] = []   // one entry per open brace: the type it opens, if any
        // Per open brace: the declaration it opens (its index in `result`) and where its body starts.
        var bodies: [(declaration: Int, start: Int)?] = []
        var bodyRanges: [Int: Range<Int>] = [:]
        // A declaration whose `{` has not come yet; `header` is where its tokens after the name start.
        var pending: (name: String, isExtension: Bool, isPrivate: Bool, line: Int, header: Int)?
        var previousWords: [String] = []
        // Import declarations are not read here: `import struct Foundation.Date` names a type
        // it does not declare (`LaneImports` reads them, every form of the grammar).
        var importEnds: [Int: Int] = [:]
        for found in LaneImports.imports(in: tokens) { importEnds[found.tokens.lowerBound] = found.tokens.upperBound }
        var position = 0
        while position < tokens.count {
            if let end = importEnds[position] {
                previousWords.removeAll()
                position = end
                continue
            }
            switch tokens[position].kind {
            case .word(let first):
                // A dotted name (`Shiplane.Lane`, `extension Namespace.Inner`) is one word.
                var word = first
                var end = position + 1
                while end + 1 < tokens.count, tokens[end].kind == .punctuation("."), case .word(let part) = tokens[end + 1].kind {
                    word += "." + part
                    end += 2
                }
                if pending == nil, let last = previousWords.last, typeKeywords.contains(last), !memberWords.contains(word) {
                    let modifiers = previousWords.dropLast().reversed().prefix { modifierWords.contains($0) }
                    pending = (word, last == "extension", modifiers.contains("private") || modifiers.contains("fileprivate"), tokens[position].line, end)
                }
                previousWords.append(word)
                if previousWords.count > 6 { previousWords.removeFirst() }
                position = end
                continue
            case .punctuation("{"):
                if let declared = pending {
                    let name = declared.isExtension ? declared.name : (stack.compactMap { $0 } + [declared.name]).joined(separator: ".")
                    let header = tokens[declared.header..<position]
                    result.append(Declaration(
                        name: name, conformances: conformanceList(header),
                        isPrivate: declared.isPrivate,
                        isGeneric: header.first?.kind == .punctuation("<"),
                        line: declared.line
                    ))
                    stack.append(declared.isExtension ? nil : name.components(separatedBy: ".").last)
                    bodies.append((result.count - 1, position + 1))
                    pending = nil
                } else {
                    stack.append(nil)
                    bodies.append(nil)
                }
            case .punctuation("}"):
                if !stack.isEmpty { stack.removeLast() }
                if let body = bodies.popLast(), let body { bodyRanges[body.declaration] = body.start..<position }
            case .punctuation(";"):
                pending = nil
            default:
                break
            }
            position += 1
        }
        // A body's own tokens: nested types' bodies left out, so their `isPrivate` is theirs.
        guard tokens.contains(where: { $0.kind == .word("isPrivate") }) else { return result }
        for (index, range) in bodyRanges {
            var own = Array(repeating: true, count: range.count)
            for (other, nested) in bodyRanges where other != index && range.contains(nested.lowerBound) && nested.upperBound <= range.upperBound {
                for position in nested { own[position - range.lowerBound] = false }
            }
            result[index].declaresPrivateLane = setsPrivate(range.filter { own[$0 - range.lowerBound] }.map { tokens[$0] })
        }
        return result
    }

    /// The types a declaration's header lists after its colon: `<T>: Lane, Sendable where T: X`
    /// → ["Lane", "Sendable"] (a generic parameter's own constraints are not the type's).
    static func conformanceList(_ header: ArraySlice<SwiftToken>) -> [String] {
        var position = header.startIndex
        if header.first?.kind == .punctuation("<") {
            var depth = 0
            while position < header.endIndex {
                if header[position].kind == .punctuation("<") { depth += 1 }
                if header[position].kind == .punctuation(">") { depth -= 1 }
                position += 1
                if depth == 0 { break }
            }
        }
        guard position < header.endIndex, header[position].kind == .punctuation(":") else { return [] }
        var list: [String] = []
        var entry = ""
        var depth = 0
        func finish() {
            if !entry.isEmpty { list.append(entry.hasPrefix("Shiplane.") ? String(entry.dropFirst("Shiplane.".count)) : entry) }
            entry = ""
        }
        position += 1
        while position < header.endIndex {
            switch header[position].kind {
            case .word("where") where depth == 0:
                finish()
                return list
            case .word(let word):
                entry += word
            case .punctuation("@") where entry.isEmpty:
                // An attribute (`@unchecked Sendable`): not part of the type's name.
                position += 1
            case .punctuation(let character):
                if "<([".contains(character) { depth += 1 }
                if ">)]".contains(character) { depth -= 1 }
                if depth == 0 && (character == "," || character == "&") { finish() } else { entry.append(character) }
            case .string:
                break
            }
            position += 1
        }
        finish()
        return list
    }
}

/// A lane source file read into tokens once, for every scan of it.
struct LaneSource {
    /// Relative to the repository root (`Lanes/Release.swift`).
    var path: String
    var tokens: [SwiftToken]

    init(path: String, text: String) {
        self.path = path
        tokens = SwiftLexer.tokens(of: text)
    }
}
