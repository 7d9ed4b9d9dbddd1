import Foundation

/// One token of Swift source, as the lane scans (`LaneDiscovery`, `SigningKeyDiscovery`) read it.
struct SwiftToken: Equatable {
    enum Kind: Equatable {
        /// An identifier, keyword or number (`struct`, `Release`, `42`); a backticked one without its backticks.
        case word(String)
        /// A string literal's value, escapes decoded (a multi-line one without its indentation);
        /// nil when it is interpolated or holds an escape Swift does not know.
        case string(String?)
        /// Any other character: `{`, `(`, `:`, `.`, `#`, `@`, …
        case punctuation(Character)
    }

    var kind: Kind
    /// The 1-based line it starts on.
    var line: Int
}

/// Splits Swift source into words, string literals and punctuation, dropping comments (nested
/// block comments included) and whitespace: the one lexer both lane scans walk, so that a lane
/// or a key named in a comment or a string is not taken for code.
///
/// String literals are read as Swift reads them: `"…"`, multi-line `"""…"""`, raw `#"…"#` (any
/// number of `#`), escapes, and interpolations `\(…)` lexed as code to their closing parenthesis
/// (so a `")"` inside one does not end the literal). Written by hand rather than with
/// swift-syntax: the scans run when the lanes are compiled, and swift-syntax would more than
/// double Shiplane's own build for a reading that needs tokens, not a syntax tree.
struct SwiftLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1

    private init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    /// The tokens of `source`, in order.
    static func tokens(of source: String) -> [SwiftToken] {
        var lexer = SwiftLexer(source)
        return lexer.lex(inInterpolation: false)
    }

    private func at(_ position: Int) -> Unicode.Scalar? {
        position >= 0 && position < scalars.count ? scalars[position] : nil
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// Tokens to the end of the source; in an interpolation, to its closing parenthesis (consumed).
    private mutating func lex(inInterpolation: Bool) -> [SwiftToken] {
        var tokens: [SwiftToken] = []
        var depth = 0
        while let scalar = at(index) {
            if scalar == "\n" {
                line += 1
                index += 1
            } else if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "/" && at(index + 1) == "/" {
                while let next = at(index), next != "\n" { index += 1 }
            } else if scalar == "/" && at(index + 1) == "*" {
                skipBlockComment()
            } else if let hashes = stringOpening() {
                tokens.append(string(hashes: hashes))
            } else if Self.isWordScalar(scalar) {
                let start = index
                while let next = at(index), Self.isWordScalar(next) { index += 1 }
                tokens.append(SwiftToken(kind: .word(text(start..<index)), line: line))
            } else if scalar == "`" {
                index += 1
                let start = index
                while let next = at(index), next != "`", next != "\n" { index += 1 }
                tokens.append(SwiftToken(kind: .word(text(start..<index)), line: line))
                if at(index) == "`" { index += 1 }
            } else {
                index += 1
                if inInterpolation && scalar == "(" { depth += 1 }
                if inInterpolation && scalar == ")" {
                    if depth == 0 { return tokens }
                    depth -= 1
                }
                tokens.append(SwiftToken(kind: .punctuation(Character(scalar)), line: line))
            }
        }
        return tokens
    }

    private func text(_ range: Range<Int>) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[range])
        return String(result)
    }

    /// `/* … */`, nested ones included, from the `/` of its opening.
    private mutating func skipBlockComment() {
        var depth = 0
        while let scalar = at(index) {
            if scalar == "/" && at(index + 1) == "*" {
                depth += 1
                index += 2
            } else if scalar == "*" && at(index + 1) == "/" {
                depth -= 1
                index += 2
                if depth == 0 { return }
            } else {
                if scalar == "\n" { line += 1 }
                index += 1
            }
        }
    }

    /// The number of `#` before the `"` that opens a string literal here; nil when none opens here.
    private func stringOpening() -> Int? {
        var position = index
        while at(position) == "#" { position += 1 }
        return at(position) == "\"" ? position - index : nil
    }

    /// True when `hashes` `#` follow `position`.
    private func hashes(_ hashes: Int, at position: Int) -> Bool {
        (0..<hashes).allSatisfy { at(position + $0) == "#" }
    }

    /// The string literal opening here, after `hashes` `#`.
    private mutating func string(hashes: Int) -> SwiftToken {
        let startLine = line
        index += hashes
        let multiline = at(index + 1) == "\"" && at(index + 2) == "\""
        let quotes = multiline ? 3 : 1
        index += quotes
        var written: [Unicode.Scalar] = []
        var interpolated = false
        while let scalar = at(index) {
            if scalar == "\\" && self.hashes(hashes, at: index + 1) {
                let escaped = index + 1 + hashes
                if at(escaped) == "(" {
                    // Code, to its closing parenthesis: strings and comments in it are its own.
                    interpolated = true
                    index = escaped + 1
                    _ = lex(inInterpolation: true)
                    continue
                }
                // Kept as written for `decode`; the escaped character never closes the literal.
                written.append(contentsOf: scalars[index..<min(escaped + 1, scalars.count)])
                if at(escaped) == "\n" { line += 1 }
                index = escaped + 1
                continue
            }
            if scalar == "\"" && (0..<quotes).allSatisfy({ at(index + $0) == "\"" }) && self.hashes(hashes, at: index + quotes) {
                index += quotes + hashes
                break
            }
            if scalar == "\n" {
                // A single-line literal left open ends at its line (the compiler reports it).
                if !multiline { break }
                line += 1
            }
            written.append(scalar)
            index += 1
        }
        let value = interpolated ? nil : Self.decode(multiline ? Self.dedented(written) : written, hashes: hashes)
        return SwiftToken(kind: .string(value), line: startLine)
    }

    /// A multi-line literal's lines without the newline after its opening and the indentation of
    /// its closing delimiter (which every line starts with), as Swift reads them.
    private static func dedented(_ written: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var lines = written.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2 else { return [] }
        lines.removeFirst()
        let indentation = lines.removeLast()
        return Array(lines.map { $0.starts(with: indentation) ? $0.dropFirst(indentation.count) : $0 }.joined(separator: ["\n"]))
    }

    /// The value of a literal's text as written (no interpolation in it); nil for an escape Swift does not know.
    private static func decode(_ written: [Unicode.Scalar], hashes: Int) -> String? {
        var value = String.UnicodeScalarView()
        var index = 0
        func at(_ position: Int) -> Unicode.Scalar? { position < written.count ? written[position] : nil }
        while index < written.count {
            let scalar = written[index]
            guard scalar == "\\", (0..<hashes).allSatisfy({ at(index + 1 + $0) == "#" }) else {
                value.append(scalar)
                index += 1
                continue
            }
            index += 1 + hashes
            guard let escaped = at(index) else { return nil }
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\\", "\"", "'": value.append(escaped)
            case "u":
                guard at(index) == "{", let close = written[index...].firstIndex(of: "}"),
                      let code = UInt32(String(String.UnicodeScalarView(written[(index + 1)..<close])), radix: 16),
                      let decoded = Unicode.Scalar(code) else { return nil }
                value.append(decoded)
                index = close + 1
            case " ", "\t", "\n":
                // A line continuation in a multi-line literal: the line break is not in the value.
                var position = index - 1
                while let next = at(position), next == " " || next == "\t" { position += 1 }
                guard at(position) == "\n" else { return nil }
                index = position + 1
            default:
                return nil
            }
        }
        return String(value)
    }
}
