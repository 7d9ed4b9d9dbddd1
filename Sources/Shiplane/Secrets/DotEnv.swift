import Foundation

/// Reads `.env` files: `KEY=value`, `export KEY=value`, quotes and `#` comments, with no shell execution.
///
/// Single-quoted values are literal; double-quoted values understand `\n`, `\t`, `\r`, `\"`, `\\`
/// and `\$`. Nothing is expanded or executed: `$(cmd)` and `${VAR}` stay as written.
package struct DotEnv: Sendable {
    /// The variables in file order (later duplicates replace earlier values in `values`).
    package private(set) var entries: [(key: String, value: String)] = []

    /// The variables as a dictionary.
    package var values: [String: String] {
        var result: [String: String] = [:]
        for entry in entries { result[entry.key] = entry.value }
        return result
    }

    /// Creates a set of variables from key-value pairs in file order.
    package init(entries: [(key: String, value: String)] = []) {
        self.entries = entries
    }

    // MARK: - Loading

    /// Parses the text of one file; `file` names it in errors.
    /// - Throws: `DotEnvError` listing every malformed line with file:line.
    package static func parse(_ text: String, file: String = ".env") throws -> DotEnv {
        var result = DotEnv()
        var problems: [DotEnvError.Problem] = []
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            switch parseLine(String(rawLine)) {
            case .blank: continue
            case .entry(let key, let value): result.entries.append((key, value))
            case .malformed(let reason): problems.append(.init(file: file, line: lineNumber, reason: reason))
            }
        }
        if !problems.isEmpty { throw DotEnvError(problems: problems) }
        return result
    }

    /// Loads `.env` then `.env.<environment>` from `directory` (missing files are skipped);
    /// later files override earlier ones.
    /// - Throws: `DotEnvError` with every malformed line of every file; `DotEnvFileUnreadable`
    ///   for a file that is a folder, cannot be read or is not UTF-8 text.
    package static func load(directory: URL, environment: String? = nil) throws -> DotEnv {
        try load(folder: directory.path, environment: environment)
    }

    /// `load(directory:environment:)` from a folder's path (no `URL`, whose path appending costs a
    /// static lane program a scan of every protocol conformance on its first use).
    package static func load(folder: String, environment: String? = nil) throws -> DotEnv {
        var names = [".env"]
        if let environment, !environment.isEmpty { names.append(".env.\(environment)") }
        var merged = DotEnv()
        var problems: [DotEnvError.Problem] = []
        for name in names {
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue { throw DotEnvFileUnreadable(file: path, name: name, reason: "it is a folder") }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw DotEnvFileUnreadable(file: path, name: name, reason: "it cannot be read (check its permissions)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw DotEnvFileUnreadable(file: path, name: name, reason: "it is not UTF-8 text")
            }
            do {
                merged.entries += try parse(text, file: path).entries
            } catch let error as DotEnvError {
                problems += error.problems
            }
        }
        if !problems.isEmpty { throw DotEnvError(problems: problems) }
        return merged
    }

    // MARK: - Lines

    enum Line: Equatable {
        case blank
        case entry(String, String)
        case malformed(String)
    }

    static func parseLine(_ line: String) -> Line {
        var rest = Substring(line).drop { $0 == " " || $0 == "\t" }
        if rest.isEmpty || rest.first == "#" { return .blank }
        if rest.hasPrefix("export ") || rest.hasPrefix("export\t") {
            rest = rest.dropFirst("export".count).drop { $0 == " " || $0 == "\t" }
        }
        guard let equals = rest.firstIndex(of: "=") else { return .malformed("expected KEY=value") }
        let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
        guard isValidKey(key) else {
            return .malformed(key.isEmpty ? "missing variable name before '='" : "invalid variable name '\(key)'")
        }
        let valuePart = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
        switch parseValue(valuePart) {
        case .success(let value) where value.utf8.contains(0):
            // No process environment can hold it (the variable would reach commands cut short).
            return .malformed("the value of \(key) holds a NUL byte, which no environment variable can hold")
        case .success(let value): return .entry(key, value)
        case .failure(let problem): return .malformed(problem.reason)
        }
    }

    struct ValueProblem: Error { let reason: String }

    static func parseValue(_ text: Substring) -> Result<String, ValueProblem> {
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            // Unquoted: a '#' after whitespace starts a comment.
            var value = ""
            var previous: Character = " "
            for character in text {
                if character == "#", previous == " " || previous == "\t" { break }
                value.append(character)
                previous = character
            }
            return .success(value.trimmingCharacters(in: .whitespaces))
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == quote {
                let trailing = text[text.index(after: index)...].trimmingCharacters(in: .whitespaces)
                guard trailing.isEmpty || trailing.hasPrefix("#") else {
                    return .failure(.init(reason: "unexpected text after closing quote"))
                }
                return .success(value)
            }
            if quote == "\"", character == "\\" {
                let next = text.index(after: index)
                guard next < text.endIndex else { break }
                switch text[next] {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "\"": value.append("\"")
                case "\\": value.append("\\")
                case "$": value.append("$")
                default: value.append("\\"); value.append(text[next])
                }
                index = text.index(after: next)
                continue
            }
            value.append(character)
            index = text.index(after: index)
        }
        return .failure(.init(reason: "unterminated \(quote == "\"" ? "double" : "single")-quoted value"))
    }

    static func isValidKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || (first.isASCII && CharacterSet.letters.contains(first)) else {
            return false
        }
        return key.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == "." || CharacterSet.alphanumerics.contains($0)) }
    }
}

/// Malformed lines in dotenv files, all of them, each with file and line.
package struct DotEnvError: ReportableError {
    /// One malformed line.
    package struct Problem: Sendable, Equatable {
        /// The file as named to `DotEnv.parse`, or the path `DotEnv.load` read.
        package let file: String
        /// The line number, from 1.
        package let line: Int
        /// Why the line could not be read.
        package let reason: String
    }

    /// Every malformed line found.
    package let problems: [Problem]

    /// Says one or how many malformed lines were found.
    package var message: String {
        problems.count == 1 ? "malformed line in a dotenv file" : "\(problems.count) malformed lines in dotenv files"
    }
    /// Each problem as `file:line` and its reason.
    package var info: [(key: String, value: String)] {
        problems.map { ("\($0.file):\($0.line)", $0.reason) }
    }
    /// How to write a line that parses.
    package var suggestion: String? { "write each line as KEY=value (quotes optional, # for comments)" }
    /// A usage mistake: the file is the user's to fix.
    package var category: ErrorCategory { .usage }
}

/// A dotenv file that is there but cannot be read as one: a folder, unreadable, not UTF-8.
package struct DotEnvFileUnreadable: ReportableError {
    /// The path that was read.
    package let file: String
    /// The file's name (`.env`, `.env.NAME`).
    package let name: String
    /// Why it cannot be read.
    package let reason: String

    /// Names the file and why it cannot be read.
    package var message: String { "\(name) cannot be loaded: \(reason)" }
    /// The full path.
    package var info: [(key: String, value: String)] { [("path", file)] }
    /// Make it a file of KEY=value lines, or move it away.
    package var suggestion: String? {
        "make \(name) a UTF-8 text file of KEY=value lines, or move it out of the way; nothing was run"
    }
    /// A usage mistake: the file is the user's to fix (README: exit 2 for a malformed .env).
    package var category: ErrorCategory { .usage }
}
