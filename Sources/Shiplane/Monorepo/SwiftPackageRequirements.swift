import Foundation

/// A monorepo dependent's `Package.swift` requirements of the repository's other Swift packages,
/// raised to the versions those packages were released at (`UpdateDependencyRequirements`).
///
/// - `.package(path: "../core")` carries no version: nothing is rewritten for it (SwiftPM builds
///   the folder as it is).
/// - `.package(url: URL, …)` is another package of the repository when URL is the `repository:`
///   that `.shiplane.yml` gives that package (where SwiftPM users get it: a repository of its own,
///   split out of the monorepo). URLs are compared without scheme, user, `.git` and case
///   (`git@github.com:acme/core.git` is `https://github.com/acme/core`). Its requirement is
///   raised to the package's released version, its form kept: `from: "1.4.0"`, `exact: "1.4.0"`,
///   `.upToNextMajor(from:)`, `.upToNextMinor(from:)`, `.exact(…)`, and a range
///   `"1.4.0"..<"2.0.0"` (its lower bound raised; its upper bound moved to the next major version
///   when the release is past it). Only a raise; `branch:` and `revision:` are left.
/// - `.package(id: "acme.core", …)`, a registry dependency, is another package of the repository
///   when the identity is the `registry-id:` `.shiplane.yml` gives that package (`scope.name`,
///   compared case-insensitively, as SwiftPM compares registry identities); its requirement is
///   raised as a URL's is, every form kept.
/// - Comments and strings are skipped, so a `.package(…)` commented out is not touched.
///
/// A version SwiftPM would refuse (`from: "1.4"`), or a `.package(` never closed, is a
/// `ManifestRequirementError` naming the file and line.
enum SwiftPackageRequirements {
    /// Another package of the repository as SwiftPM users name it: by URL or registry identity.
    struct Dependency: Sendable, Equatable {
        /// Its name in `.shiplane.yml`.
        var package: String
        /// Its `repository:` in `.shiplane.yml`.
        var url: String?
        /// Its `registry-id:` in `.shiplane.yml` (`scope.name`).
        var registryID: String? = nil
        /// The version its release tags say.
        var version: SemanticVersion
    }

    /// The URLs (`normalized`) and registry identities (lowercased) a Package.swift's
    /// `.package(…)` calls name, outside comments and strings: which packages' releases a
    /// dependent needs to know.
    /// - Throws: `ManifestRequirementError` for a call never closed.
    static func named(in text: String, file: String) throws -> (urls: Set<String>, ids: Set<String>) {
        var urls: Set<String> = [], ids: Set<String> = []
        for call in try packageCalls(in: text, file: file) {
            let arguments = text[call.range]
            if let url = firstMatch(urlArgument, in: arguments)?.groups.first { urls.insert(normalized(String(arguments[url]))) }
            if let id = firstMatch(idArgument, in: arguments)?.groups.first { ids.insert(String(arguments[id]).lowercased()) }
        }
        return (urls, ids)
    }

    private static let urlArgument = #"(?<![\w])url:\s*"([^"]*)""#
    private static let idArgument = #"(?<![\w])id:\s*"([^"]*)""#

    /// What `edited` did to a Package.swift (`ManifestEdit`).
    typealias Edit = ManifestEdit

