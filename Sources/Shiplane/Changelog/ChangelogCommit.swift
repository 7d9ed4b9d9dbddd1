import Foundation

/// One commit as the changelog sees it: identity, author, message and its conventional parse.
///
/// The git layer builds these from history; the message is parsed once, here.
package struct ChangelogCommit: Sendable, Hashable, Codable {
    /// The full commit hash.
    package var id: String
    /// The abbreviated hash shown in changelogs (the first 7 characters unless the git layer
    /// passes its own, unambiguous abbreviation).
    package var shortId: String
    /// The first non-blank line of the message, without its line ending.
    package var summary: String
    /// The full commit message as given.
    package var message: String
    /// The author's name.
    package var authorName: String
    /// The author's email address.
    package var authorEmail: String
    /// The author date.
    package var date: Date
    /// The conventional-commit parse of ``message``, or nil when it is not conventional.
    package var conventional: ConventionalCommit?
    /// True when the commit has more than one parent.
    package var isMerge: Bool

    /// Creates a commit and parses its message.
    package init(
        id: String,
        shortId: String? = nil,
        message: String,
        authorName: String,
        authorEmail: String,
        date: Date,
        isMerge: Bool = false
    ) {
        self = ChangelogCommit(
            unparsedID: id, shortId: shortId, message: message, authorName: authorName, authorEmail: authorEmail,
            date: date, isMerge: isMerge
        ).parsed()
    }

    /// A commit whose message is not parsed yet: `conventional` is nil until `parsed()` (the
    /// whole-history stream parses on the rendering thread, not the one reading history).
    init(
        unparsedID id: String, shortId: String? = nil, message: String, authorName: String, authorEmail: String,
        date: Date, isMerge: Bool
    ) {
        self.id = id
        self.shortId = shortId ?? String(id.prefix(7))
        self.message = message
        self.summary = ""
        self.authorName = authorName
        self.authorEmail = authorEmail
        self.date = date
        self.conventional = nil
        self.isMerge = isMerge
    }

    /// This commit with its summary and conventional parse filled in, as `init` makes them.
    func parsed() -> ChangelogCommit {
        var commit = self
        commit.summary = Self.summaryLine(of: message)
        commit.conventional = ConventionalCommit(parsing: message)
        return commit
    }

    /// The first non-blank line of `message`, trimmed.
    static func summaryLine(of message: String) -> String {
        let bytes = message.utf8
        var lineStart = bytes.startIndex
        var position = bytes.startIndex
        while true {
            let atEnd = position == bytes.endIndex
            if atEnd || bytes[position] == CommitTextBytes.lineFeed {
                let line = ChangelogTextLines.trimmed(message.unicodeScalars[lineStart..<position])
                if !line.isEmpty || atEnd { return line }
                lineStart = bytes.index(after: position)
            }
            if atEnd { return "" }
            bytes.formIndex(after: &position)
        }
    }
}
