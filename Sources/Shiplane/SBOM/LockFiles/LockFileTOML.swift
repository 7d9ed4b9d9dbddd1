import Foundation

/// A TOML value as lock files use it.
package indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    /// A number with a fraction, a date or a time: kept as written.
    case other(String)
    case array([TOMLValue])
    case table([String: TOMLValue])

    /// The string, when this is one.
    package var string: String? { if case .string(let value) = self { return value } else { return nil } }
    /// The elements, when this is an array.
    package var array: [TOMLValue]? { if case .array(let value) = self { return value } else { return nil } }
    /// The members, when this is a table.
    package var table: [String: TOMLValue]? { if case .table(let value) = self { return value } else { return nil } }

    /// The member `key` of a table.
    package subscript(key: String) -> TOMLValue? { table?[key] }
}

/// Reads TOML documents — Cargo.lock, poetry.lock, uv.lock, Gradle's version catalogs.
///
/// Written here rather than taken from a package: the TOML packages on the mirror either pull in
/// a large dependency tree or do not read inline tables spanning lines, which uv.lock writes. This
/// reads TOML 1.0's tables, arrays of tables, dotted and quoted keys, basic, literal and
/// multi-line strings, integers, booleans, arrays and inline tables; dates and floats are kept
/// as written. Every syntax error names its line.
package struct LockFileTOML {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private let file: String

    /// Parses `text`; `file` names it in errors.
    /// - Throws: `LockFileProblem` naming the line of the first syntax error.
    package static func parse(_ text: String, file: String) throws -> [String: TOMLValue] {
        var parser = LockFileTOML(scalars: Array(text.unicodeScalars), file: file)
        return try parser.document()
    }

    private init(scalars: [Unicode.Scalar], file: String) {
        self.scalars = scalars
        self.file = file
    }

    // MARK: - Document

    private mutating func document() throws -> [String: TOMLValue] {
        var root = TOMLValue.table([:])
        var current: [PathStep] = []
        while true {
            skipBlankAndComments()
            guard let scalar = peek() else { break }
            if scalar == "[" {
                advance()
                let isArray = peek() == "["
                if isArray { advance() }
                skipSpaces()
                let keys = try keyPath()
                skipSpaces()
                try expect("]")
                if isArray { try expect("]") }
                try endOfLine()
                current = try Self.open(keys, asArrayElement: isArray, in: &root, line: line, file: file)
            } else {
                let keys = try keyPath()
                skipSpaces()
                try expect("=")
                skipSpaces()
                let value = try value()
                try endOfLine()
                try Self.assign(value, to: keys, under: current, in: &root, line: line, file: file)
            }
        }
        return root.table ?? [:]
    }

    /// A step from the root to the table a header opened: a key, then the last element when the
    /// key holds an array of tables.
    private enum PathStep { case key(String), lastElement }

    private static func open(_ keys: [String], asArrayElement: Bool, in root: inout TOMLValue, line: Int, file: String) throws -> [PathStep] {
        var path: [PathStep] = []
        var node = root
        for (position, key) in keys.enumerated() {
            let last = position == keys.count - 1
            path.append(.key(key))
            let existing = node[key]
            if last && asArrayElement {
                let elements = existing?.array ?? []
                guard existing == nil || existing?.array != nil else { throw LockFileProblem(file: file, line: line, "[[\(keys.joined(separator: "."))]] names a value that is not an array of tables") }
                try update(&root, at: Array(path.dropLast()), key: key, to: .array(elements + [.table([:])]), line: line, file: file)
                path.append(.lastElement)
                return path
            }
            switch existing {
            case nil:
                try update(&root, at: Array(path.dropLast()), key: key, to: .table([:]), line: line, file: file)
                node = .table([:])
            case .table(let members)?:
                node = .table(members)
            case .array(let elements)?:
                guard let lastTable = elements.last, lastTable.table != nil, !last else {
                    throw LockFileProblem(file: file, line: line, "[\(keys.joined(separator: "."))] is defined twice")
                }
                path.append(.lastElement)
                node = lastTable
            default:
                throw LockFileProblem(file: file, line: line, "[\(keys.joined(separator: "."))] names a value that is not a table")
            }
        }
        return path
    }

    private static func assign(_ value: TOMLValue, to keys: [String], under path: [PathStep], in root: inout TOMLValue, line: Int, file: String) throws {
        var fullPath = path
        for key in keys.dropLast() { fullPath.append(.key(key)) }
        // Dotted keys make tables on the way.
        var prefix = path
        for key in keys.dropLast() {
            if try read(root, at: prefix)?[key] == nil { try update(&root, at: prefix, key: key, to: .table([:]), line: line, file: file) }
            prefix.append(.key(key))
        }
        guard let key = keys.last else { return }
        if try read(root, at: fullPath)?[key] != nil {
            throw LockFileProblem(file: file, line: line, "the key \(keys.joined(separator: ".")) is defined twice")
        }
        try update(&root, at: fullPath, key: key, to: value, line: line, file: file)
    }

    private static func read(_ node: TOMLValue, at path: [PathStep]) throws -> TOMLValue? {
        var current: TOMLValue? = node
        for step in path {
            switch step {
            case .key(let key): current = current?[key]
            case .lastElement: current = current?.array?.last
            }
        }
        return current
    }

    private static func update(_ node: inout TOMLValue, at path: [PathStep], key: String, to value: TOMLValue, line: Int, file: String) throws {
        guard let first = path.first else {
            guard case .table(var members) = node else { throw LockFileProblem(file: file, line: line, "\(key) is set inside a value that is not a table") }
            members[key] = value
            node = .table(members)
            return
        }
        let rest = Array(path.dropFirst())
        switch (first, node) {
        case (.key(let name), .table(var members)):
            var child = members[name] ?? .table([:])
            try update(&child, at: rest, key: key, to: value, line: line, file: file)
            members[name] = child
            node = .table(members)
        case (.lastElement, .array(var elements)):
            guard var child = elements.popLast() else { throw LockFileProblem(file: file, line: line, "an empty array of tables") }
            try update(&child, at: rest, key: key, to: value, line: line, file: file)
            node = .array(elements + [child])
        default:
            throw LockFileProblem(file: file, line: line, "\(key) is set inside a value that is not a table")
        }
    }

    // MARK: - Keys

    private mutating func keyPath() throws -> [String] {
        var keys = [try key()]
        while true {
            skipSpaces()
            guard peek() == "." else { return keys }
            advance()
            skipSpaces()
            keys.append(try key())
        }
    }

    private mutating func key() throws -> String {
        switch peek() {
        case "\"": return try basicString()
        case "'": return try literalString()
        default:
            var key = ""
            while let scalar = peek(), scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" {
                key.unicodeScalars.append(scalar)
                advance()
            }
            guard !key.isEmpty else { throw problem("a key was expected") }
            return key
        }
    }

    // MARK: - Values

    private mutating func value() throws -> TOMLValue {
        guard let scalar = peek() else { throw problem("a value was expected") }
        switch scalar {
        case "\"":
            if lookingAt("\"\"\"") { return .string(try multiLineString(literal: false)) }
            return .string(try basicString())
        case "'":
            if lookingAt("'''") { return .string(try multiLineString(literal: true)) }
            return .string(try literalString())
        case "[": return try arrayValue()
        case "{": return try inlineTable()
        default:
            var word = ""
            while let next = peek(), !",]}#\n\r".unicodeScalars.contains(next) {
                word.unicodeScalars.append(next)
                advance()
            }
            word = word.trimmingCharacters(in: .whitespaces)
            if word == "true" { return .bool(true) }
            if word == "false" { return .bool(false) }
            if let number = Int(word.replacingOccurrences(of: "_", with: "")) { return .integer(number) }
            guard !word.isEmpty else { throw problem("a value was expected") }
            return .other(word)
        }
    }

    private mutating func arrayValue() throws -> TOMLValue {
        advance()
        var elements: [TOMLValue] = []
        while true {
            skipBlankAndComments()
            if peek() == "]" { advance(); return .array(elements) }
            elements.append(try value())
            skipBlankAndComments()
            if peek() == "," { advance(); continue }
            guard peek() == "]" else { throw problem("an array is not closed with ]") }
        }
    }

    private mutating func inlineTable() throws -> TOMLValue {
        advance()
        var table = TOMLValue.table([:])
        skipBlankAndComments()
        if peek() == "}" { advance(); return table }
        while true {
            skipBlankAndComments()
            let keys = try keyPath()
            skipSpaces()
            try expect("=")
            skipSpaces()
            let member = try value()
            try Self.assign(member, to: keys, under: [], in: &table, line: line, file: file)
            skipBlankAndComments()
            if peek() == "," { advance(); continue }
            guard peek() == "}" else { throw problem("an inline table is not closed with }") }
            advance()
            return table
        }
    }

    private mutating func basicString() throws -> String {
        advance()
        var text = ""
        while let scalar = peek() {
            if scalar == "\n" { throw problem("a string is not closed on its line") }
            advance()
            switch scalar {
            case "\"": return text
            case "\\": text.unicodeScalars.append(try escape())
            default: text.unicodeScalars.append(scalar)
            }
        }
        throw problem("a string is not closed")
    }

    private mutating func literalString() throws -> String {
        advance()
        var text = ""
        while let scalar = peek() {
            if scalar == "\n" { throw problem("a string is not closed on its line") }
            advance()
            if scalar == "'" { return text }
            text.unicodeScalars.append(scalar)
        }
        throw problem("a string is not closed")
    }

    private mutating func multiLineString(literal: Bool) throws -> String {
        let quote: Unicode.Scalar = literal ? "'" : "\""
        let delimiter = String(repeating: String(quote), count: 3)
        index += 3
        if peek() == "\n" { advance() }
        var text = ""
        while peek() != nil {
            if lookingAt(delimiter) {
                index += 3
                while peek() == quote { text.unicodeScalars.append(quote); advance() }
                return text
            }
            guard let scalar = peek() else { break }
            advance()
            if scalar == "\\" && !literal {
                if let next = peek(), next == "\n" || next == " " || next == "\t" {
                    while let blank = peek(), blank == "\n" || blank == " " || blank == "\t" || blank == "\r" { advance() }
                    continue
                }
                text.unicodeScalars.append(try escape())
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        throw problem("a multi-line string is not closed")
    }

    private mutating func escape() throws -> Unicode.Scalar {
        guard let scalar = peek() else { throw problem("a string ends in \\") }
        advance()
        switch scalar {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "\"", "\\": return scalar
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var hex = ""
            for _ in 0..<count {
                guard let digit = peek() else { break }
                hex.unicodeScalars.append(digit)
                advance()
            }
            guard let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code) else { throw problem("\\\(scalar)\(hex) is not a character") }
            return decoded
        default: throw problem("\\\(scalar) is not a TOML escape")
        }
    }

    // MARK: - Scanning

    private func peek() -> Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func advance() {
        if index < scalars.count, scalars[index] == "\n" { line += 1 }
        index += 1
    }

    private func lookingAt(_ text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        return index + wanted.count <= scalars.count && Array(scalars[index..<index + wanted.count]) == wanted
    }

    private mutating func expect(_ scalar: Unicode.Scalar) throws {
        guard peek() == scalar else { throw problem("\(scalar) was expected") }
        advance()
    }

    private mutating func skipSpaces() {
        while let scalar = peek(), scalar == " " || scalar == "\t" { advance() }
    }

    private mutating func skipBlankAndComments() {
        while let scalar = peek() {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { advance() } else if scalar == "#" {
                while let next = peek(), next != "\n" { advance() }
            } else { return }
        }
    }

    private mutating func endOfLine() throws {
        skipSpaces()
        if peek() == "#" { while let next = peek(), next != "\n" { advance() } }
        if peek() == "\r" { advance() }
        guard peek() == nil || peek() == "\n" else { throw problem("the line goes on after its value") }
    }

    private func problem(_ message: String) -> LockFileProblem { LockFileProblem(file: file, line: line, message) }
}
