/// Puts a new release section into the text of a CHANGELOG.md, changing nothing else.
///
/// Where the section goes:
/// - no file → ``header``, then the section;
/// - a `## [Unreleased]` (or `## Unreleased`) section → replaced, up to the next `## ` heading or
///   the link reference definitions at the bottom;
/// - otherwise → before the first `## ` heading, after the title and intro;
/// - a `# ` title but no `## ` heading yet → after the intro (before the bottom definitions);
/// - neither a `# ` title nor a `## ` heading (free text: a structure not recognised) → at the very
///   top, followed by a blank line and every existing byte unchanged.
///
/// Every byte outside the replaced Unreleased section is kept. Inserted text uses the file's line
/// ending (`\r\n` when its first line ends so). Headings inside fenced code blocks are ignored.
/// A link reference definition (`[1.2.0]: https://…`) is added to the definitions at the bottom,
/// after any `[Unreleased]:` ones, unless that label is already defined (existing definitions are
/// never changed).
package struct ChangelogFileEditor: Sendable {
    /// The header of a new CHANGELOG.md: a `# Changelog` title and a short line.
    package static let defaultHeader = """
        # Changelog

        All notable changes to this project are documented in this file. The format follows \
        [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).

        """

    /// The header written when there is no file yet; it should end with a newline.
    package var header: String

    /// Creates an editor.
    package init(header: String = ChangelogFileEditor.defaultHeader) {
        self.header = header
    }

    /// The changelog text with `newSection` in place.
    /// - Parameters:
    ///   - existing: the current file's text, or nil when there is no file (an empty file counts
    ///     as none).
    ///   - newSection: the rendered section, starting with its `## ` heading.
    ///   - version: the version being released (`1.2.0` or `v1.2.0`), or `Unreleased`.
    ///   - linkReferenceDefinition: `[1.2.0]: https://…` to add at the bottom, when links exist.
    /// - Throws: ``ChangelogError/versionAlreadyPresent(version:line:heading:)`` when the file
    ///   already has a section for `version`; nothing should be written then.
    package func updatedChangelog(
        existing: String?,
        newSection: String,
        version: String,
        linkReferenceDefinition: String? = nil
    ) throws -> String {
        let section = Self.normalised(newSection)
        guard let existing, !existing.isEmpty else {
            var output = header + "\n" + section
            if let linkReferenceDefinition { output += "\n" + linkReferenceDefinition + "\n" }
            return output
        }

        let document = ChangelogDocumentOutline(existing)
        let isUnreleasedVersion = version.lowercased() == ChangelogRelease.unreleasedTitle.lowercased()
        if !isUnreleasedVersion, let duplicate = document.headingIndex(forVersion: version) {
            throw ChangelogError.versionAlreadyPresent(
                version: version, line: duplicate + 1, heading: String(document.lines[duplicate].text))
        }

        var edits = ChangelogTextEdits(original: existing, lineEnding: document.lineEnding)
        let definitionsStart = document.definitionsStart ?? document.lines.count
        if let unreleased = document.unreleasedIndex {
            let end =
                document.releaseHeadingIndices.first(where: { $0 > unreleased && $0 < definitionsStart })
                ?? definitionsStart
            let followed = end < document.lines.count
            edits.replace(lines: unreleased..<end, in: document, with: section + (followed ? "\n" : ""))
        } else if let firstRelease = document.releaseHeadingIndices.first {
            edits.insert(section + "\n", at: document.lines[firstRelease].start)
        } else if document.hasTitle {
            if definitionsStart < document.lines.count {
                edits.insert(section + "\n", at: document.lines[definitionsStart].start)
            } else {
                edits.appendAtEnd("\n" + section, in: document)
            }
        } else {
            edits.insert(section + "\n", at: existing.startIndex)
        }

        if let definition = linkReferenceDefinition.map(Self.normalised),
            let label = ChangelogDocumentOutline.linkLabel(of: Substring(definition)),
            !document.definesLabel(label)
        {
            if let position = document.definitionInsertionPoint(), position != existing.endIndex {
                edits.insert(definition, at: position)
            } else if document.definitionsStart != nil {
                edits.appendAtEnd(definition, in: document)
            } else {
                edits.appendAtEnd("\n" + definition, in: document)
            }
        }
        return edits.apply()
    }

    /// The text with `\n` line endings, no blank lines at the end, and one final newline.
    static func normalised(_ text: String) -> String {
        var lines = ChangelogTextLines.split(text)
        while let last = lines.last, ChangelogTextLines.isBlank(last) { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Edits to a text, applied in position order while copying every other byte.
struct ChangelogTextEdits {
    private let original: String
    private let lineEnding: String
    private var edits: [(range: Range<String.Index>, text: String, startsOnNewLine: Bool)] = []

    init(original: String, lineEnding: String) {
        self.original = original
        self.lineEnding = lineEnding
    }

    /// Inserts `text` (with `\n` line endings, converted to the file's) at `position`.
    mutating func insert(_ text: String, at position: String.Index) {
        edits.append((position..<position, text, false))
    }

    /// Replaces whole lines, terminators included.
    mutating func replace(lines: Range<Int>, in outline: ChangelogDocumentOutline, with text: String) {
        let start = outline.lines[lines.lowerBound].start
        let end = lines.upperBound < outline.lines.count ? outline.lines[lines.upperBound].start : original.endIndex
        edits.append((start..<end, text, false))
    }

    /// Appends `text` at the end, after a line break when the file does not end with one.
    mutating func appendAtEnd(_ text: String, in outline: ChangelogDocumentOutline) {
        edits.append((original.endIndex..<original.endIndex, text, true))
    }

    /// The original text with the edits applied.
    func apply() -> String {
        var output = ""
        output.reserveCapacity(original.utf8.count + edits.reduce(0) { $0 + $1.text.utf8.count })
        var cursor = original.startIndex
        for edit in edits.enumerated().sorted(by: { ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset) }) {
            output += Substring(original.unicodeScalars[cursor..<edit.element.range.lowerBound])
            if edit.element.startsOnNewLine, !output.isEmpty, output.utf8.last != CommitTextBytes.lineFeed {
                output += lineEnding
            }
            output += lineEnding == "\n" ? edit.element.text : edit.element.text.replacingNewlines(with: lineEnding)
            cursor = max(cursor, edit.element.range.upperBound)
        }
        output += Substring(original.unicodeScalars[cursor...])
        return output
    }
}

extension String {
    /// The string with every `\n` replaced by `lineEnding`.
    fileprivate func replacingNewlines(with lineEnding: String) -> String {
        var output = ""
        output.reserveCapacity(utf8.count + 64)
        for scalar in unicodeScalars {
            if scalar == "\n" { output += lineEnding } else { output.unicodeScalars.append(scalar) }
        }
        return output
    }
}
