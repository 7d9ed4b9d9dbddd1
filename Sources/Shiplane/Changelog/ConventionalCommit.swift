/// A commit message parsed per Conventional Commits 1.0.0 (https://www.conventionalcommits.org).
///
/// `type(scope)!: description`, an optional body and optional footers in git-trailer syntax.
/// Build one with ``init(parsing:)``; a message that does not follow the format gives `nil`.
package struct ConventionalCommit: Sendable, Hashable, Codable {
    /// The types of the Conventional Commits convention (Angular's list): a subject with another
    /// word before the colon (`branch: add --dry-run`) is not taken as a typed commit in a changelog.
    package static let standardTypes: Set<String> = [
        "feat", "fix", "perf", "revert", "docs", "refactor", "chore", "ci", "test", "build", "style",
    ]

    /// The commit type, lowercased (`feat`, `fix`, ...); types are case-insensitive.
    package var type: String
    /// The scope between parentheses, or nil when there is none (or it is empty).
    package var scope: String?
    /// The description after `: `, trimmed.
    package var description: String
    /// The free-form body between the header and the footers, trimmed, with `\n` line endings.
    package var body: String?
    /// The footers in message order.
    package var footers: [ConventionalCommitFooter]
    /// True when the header has `!` before the colon or a `BREAKING CHANGE` footer exists.
    package var isBreaking: Bool
    /// What breaks: the first breaking footer's text, else the description; nil when not breaking.
    package var breakingDescription: String?
    /// Issue numbers from `Refs`/`Closes`/`Fixes` footers and `#123` in the description, in order
    /// of appearance, without duplicates.
    package var issueReferences: [Int]

    /// Creates a parsed commit from its parts; ``init(parsing:)`` is the usual way to get one.
    package init(
        type: String,
        scope: String? = nil,
        description: String,
        body: String? = nil,
        footers: [ConventionalCommitFooter] = [],
        isBreaking: Bool = false,
        breakingDescription: String? = nil,
        issueReferences: [Int] = []
    ) {
        self.type = type
        self.scope = scope
        self.description = description
        self.body = body
        self.footers = footers
        self.isBreaking = isBreaking
        self.breakingDescription = breakingDescription
        self.issueReferences = issueReferences
    }

    /// Parses a full commit message; nil when the message is not a conventional commit.
    ///
    /// Never traps, whatever the input. Leading blank lines are skipped; `\r\n` and `\n` line
    /// endings are both accepted. The rules are those of Conventional Commits 1.0.0.
    package init?(parsing message: String) {
        guard let parsed = ConventionalCommitParser.parse(message) else { return nil }
        self = parsed
    }
}

/// One footer of a conventional commit: `Token: value` or `Token #value`.
package struct ConventionalCommitFooter: Sendable, Hashable, Codable {
    /// How the token and the value are separated.
    package enum Separator: String, Sendable, Hashable, Codable {
        /// `Token: value`
        case colon
        /// `Token #value` (the `#` is not part of the value)
        case hash
    }

    /// The token as written (`Reviewed-by`, `BREAKING CHANGE`).
    package var token: String
    /// The separator used.
    package var separator: Separator
    /// The value; continuation lines are joined with `\n`, trailing blank lines dropped.
    package var value: String

    /// Creates a footer.
    package init(token: String, separator: Separator = .colon, value: String) {
        self.token = token
        self.separator = separator
        self.value = value
    }

    /// True for `BREAKING CHANGE` and its synonym `BREAKING-CHANGE` (upper case, as the spec requires).
    package var isBreakingChange: Bool {
        token == "BREAKING CHANGE" || token == "BREAKING-CHANGE"
    }

    /// True for footers whose value names issues: `Refs`, `Closes`, `Fixes` and their common
    /// variants (`Ref`, `References`, `Close`, `Closed`, `Fix`, `Fixed`, `Resolve(s|d)`), any case.
    package var isIssueReference: Bool {
        Self.issueTokens.contains(token.lowercased())
    }

    private static let issueTokens: Set<String> = [
        "refs", "ref", "references", "closes", "close", "closed",
        "fixes", "fix", "fixed", "resolves", "resolve", "resolved",
    ]
}
