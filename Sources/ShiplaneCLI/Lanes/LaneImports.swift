import Foundation

/// What lane code may import: `Shiplane` and the system's modules (Foundation, Dispatch, Glibc…),
/// not the modules Shiplane itself is built from.
///
/// A lane compile finds every module of Shiplane's build (`Modules/` holds them all, as a
/// `Shiplane.swiftmodule` that names its dependencies needs them loadable), so without this check
/// `import ArgumentParser`, `import Yams` or `import ShiplaneCLI` in a lane file would compile and
/// hand the lane the parser's commands, the HTTP client or the command line's internals. The
/// imports are read with `SwiftLexer` before the compiler runs, and each one naming a module of
/// the build is reported at its line, as a compile error, with what to use instead.
enum LaneImports {
    /// One import declaration, read as Swift's grammar has it:
    /// `attributes? access-level? import import-kind? import-path`.
    struct Import: Equatable {
        /// The module: the first component of the path (`Foundation` in `import struct
        /// Foundation.Date`, `Darwin` in `import Darwin.C`).
        var module: String
        /// The whole path (`["Foundation", "Date"]`).
        var path: [String]
        /// A scoped import's kind (`struct`, `func`, …); nil for a whole module or a submodule.
        var kind: String?
        /// Its attributes' names, without `@` or arguments (`testable`, `_implementationOnly`,
        /// `preconcurrency`, `_spi`).
        var attributes: [String] = []
        /// `public`, `package`, `internal`, `fileprivate` or `private` when written.
        var accessLevel: String?
        /// The line of the `import` keyword, 1-based.
        var line: Int
        /// Its tokens, from its first attribute or modifier to the path's last component.
        var tokens: Range<Int>
    }

    /// The one module of the build that lane code imports.
    static let laneModule = "Shiplane"

    /// Swift's import kinds: `import struct M.D` imports one declaration of module M.
    static let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
    static let accessLevels: Set<String> = ["public", "package", "internal", "fileprivate", "private"]

    /// The `import` declarations in `tokens`, every form of the grammar: `import M`, `import M.Sub`,
    /// `import struct M.Decl` (any kind), `@testable import M`, `@_implementationOnly import M`,
    /// `@_spi(X) import M`, `@_exported public import M`, `internal import M`.
    static func imports(in tokens: [SwiftToken]) -> [Import] {
        var found: [Import] = []
        for index in tokens.indices where tokens[index].kind == .word("import") {
            // `x.import` is a member, not a declaration.
            if index > 0, tokens[index - 1].kind == .punctuation(".") { continue }
            var next = index + 1
            var kind: String?
            // A kind is followed by the path; `import struct` alone is no scoped import.
            if next + 1 < tokens.count, case .word(let word) = tokens[next].kind, kinds.contains(word),
               case .word = tokens[next + 1].kind {
                kind = word
                next += 1
            }
            var path: [String] = []
            while next < tokens.count, case .word(let component) = tokens[next].kind {
                if path.isEmpty, let first = component.unicodeScalars.first, !(first == "_" || CharacterSet.letters.contains(first)) { break }
                path.append(component)
                next += 1
                guard next + 1 < tokens.count, tokens[next].kind == .punctuation("."), case .word = tokens[next + 1].kind else { break }
                next += 1
            }
            guard let module = path.first else { continue }
            // Before the keyword: an access level, and before it the attributes (`@name`,
            // `@name(arguments)`), read backwards.
            var start = index
            var accessLevel: String?
            if start > 0, case .word(let word) = tokens[start - 1].kind, accessLevels.contains(word) {
                accessLevel = word
                start -= 1
            }
            var attributes: [String] = []
            while start > 0 {
                var end = start - 1
                if tokens[end].kind == .punctuation(")") {
                    var depth = 0
                    var opening = end
                    while opening >= 0 {
                        if tokens[opening].kind == .punctuation(")") { depth += 1 }
                        if tokens[opening].kind == .punctuation("(") { depth -= 1 }
                        if depth == 0 { break }
                        opening -= 1
                    }
                    guard opening > 0 else { break }
                    end = opening - 1
                }
                guard end > 0, case .word(let name) = tokens[end].kind, tokens[end - 1].kind == .punctuation("@") else { break }
                attributes.insert(name, at: 0)
                start = end - 1
            }
            found.append(Import(module: module, path: path, kind: kind, attributes: attributes, accessLevel: accessLevel,
                                line: tokens[index].line, tokens: start..<next))
        }
        return found
    }

    /// The modules of Shiplane's build that lanes could otherwise import: the Swift modules in
    /// `moduleFolder` and the C modules of its module maps, without `Shiplane`.
    static func buildModules(moduleFolder: String, moduleMaps: [String]) -> Set<String> {
        var modules = Set<String>()
        for file in (try? FileManager.default.contentsOfDirectory(atPath: moduleFolder)) ?? [] {
            for suffix in [".swiftmodule", ".swiftinterface"] where file.hasSuffix(suffix) {
                modules.insert(String(file.dropLast(suffix.count)))
            }
        }
        for map in moduleMaps {
            guard let data = FileManager.default.contents(atPath: map) else { continue }
            let words = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0.isWhitespace || $0 == "{" })
            for (index, word) in words.enumerated() where word == "module" && index + 1 < words.count {
                modules.insert(String(words[index + 1]))
            }
        }
        modules.remove(laneModule)
        return modules
    }

    /// Compiler-style errors (`Lanes/X.swift:3:1: error: …`) for the imports of build modules.
    static func problems(in sources: [LaneSource], buildModules: Set<String>) -> [String] {
        var problems: [String] = []
        for source in sources {
            for found in imports(in: source.tokens) where buildModules.contains(found.module) {
                problems.append("\(source.path):\(found.line):1: error: lane code cannot import \(found.module): it is part of Shiplane's build, not the lane API; \(advice(for: found.module))")
            }
        }
        return problems
    }

    static func advice(for module: String) -> String {
        switch module {
        case "ArgumentParser":
            return "`import Shiplane` gives lanes what they name of swift-argument-parser (@Option, @Flag, @Argument, @OptionGroup, ArgumentHelp, ValidationError, ExpressibleByArgument, EnumerableFlag, ParsableArguments): remove this import"
        case "ShiplaneTesting":
            return "ShiplaneTesting is for a package's test target (the README's \"Testing your lanes\"); lane files import Shiplane"
        default:
            return "lane files import Shiplane and the system's modules (Foundation, Dispatch); run a tool the lane needs with `lane.sh`"
        }
    }
}
