/// Makes commit text (user data) safe to place inside one Markdown list item, keeping it readable.
///
/// What is changed, and why:
/// - a line break with the indentation around it becomes one space, and tabs become spaces, so
///   one commit stays one bullet;
/// - `<` and `>` become `&lt;` and `&gt;`, so no raw HTML (or HTML comment) gets through;
/// - `[`, `]` and `*` get a backslash, so text cannot open links, images or emphasis;
/// - a backslash before ASCII punctuation gets a backslash, so it cannot undo those escapes;
/// - at the start, `#`, `-`, `+`, `=`, `_`, ```` ``` ````, `~~~` and `1.`/`1)` get a backslash, so the
///   text cannot become a heading, a nested list, a thematic break or a code fence.
///
/// Everything else (backticks for inline code, underscores inside words, Unicode) is kept.
enum MarkdownEscaping {
    /// The text, escaped for use inline in a list item.
    static func inline(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var atStart = true
        var afterLineBreak = false
        while index < scalars.count {
            let scalar = scalars[index]
            if atStart {
                if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                    index += 1
                    continue
                }
                atStart = false
                let consumed = escapeLeading(scalars, from: index, into: &result)
                if consumed > 0 {
                    index += consumed
                    continue
                }
            }
            defer { index += 1 }
            if scalar == "\n" || scalar == "\r" {
                // A line break and the indentation around it become one space.
                if result.unicodeScalars.last != " " { result.append(" ") }
                afterLineBreak = true
                continue
            }
            if scalar == " " || scalar == "\t" {
                if !afterLineBreak { result.append(" ") }
                continue
            }
            afterLineBreak = false
            switch scalar {
            case "<":
                result.append("&lt;")
            case ">":
                result.append("&gt;")
            case "[", "]", "*":
                result.append("\\")
                result.unicodeScalars.append(scalar)
            case "\\":
                if index + 1 < scalars.count, isASCIIPunctuation(scalars[index + 1]) {
                    result.append("\\\\")
                } else {
                    result.append("\\")
                }
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        while result.last == " " { result.removeLast() }
        return result
    }

    /// Appends the escaped start of the text when it could open block structure and returns how
    /// many scalars it consumed; 0 when the start needs no special treatment.
    private static func escapeLeading(_ scalars: [Unicode.Scalar], from index: Int, into result: inout String) -> Int {
        let first = scalars[index]
        switch first {
        case "#", "-", "+", "=", "_":
            result.append("\\")
            result.unicodeScalars.append(first)
            return 1
        case "~", "`":
            // Only a run of three or more opens a code fence; single backticks are inline code.
            guard index + 2 < scalars.count, scalars[index + 1] == first, scalars[index + 2] == first else { return 0 }
            result.append("\\")
            result.unicodeScalars.append(first)
            return 1
        case "0"..."9":
            var end = index
            while end < scalars.count, end - index < 10, ("0"..."9").contains(scalars[end]) { end += 1 }
            guard end < scalars.count, scalars[end] == "." || scalars[end] == ")" else { return 0 }
            result.unicodeScalars.append(contentsOf: scalars[index..<end])
            result.append("\\")
            result.unicodeScalars.append(scalars[end])
            return end - index + 1
        default:
            return 0
        }
    }

    private static func isASCIIPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let value = scalar.value
        return (0x21...0x2F).contains(value) || (0x3A...0x40).contains(value)
            || (0x5B...0x60).contains(value) || (0x7B...0x7E).contains(value)
    }

    /// The text cut to `limit` characters, ending with `…` when it was longer.
    static func truncated(_ text: String, limit: Int) -> String {
        guard limit > 0 else { return text }
        let head = text.prefix(limit + 1)
        guard head.count > limit else { return text }
        var cut = head.dropLast()
        while let last = cut.last, last.isWhitespace { cut = cut.dropLast() }
        return String(cut) + "…"
    }
}