    /// `text`, a dependent's Package.swift (`file` in messages), with each requirement of
    /// `dependencies` raised to its released version.
    /// - Throws: `ManifestRequirementError` for a version SwiftPM refuses or a call never closed.
    static func edited(_ text: String, file: String, dependencies: [Dependency]) throws -> Edit {
        var edit = Edit(text: text)
        guard !dependencies.isEmpty else { return edit }
        let byURL = Dictionary(dependencies.compactMap { dependency in dependency.url.map { (normalized($0), dependency) } }, uniquingKeysWith: { first, _ in first })
        let byID = Dictionary(dependencies.compactMap { dependency in dependency.registryID.map { ($0.lowercased(), dependency) } }, uniquingKeysWith: { first, _ in first })
        var replacements: [(range: Range<String.Index>, text: String)] = []
        for call in try packageCalls(in: text, file: file) {
            let arguments = text[call.range]
            let url = firstMatch(urlArgument, in: arguments)?.groups.first
            let id = url == nil ? firstMatch(idArgument, in: arguments)?.groups.first : nil
            guard let named = url ?? id,
                  let dependency = url != nil ? byURL[normalized(String(arguments[named]))] : byID[String(arguments[named]).lowercased()]
            else { continue }
            let line = lineNumber(of: call.range.lowerBound, in: text)
            let name = String(arguments[named])
            if let match = firstMatch(#"\.(?:upToNextMajor|upToNextMinor)\(\s*from:\s*"([^"]*)"\s*\)"#, in: arguments)
                ?? firstMatch(#"\.exact\(\s*"([^"]*)"\s*\)"#, in: arguments)
                ?? firstMatch(#"(?:from|exact):\s*"([^"]*)""#, in: arguments) {
                let bound = match.groups[0]
                let current = try version(String(arguments[bound]), of: name, file: file, line: line)
                guard current.comparePrecedence(to: dependency.version) == .orderedAscending else { continue }
                let before = String(arguments[match.whole])
                replacements.append((bound, dependency.version.description))
                let after = before.replacingOccurrences(of: "\"\(arguments[bound])\"", with: "\"\(dependency.version)\"")
                edit.changed.append("\(name) \(before) → \(after)")
            } else if let match = firstMatch(#""([^"]*)"\s*(\.\.<|\.\.\.)\s*"([^"]*)""#, in: arguments) {
                let lower = try version(String(arguments[match.groups[0]]), of: name, file: file, line: line)
                let upper = try version(String(arguments[match.groups[2]]), of: name, file: file, line: line)
                let halfOpen = arguments[match.groups[1]] == "..<"
                guard lower.comparePrecedence(to: dependency.version) == .orderedAscending else { continue }
                let released = dependency.version
                let past = halfOpen ? upper.comparePrecedence(to: released) != .orderedDescending : upper.comparePrecedence(to: released) == .orderedAscending
                let newUpper = past ? (halfOpen ? SemanticVersion(unchecked: released.major + 1, 0, 0) : released) : upper
                replacements.append((match.groups[0], released.description))
                if past { replacements.append((match.groups[2], newUpper.description)) }
                let op = String(arguments[match.groups[1]])
                edit.changed.append("\(name) \"\(lower)\"\(op)\"\(upper)\" → \"\(released)\"\(op)\"\(newUpper)\"")
            } else {
                edit.notes.append("\(file):\(line) requires \(name) by a branch, a revision or an expression: left (it names no version to raise)")
            }
        }
        var result = text
        for replacement in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(replacement.range, with: replacement.text)
        }
        edit.text = result
        return edit
    }

    /// A repository URL as SwiftPM identifies it: lowercased, without scheme, user, trailing `/`
    /// and `.git`, an scp-like `host:path` read as `host/path`.
    static func normalized(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespaces).lowercased()
        var hadScheme = false
        if let scheme = text.range(of: "://") { text = String(text[scheme.upperBound...]); hadScheme = true }
        if let at = text.firstIndex(of: "@"), text[..<at].allSatisfy({ $0 != "/" }) { text = String(text[text.index(after: at)...]) }
        if !hadScheme, let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0 != "/" }) {
            text.replaceSubrange(colon...colon, with: "/")
        }
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix(".git") { text.removeLast(4) }
        return text
    }

    /// The argument text of every `.package(…)` call outside comments and strings.
    /// - Throws: `ManifestRequirementError` for a call never closed.
    static func packageCalls(in text: String, file: String) throws -> [(range: Range<String.Index>, start: String.Index)] {
        var calls: [(range: Range<String.Index>, start: String.Index)] = []
        let characters = Array(text.indices)
        var i = 0
        /// Steps `i` over a comment or string starting at `i`; false when there is none.
        func skipCommentOrString() -> Bool {
            let rest = text[characters[i]...]
            if rest.hasPrefix("//") {
                while i < characters.count && text[characters[i]] != "\n" { i += 1 }
                return true
            }
            if rest.hasPrefix("/*") {
                var depth = 0
                while i < characters.count {
                    let here = text[characters[i]...]
                    if here.hasPrefix("/*") { depth += 1; i += 2; continue }
                    if here.hasPrefix("*/") { depth -= 1; i += 2; if depth == 0 { break }; continue }
                    i += 1
                }
                return true
            }
            if rest.hasPrefix("\"") {
                let delimiter = rest.hasPrefix("\"\"\"") ? "\"\"\"" : "\""
                i += delimiter.count
                while i < characters.count {
                    if text[characters[i]] == "\\" { i += 2; continue }
                    if text[characters[i]...].hasPrefix(delimiter) { i += delimiter.count; break }
                    i += 1
                }
                return true
            }
            return false
        }
        while i < characters.count {
            if skipCommentOrString() { continue }
            let here = text[characters[i]...]
            let previous = i > 0 ? text[characters[i - 1]] : " "
            guard here.hasPrefix(".package("), !(previous.isLetter || previous.isNumber || previous == "_") else { i += 1; continue }
            let start = characters[i]
            i += ".package(".count
            let open = i
            var depth = 1
            while i < characters.count && depth > 0 {
                if skipCommentOrString() { continue }
                switch text[characters[i]] {
                case "(": depth += 1
                case ")": depth -= 1
                default: break
                }
                i += 1
            }
            guard depth == 0 else {
                throw ManifestRequirementError(file: file, line: lineNumber(of: start, in: text), "this `.package(` is never closed",
                                               suggestion: "close it with `)` (`swift package describe` shows what SwiftPM reads)")
            }
            calls.append((characters[open]..<characters[i - 1], start))
        }
        return calls
    }

    /// `text` as a version SwiftPM reads, or the error naming the line.
    private static func version(_ text: String, of url: String, file: String, line: Int) throws -> SemanticVersion {
        guard !text.hasPrefix("v"), let version = SemanticVersion(text) else {
            throw ManifestRequirementError(file: file, line: line, "`\(text)` (the version required of \(url)) is not a version SwiftPM reads",
                                           suggestion: "write MAJOR.MINOR.PATCH, as `from: \"1.4.0\"`")
        }
        return version
    }

    /// The 1-based line of `index` in `text`.
    static func lineNumber(of index: String.Index, in text: String) -> Int {
        text[..<index].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    /// The first match of `pattern` in `text`, as ranges of `text`.
    private static func firstMatch(_ pattern: String, in text: Substring) -> (whole: Range<String.Index>, groups: [Range<String.Index>])? {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return nil }
        let base = String(text)
        guard let match = expression.firstMatch(in: base, range: NSRange(base.startIndex..., in: base)),
              let whole = Range(match.range, in: base) else { return nil }
        let offset = { (index: String.Index) in text.index(text.startIndex, offsetBy: base.distance(from: base.startIndex, to: index)) }
        let convert = { (range: Range<String.Index>) in offset(range.lowerBound)..<offset(range.upperBound) }
        let groups = (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: base).map(convert) }
        return (convert(whole), groups)
    }
}
