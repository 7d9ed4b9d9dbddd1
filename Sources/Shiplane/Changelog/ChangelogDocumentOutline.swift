/// The structure of an existing CHANGELOG.md as far as updating it needs: lines, title, `## `
/// headings, the Unreleased section and the link reference definitions at the bottom.
struct ChangelogDocumentOutline {
    /// One line: where it starts in the text and its content without the line ending.
    struct Line {
        var start: String.Index
        var text: Substring
    }

    let text: String
    let lines: [Line]
    /// `\r\n` when the first line ends so, else `\n`.
    let lineEnding: String
    /// True when a `# ` title line exists outside code fences.
    let hasTitle: Bool
    /// Indices of `## ` heading lines outside code fences, in order.
    let releaseHeadingIndices: [Int]
    /// Index of the first line of the link reference definitions ending the file, if any.
    let definitionsStart: Int?

    init(_ text: String) {
        self.text = text
        var lines: [Line] = []
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        var position = bytes.startIndex
        var lineEnding = "\n"
        var sawLineEnd = false
        while position != bytes.endIndex {
            if bytes[position] == CommitTextBytes.lineFeed {
                var contentEnd = position
                if contentEnd > lineStart, bytes[bytes.index(before: contentEnd)] == CommitTextBytes.carriageReturn {
                    contentEnd = bytes.index(before: contentEnd)
                    if !sawLineEnd { lineEnding = "\r\n" }
                }
                sawLineEnd = true
                lines.append(Line(start: lineStart, text: Substring(text.unicodeScalars[lineStart..<contentEnd])))
                lineStart = bytes.index(after: position)
            }
            bytes.formIndex(after: &position)
        }
        if lineStart != bytes.endIndex {
            lines.append(Line(start: lineStart, text: Substring(text.unicodeScalars[lineStart..<bytes.endIndex])))
        }
        self.lines = lines
        self.lineEnding = lineEnding

        var hasTitle = false
        var headings: [Int] = []
        var inFence = false
        for (index, line) in lines.enumerated() {
            let content = Self.droppingIndent(line.text)
            if content.hasPrefix("```") || content.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            if inFence || content.startIndex != line.text.startIndex { continue }
            if content == "##" || content.hasPrefix("## ") {
                headings.append(index)
            } else if content == "#" || content.hasPrefix("# ") {
                hasTitle = true
            }
        }
        self.hasTitle = hasTitle
        self.releaseHeadingIndices = headings

        var definitionsStart: Int?
        var index = lines.count - 1
        while index >= 0 {
            if ChangelogTextLines.isBlank(lines[index].text) {
                index -= 1
                continue
            }
            guard Self.linkLabel(of: lines[index].text) != nil else { break }
            definitionsStart = index
            index -= 1
        }
        self.definitionsStart = definitionsStart
    }

    // MARK: - Queries

    /// The first `## [Unreleased]` / `## Unreleased` heading, any case.
    var unreleasedIndex: Int? {
        releaseHeadingIndices.first { index in
            let title = Self.headingTitle(lines[index].text)
            guard title.lowercased().hasPrefix("unreleased") else { return false }
            return Self.endsToken(title.dropFirst("unreleased".count))
        }
    }

    /// The heading for `version`: `## [1.2.0]`, `## 1.2.0`, `## v1.2.0`, `## [v1.2.0](link) - date`.
    func headingIndex(forVersion version: String) -> Int? {
        let wanted = Self.droppingVPrefix(Substring(version))
        guard !wanted.isEmpty else { return nil }
        return releaseHeadingIndices.first { index in
            let title = Self.droppingVPrefix(Self.headingTitle(lines[index].text))
            guard title.hasPrefix(wanted) else { return false }
            return Self.endsToken(title.dropFirst(wanted.count))
        }
    }

    /// True when a link reference definition with this label (any case) exists.
    func definesLabel(_ label: Substring) -> Bool {
        let wanted = label.lowercased()
        return lines.contains { Self.linkLabel(of: $0.text)?.lowercased() == wanted }
    }

    /// Where a new definition goes: before the first bottom definition that is not for
    /// Unreleased, else after the last one (the end of the text when it is the last line); nil
    /// when the file has no bottom definitions.
    func definitionInsertionPoint() -> String.Index? {
        guard let start = definitionsStart else { return nil }
        var lastDefinition = start
        for index in start..<lines.count {
            guard let label = Self.linkLabel(of: lines[index].text) else { continue }
            if label.lowercased() != "unreleased" { return lines[index].start }
            lastDefinition = index
        }
        let next = lastDefinition + 1
        return next < lines.count ? lines[next].start : text.endIndex
    }

    // MARK: - Line shapes

    /// `[label]: destination` at the start of a line (up to three spaces of indent): the label.
    static func linkLabel(of line: Substring) -> Substring? {
        let content = droppingIndent(line)
        guard line.count - content.count <= 3, content.hasPrefix("["),
            let close = content.firstIndex(of: "]")
        else { return nil }
        let label = content[content.index(after: content.startIndex)..<close]
        let rest = content[content.index(after: close)...]
        guard !label.isEmpty, rest.hasPrefix(":"), !rest.dropFirst().allSatisfy(\.isWhitespace) else { return nil }
        return label
    }

    /// The heading text after `##`, trimmed, without a leading `[`.
    private static func headingTitle(_ line: Substring) -> Substring {
        var title = line.dropFirst(2).drop(while: \.isWhitespace)
        if title.hasPrefix("[") { title = title.dropFirst() }
        return title
    }

    private static func droppingVPrefix(_ text: Substring) -> Substring {
        text.hasPrefix("v") || text.hasPrefix("V") ? text.dropFirst() : text
    }

    /// True when `rest` is empty or does not continue a version or word (`1.2.0` is not `1.2.0-rc`).
    private static func endsToken(_ rest: Substring) -> Bool {
        guard let next = rest.unicodeScalars.first else { return true }
        return !(next.properties.isAlphabetic || ("0"..."9").contains(next) || next == "." || next == "-" || next == "+" || next == "_")
    }

    private static func droppingIndent(_ line: Substring) -> Substring {
        line.drop(while: { $0 == " " })
    }
}
