import Foundation

/// A line-by-line view of a TOML file that knows which table each line is in.
///
/// Enough TOML for version keys: `[table]` headers (whitespace and quotes in names dropped),
/// `[[array]]` headers, and `key = "value"` / `key = 'value'` lines. Multi-line strings and
/// inline tables spanning lines are not interpreted.
struct TOMLSections {
    struct Line {
        let index: Int
        /// The current table's dotted name (`package`, `tool.poetry`); empty before any header.
        let table: String
    }

    let lines: [Line]

    init(_ text: VersionText) throws {
        let header = try NSRegularExpression.builtIn(#"^\s*\[([^\[\]]+)\]\s*(?:#.*)?$"#)
        let arrayHeader = try NSRegularExpression.builtIn(#"^\s*\[\[([^\[\]]+)\]\]"#)
        var table = ""
        var lines: [Line] = []
        for index in text.lines.indices {
            if let match = text.matches(header, inLine: index).first, let name = match[1] {
                table = Self.normalised(text.text(name))
            } else if let match = text.matches(arrayHeader, inLine: index).first, let name = match[1] {
                table = "[[" + Self.normalised(text.text(name)) + "]]"
            }
            lines.append(Line(index: index, table: table))
        }
        self.lines = lines
    }

    /// Lines in `table`.
    func lines(in table: String) -> [Line] { lines.filter { $0.table == table } }

    /// String values of `key` in `table`, with the range inside the quotes.
    static func stringValues(of key: String, in table: String, sections: TOMLSections, text: VersionText) throws -> [LocatedValue] {
        let regex = try NSRegularExpression.builtIn(
            #"^\s*"# + NSRegularExpression.escapedPattern(for: key) + #"\s*=\s*(?:"([^"\\]*)"|'([^']*)')\s*(?:#.*)?$"#
        )
        return sections.lines(in: table).compactMap { line in
            guard let match = text.matches(regex, inLine: line.index).first, let range = match[1] ?? match[2] else { return nil }
            return LocatedValue(range: range, value: text.text(range), label: "[\(table)] line \(line.index + 1)")
        }
    }

    /// Refuses a `version = …` line in `tables` whose value is not a TOML string (`version = 1.4.0`):
    /// the file does not parse as its tools read it, and it must not pass for "no version here".
    /// A `version.workspace = true` or `version = { workspace = true }` line is not refused.
    /// - Throws: `VersionFileError.malformed` naming the line.
    static func refuseUnquotedVersion(in tables: [String], sections: TOMLSections, text: VersionText, format: String) throws {
        let line = try NSRegularExpression.builtIn(#"^\s*version\s*=\s*([^"'{\s#][^#]*?)\s*(?:#.*)?$"#)
        for table in tables {
            for entry in sections.lines(in: table) {
                guard let match = text.matches(line, inLine: entry.index).first, let value = match[1] else { continue }
                let found = text.text(value)
                throw VersionFileError(
                    .malformed,
                    "The \(format) file's [\(table)] version is `\(quotedFromFile(found))`, which is not a TOML string",
                    details: [("where", "[\(table)] line \(entry.index + 1)")],
                    suggestion: "Quote it: version = \"\(found)\""
                )
            }
        }
    }

    private static func normalised(_ name: String) -> String {
        name.split(separator: ".").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")) }.joined(separator: ".")
    }
}
