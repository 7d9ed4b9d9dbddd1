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
    struct Import: Equatable {
        var module: String
        var line: Int
    }

    /// The one module of the build that lane code imports.
    static let laneModule = "Shiplane"

    /// The `import` declarations in `tokens`: `import M`, `import struct M.Decl`,
    /// `@_exported import M`, `public import M`, `@testable import M`.
    static func imports(in tokens: [SwiftToken]) -> [Import] {
        let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
        var found: [Import] = []
        for index in tokens.indices where tokens[index].kind == .word("import") {
            // `x.import` is a member, not a declaration.
            if index > 0, tokens[index - 1].kind == .punctuation(".") { continue }
            var next = index + 1
            if next < tokens.count, case .word(let word) = tokens[next].kind, kinds.contains(word),
               next + 1 < tokens.count, case .word = tokens[next + 1].kind {
                next += 1
            }
            guard next < tokens.count, case .word(let module) = tokens[next].kind,
                  let first = module.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else { continue }
            found.append(Import(module: module, line: tokens[index].line))
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
