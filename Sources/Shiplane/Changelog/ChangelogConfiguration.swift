/// How commits are sorted into the groups of a changelog, and which are left out.
///
/// Defaults, in rendering order:
/// 1. `⚠ BREAKING CHANGES`: every breaking commit, whatever its type (even a hidden one such as
///    `chore!:`), listed there only, with its breaking description;
/// 2. the configured groups: Features (`feat`), Bug Fixes (`fix`), Performance (`perf`),
///    Reverts (`revert`), Documentation (`docs`), Refactoring (`refactor`);
/// 3. `Miscellaneous`: conventional commits of any other type that is not hidden;
/// 4. `Other`: non-conventional commits (``NonConventionalHandling/other``), or they are dropped.
///
/// Hidden types (`chore`, `ci`, `test`, `build`, `style`) are left out by default, or go to
/// `Miscellaneous` with ``HiddenTypeHandling/miscellaneous``. Merge commits are left out unless
/// ``includeMergeCommits`` is set. Empty groups are never rendered.
public struct ChangelogConfiguration: Sendable, Hashable, Codable {
    /// A titled group and the commit types it collects.
    public struct Group: Sendable, Hashable, Codable {
        /// The heading (`Features`).
        public var title: String
        /// Lowercased commit types (`feat`).
        public var types: [String]

        /// Creates a group; types are lowercased.
        public init(title: String, types: [String]) {
            self.title = title
            self.types = types.map { $0.lowercased() }
        }
    }

    /// What happens to commits whose message is not a conventional commit.
    public enum NonConventionalHandling: String, Sendable, Hashable, Codable, CaseIterable {
        /// Listed last, under ``ChangelogConfiguration/otherTitle``.
        case other
        /// Left out.
        case drop
    }

    /// What happens to commits of a hidden type.
    public enum HiddenTypeHandling: String, Sendable, Hashable, Codable {
        /// Left out.
        case hide
        /// Listed under ``ChangelogConfiguration/miscellaneousTitle``.
        case miscellaneous
    }

    /// The configured groups, in rendering order.
    public var groups: [Group]
    /// Types left out of the changelog by default.
    public var hiddenTypes: [String]
    /// What to do with commits of a hidden type.
    public var hiddenTypeHandling: HiddenTypeHandling
    /// What to do with non-conventional commits.
    public var nonConventional: NonConventionalHandling
    /// Whether merge commits appear at all.
    public var includeMergeCommits: Bool
    /// The title of the breaking-changes group, rendered first.
    public var breakingChangesTitle: String
    /// The title for unconfigured and (optionally) hidden types.
    public var miscellaneousTitle: String
    /// The title for non-conventional commits.
    public var otherTitle: String
    /// Summaries longer than this many characters are cut and end with `…`.
    public var summaryCharacterLimit: Int
    /// Rules tried in order before the type decides (git-cliff's `commit_parsers`): the first
    /// whose patterns all match files the commit under its group, or leaves it out.
    public var parsers: [CommitParser] = []
    /// Commits whose subject matches one of these regular expressions are left out.
    public var skipPatterns: [String] = []
    /// How a conventional commit's scope is shown: `**scope:** text`, `scope: text`, or not.
    public var scopeDisplay: ScopeDisplay = .bold
    /// A commit link in place of the one derived from the remote: `{id}` and `{shortId}` are
    /// replaced (git-cliff's `commit_preprocessors`/templates for self-hosted forges).
    public var commitLinkTemplate: String?
    /// An issue link in place of the one derived from the remote: `{number}` is replaced.
    public var issueLinkTemplate: String?

    /// A rule that files matching commits under a group, or leaves them out.
    public struct CommitParser: Sendable, Hashable, Codable {
        /// A regular expression the whole message must match, if given.
        public var message: String?
        /// A regular expression the body (after the subject line) must match, if given.
        public var body: String?
        /// A regular expression the author's name must match, if given.
        public var author: String?
        /// The title of a configured group to file the commit under.
        public var group: String?
        /// Leave the commit out.
        public var skip: Bool

        /// Creates a rule; with no patterns it matches every commit.
        public init(message: String? = nil, body: String? = nil, author: String? = nil, group: String? = nil, skip: Bool = false) {
            self.message = message
            self.body = body
            self.author = author
            self.group = group
            self.skip = skip
        }
    }

    /// How scopes are shown.
    public enum ScopeDisplay: String, Sendable, Hashable, Codable, CaseIterable {
        /// `**scope:** text`, `scope: text`, or the text alone.
        case bold, plain, hidden
    }

    /// The default groups: Features, Bug Fixes, Performance, Reverts, Documentation, Refactoring.
    public static let defaultGroups: [Group] = [
        Group(title: "Features", types: ["feat"]),
        Group(title: "Bug Fixes", types: ["fix"]),
        Group(title: "Performance", types: ["perf"]),
        Group(title: "Reverts", types: ["revert"]),
        Group(title: "Documentation", types: ["docs"]),
        Group(title: "Refactoring", types: ["refactor"]),
    ]

    /// The types hidden by default.
    public static let defaultHiddenTypes = ["chore", "ci", "test", "build", "style"]

    /// Creates a configuration; every parameter has the documented default.
    public init(
        groups: [Group] = ChangelogConfiguration.defaultGroups,
        hiddenTypes: [String] = ChangelogConfiguration.defaultHiddenTypes,
        hiddenTypeHandling: HiddenTypeHandling = .hide,
        nonConventional: NonConventionalHandling = .other,
        includeMergeCommits: Bool = false,
        breakingChangesTitle: String = "⚠ BREAKING CHANGES",
        miscellaneousTitle: String = "Miscellaneous",
        otherTitle: String = "Other",
        summaryCharacterLimit: Int = 300
    ) {
        self.groups = groups
        self.hiddenTypes = hiddenTypes.map { $0.lowercased() }
        self.hiddenTypeHandling = hiddenTypeHandling
        self.nonConventional = nonConventional
        self.includeMergeCommits = includeMergeCommits
        self.breakingChangesTitle = breakingChangesTitle
        self.miscellaneousTitle = miscellaneousTitle
        self.otherTitle = otherTitle
        self.summaryCharacterLimit = summaryCharacterLimit
    }

    /// Whether a subject is the commit Shiplane makes for a release (`chore(release): 1.2.0`, or
    /// `Version bump to 1.2.0` from earlier versions): never listed in a changelog.
    package static func isReleaseCommit(_ summary: String) -> Bool {
        // Only the subject Shiplane writes: the prefix, then a version or a tag and nothing more
        // but a build number — `chore(release): 1.3.0`, `chore(release): core-v1.3.0 (42)`. A
        // `chore(release): rename the notes option` is somebody's change, not a release.
        for prefix in ["chore(release): ", "Version bump to "] where summary.hasPrefix(prefix) {
            let words = summary.dropFirst(prefix.count).split(separator: " ")
            guard let first = words.first, words.count <= 2 else { continue }
            if words.count == 2, !(words[1].hasPrefix("(") && words[1].hasSuffix(")")) { continue }
            if ReleaseTags.version(of: String(first)) != nil { return true }
        }
        return false
    }
}
