import Foundation

/// A monorepo dependent's `go.mod` requirements of the repository's other Go modules, brought up
/// to the versions those modules were released at (`UpdateDependencyRequirements`).
///
/// What Go users expect, and what is done:
/// - `require MODULE vX.Y.Z`, alone or inside `require ( … )`, naming another package's module
///   path (its go.mod's `module` line) exactly: the version becomes the one the package's release
///   tags say (`v1.4.0` → `v1.5.0`); the path, the spacing and a comment such as `// indirect`
///   stay. Only a raise: a requirement already at or above it (a pseudo-version of a later commit,
///   `v1.5.1-0.20250101…`) is left, since Go's minimal version selection takes the higher anyway.
///   A pseudo-version below it (`v0.0.0-2024…-abcdef`, a commit before the release) is raised
///   to the release; a `+incompatible` requirement is left.
/// - Major versions 2 and up change the module path (`…/core/v2`). A release of a module whose
///   path does not say its major version (`example.com/core` at 2.0.0) cannot be required at all
///   (`go` refuses `example.com/core v2.0.0`): that is an error, naming both files, and nothing is
///   written. A dependent still on an older major line (`example.com/core v1.4.0` while the
///   module is `example.com/core/v2`) keeps it — moving to v2 changes its import paths, which is
///   the author's work (`go get example.com/core/v2@v2.0.0`) — and the step says so.
/// - `replace MODULE => ../core` (a local path) is left as it is, and the requirement is still
///   rewritten: the replacement serves builds inside the repository, the requirement is what
///   consumers outside it get (they ignore a dependency's `replace`). A replacement of one version
///   (`replace MODULE v1.4.0 => ../core`) has its version moved with the requirement, so it still
///   applies.
///
/// A line `go` would refuse (a `require` without a version, a version without its `v`, a
/// `require (` block never closed) is a `ManifestRequirementError` naming the file and line.
enum GoModRequirements {
    /// Another package's Go module: its path and the version it was released at.
    struct Module: Sendable, Equatable {
        /// The package's name in `.shiplane.yml`.
        var package: String
        /// Its go.mod's `module` path.
        var path: String
        /// Its go.mod, as messages name it.
        var file: String
        /// The version its release tags say.
        var version: SemanticVersion
        /// The tag that version was read from.
        var tag: String
    }

    /// What `edited` did to a go.mod (`ManifestEdit`).
    typealias Edit = ManifestEdit

