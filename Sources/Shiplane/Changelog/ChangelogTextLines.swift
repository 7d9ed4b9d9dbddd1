/// Line splitting, trimming and joining on UTF-8 bytes, shared by the commit parser and the
/// changelog file editor.
enum ChangelogTextLines {
    /// Splits `text` at `\n`, dropping a `\r` before it; the last line may be empty.
    ///
    /// Every cut falls on a `Character` boundary (a grapheme always breaks around `\n` and before
    /// `\r\n`), so the lines are safe to use as ordinary substrings.
    static func split(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        var position = bytes.startIndex
        while position != bytes.endIndex {
            if bytes[position] == CommitTextBytes.lineFeed {
                lines.append(line(in: text, from: lineStart, to: position))
                lineStart = bytes.index(after: position)
            }
            bytes.formIndex(after: &position)
        }
        lines.append(line(in: text, from: lineStart, to: bytes.endIndex))
        return lines
    }

    private static func line(in text: String, from start: String.Index, to end: String.Index) -> Substring {
        let bytes = text.utf8
        var lineEnd = end
        if lineEnd > start, bytes[bytes.index(before: lineEnd)] == CommitTextBytes.carriageReturn {
            lineEnd = bytes.index(before: lineEnd)
        }
        return Substring(text.unicodeScalars[start..<lineEnd])
    }

    /// True when the line is empty or holds only spaces and tabs.
    static func isBlank(_ line: Substring) -> Bool {
        line.utf8.allSatisfy(CommitTextBytes.isSpaceOrTab)
    }

    /// The scalars with leading and trailing whitespace removed, as a String.
    static func trimmed(_ scalars: Substring.UnicodeScalarView) -> String {
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start != end, scalars[start].properties.isWhitespace {
            scalars.formIndex(after: &start)
        }
        while end != start {
            let before = scalars.index(before: end)
            guard scalars[before].properties.isWhitespace else { break }
            end = before
        }
        return String(scalars[start..<end])
    }

    /// Joins the lines with `\n`, leaving out blank lines at both ends and trailing whitespace at
    /// the very end.
    static func joinTrimmingBlankEdges(_ lines: some Collection<Substring>) -> String {
        guard let first = lines.firstIndex(where: { !isBlank($0) }) else { return "" }
        var last = first
        var position = first
        while position != lines.endIndex {
            if !isBlank(lines[position]) { last = position }
            lines.formIndex(after: &position)
        }
        var result = ""
        var isFirst = true
        position = first
        while true {
            if !isFirst { result.append("\n") }
            result.append(contentsOf: lines[position])
            isFirst = false
            if position == last { break }
            lines.formIndex(after: &position)
        }
        return trimmed(Substring(result).unicodeScalars)
    }
}