    /// The `module` path of a go.mod, or nil when it has none.
    static func modulePath(_ text: String) -> String? {
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = fields(code(of: Substring(raw)))
            if words.count == 2, words[0] == "module" { return words[1].unquoted }
        }
        return nil
    }

    /// `text`, a dependent's go.mod (`file` in messages), with each requirement of `modules` raised
    /// to the module's released version.
    /// - Throws: `ManifestRequirementError` for a line `go` refuses, or a module released at a
    ///   major version its path cannot carry.
    static func edited(_ text: String, file: String, modules: [Module]) throws -> Edit {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var edit = Edit(text: text)
        /// Each raised requirement's old and new version, by module path.
        var raised: [String: (from: String, to: String)] = [:]
        var replaces: [(line: Int, words: [String])] = []
        var block: (directive: String, line: Int)?
        for index in lines.indices {
            let words = fields(code(of: Substring(lines[index])))
            let number = index + 1
            var directive: String
            var arguments: [String]
            if let open = block {
                if words == [")"] { block = nil; continue }
                if words.isEmpty { continue }
                directive = open.directive
                arguments = words
            } else {
                guard let first = words.first else { continue }
                // `require (` or `require(`: a block of one directive.
                if words.count == 2 && words[1] == "(" || words.count == 1 && first.hasSuffix("(") {
                    block = (String(first.dropLast(first.hasSuffix("(") && first != "(" ? 1 : 0)), number)
                    continue
                }
                directive = first
                arguments = Array(words.dropFirst())
            }
            switch directive {
            case "require":
                guard arguments.count == 2 else {
                    throw ManifestRequirementError(file: file, line: number, "`require \(arguments.joined(separator: " "))` is not a module path and a version",
                                                   suggestion: "write `require example.com/module v1.2.3` (in a `require ( … )` block: `example.com/module v1.2.3`), as `go mod tidy` does")
                }
                let path = arguments[0].unquoted
                let current = arguments[1]
                guard current.hasPrefix("v"), let version = SemanticVersion(current) else {
                    throw ManifestRequirementError(file: file, line: number, "`\(current)` (the version required of \(path)) is not a Go module version",
                                                   suggestion: "write it as Go does: v, then MAJOR.MINOR.PATCH (`v1.4.0`), or run `go mod tidy`")
                }
                if let module = modules.first(where: { $0.path == path }) {
                    guard let updated = try raise(current, version, to: module, file: file, line: number, notes: &edit.notes) else { continue }
                    lines[index] = replacingWord(current, after: arguments[0], in: lines[index], with: updated)
                    raised[path] = (current, updated)
                    edit.changed.append("\(path) \(current) → \(updated)")
                } else if let module = modules.first(where: { base(of: $0.path) == base(of: path) }) {
                    edit.notes.append("\(file):\(number) requires \(path) \(current), an earlier major version of \(module.package) (now \(module.path) at \(module.version)): "
                        + "left, since moving to it changes the import paths (`go get \(module.path)@v\(module.version)`)")
                }
            case "replace":
                replaces.append((index, arguments))
            default:
                continue
            }
        }
        if let open = block {
            throw ManifestRequirementError(file: file, line: open.line, "the `\(open.directive) (` block is never closed",
                                           suggestion: "end it with a line holding `)`, or run `go mod tidy`")
        }
        // `replace MODULE v1.4.0 => ../core` applies to v1.4.0 alone: it moves with the requirement.
        for (index, words) in replaces where words.count >= 4 && words[2] == "=>" {
            guard let moved = raised[words[0].unquoted], words[1] == moved.from else { continue }
            lines[index] = replacingWord(words[1], after: words[0], in: lines[index], with: moved.to)
            edit.changed.append("replace \(words[0].unquoted) \(moved.from) → \(moved.to)")
        }
        edit.text = lines.joined(separator: "\n")
        return edit
    }

    /// The version `current` becomes for `module`, or nil when it stays (a note says why where
    /// that is not plain).
    private static func raise(_ current: String, _ version: SemanticVersion, to module: Module, file: String, line: Int,
                              notes: inout [String]) throws -> String? {
        let suffix = majorSuffix(of: module.path)
        guard suffix.map({ $0 == module.version.major }) ?? (module.version.major <= 1) else {
            let wanted = "\(base(of: module.path))/v\(module.version.major)"
            throw ManifestRequirementError(
                file: file, line: line,
                "requires \(module.path), which \(module.package) released as \(module.version) (tag \(module.tag)), and Go takes v\(module.version.major) only from a module path ending in /v\(module.version.major) (\(module.file) says `module \(module.path)`)",
                suggestion: "nothing was written: `go` refuses `\(module.path) v\(module.version)`. Give \(module.package) the path \(wanted) (its go.mod's module line and the import paths) and release it again, then this package; or release \(module.package) as v\(suffix.map(String.init) ?? "1").x")
        }
        if version.buildMetadata == ["incompatible"] {
            notes.append("\(file):\(line) requires \(module.path) \(current) (+incompatible): left as written")
            return nil
        }
        guard version.comparePrecedence(to: module.version) == .orderedAscending else {
            if version.comparePrecedence(to: module.version) == .orderedDescending {
                notes.append("\(file):\(line) requires \(module.path) \(current), later than its release \(module.version): left")
            }
            return nil
        }
        return "v" + module.version.description
    }

    /// `/vN` at the end of a module path (N ≥ 2), as its major version.
    static func majorSuffix(of path: String) -> Int? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let last = path[path.index(after: slash)...]
        guard last.hasPrefix("v"), let major = Int(last.dropFirst()), major >= 2, String(major) == last.dropFirst() else { return nil }
        return major
    }

    /// A module path without its `/vN` major version suffix.
    static func base(of path: String) -> String {
        guard majorSuffix(of: path) != nil, let slash = path.lastIndex(of: "/") else { return path }
        return String(path[..<slash])
    }

    /// A go.mod line without its `//` comment (outside quotes).
    static func code(of line: Substring) -> Substring {
        var quote: Character?
        var previous: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open && previous != "\\" { quote = nil }
            } else if character == "\"" || character == "`" {
                quote = character
            } else if character == "/", previous == "/" {
                return line[..<line.index(before: index)]
            }
            previous = character
        }
        return line
    }

    /// The words of a line, split at spaces and tabs.
    static func fields(_ code: Substring) -> [String] {
        code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
    }

    /// `line` with the first `word` after `anchor` replaced by `replacement`, every other byte kept.
    private static func replacingWord(_ word: String, after anchor: String, in line: String, with replacement: String) -> String {
        guard let start = line.range(of: anchor), let found = line.range(of: word, range: start.upperBound..<line.endIndex) else { return line }
        return line.replacingCharacters(in: found, with: replacement)
    }
}

private extension String {
    /// A go.mod word without its quotes (`"example.com/m"`, `` `example.com/m` ``).
    var unquoted: String {
        guard count >= 2, let first, first == "\"" || first == "`", last == first else { return self }
        return String(dropFirst().dropLast())
    }
}

/// A manifest line Shiplane cannot rewrite because its own tool would refuse it, or a
/// requirement that cannot be written without making the manifest invalid: a usage error (exit 2)
/// naming the file and line. Nothing was written.
package struct ManifestRequirementError: ReportableError {
    /// The manifest, as messages name it.
    package var file: String
    /// The line, from 1.
    package var line: Int
    /// What is wrong there.
    package var problem: String
    /// How to fix it.
    package var suggestion: String?

    init(file: String, line: Int, _ problem: String, suggestion: String) {
        self.file = file
        self.line = line
        self.problem = problem
        self.suggestion = suggestion
    }

    package var message: String { "\(file):\(line): \(problem)" }
    package var category: ErrorCategory { .usage }
}
