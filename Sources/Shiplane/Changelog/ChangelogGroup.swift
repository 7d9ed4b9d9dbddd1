import Foundation
/// A titled list of commits in a release, such as "Features" or "⚠ BREAKING CHANGES".
package struct ChangelogGroup: Sendable, Hashable, Codable {
    /// Which rule put the commits here; renderers show breaking descriptions for `.breaking`.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// Breaking changes, always first.
        case breaking
        /// One of the configured groups.
        case configured
        /// Unconfigured (or hidden, when so configured) conventional types.
        case miscellaneous
        /// Non-conventional commits.
        case other
    }

    /// The heading.
    package var title: String
    /// Which rule filled this group.
    package var kind: Kind
    /// The commits, in release order.
    package var commits: [ChangelogCommit]

    /// Creates a group.
    package init(title: String, kind: Kind, commits: [ChangelogCommit]) {
        self.title = title
        self.kind = kind
        self.commits = commits
    }
}

extension ChangelogRelease {
    /// The release's commits sorted into groups, in rendering order, empty groups left out; see
    /// ``ChangelogConfiguration`` for the rules.
    package func groups(configuration: ChangelogConfiguration) -> [ChangelogGroup] {
        var groupIndexByType: [String: Int] = [:]
        for (index, group) in configuration.groups.enumerated() {
            for type in group.types where groupIndexByType[type] == nil {
                groupIndexByType[type] = index
            }
        }
        let hiddenTypes = Set(configuration.hiddenTypes)
        let knownTypes = Set(groupIndexByType.keys).union(hiddenTypes).union(ConventionalCommit.standardTypes)

        var breaking: [ChangelogCommit] = []
        var configured = Array(repeating: [ChangelogCommit](), count: configuration.groups.count)
        var miscellaneous: [ChangelogCommit] = []
        var other: [ChangelogCommit] = []

        let rules = CompiledRules(configuration)
        var groupIndexByTitle: [String: Int] = [:]
        for (index, group) in configuration.groups.enumerated() where groupIndexByTitle[group.title] == nil {
            groupIndexByTitle[group.title] = index
        }
        commits: for commit in commits {
            if commit.isMerge, !configuration.includeMergeCommits { continue }
            if ChangelogConfiguration.isReleaseCommit(commit.summary) { continue }
            if rules.skips(commit.summary) { continue }
            switch rules.parse(commit) {
            case .skip: continue commits
            case .group(let title):
                if let index = groupIndexByTitle[title] { configured[index].append(commit); continue commits }
            case .none: break
            }
            // `branch: add --dry-run` has the shape of a conventional commit but no known type:
            // it is kept whole under Other, as commitizen does, not filed as type `branch`.
            guard let conventional = commit.conventional,
                  conventional.isBreaking || knownTypes.contains(conventional.type) else {
                if configuration.nonConventional == .other { other.append(commit) }
                continue
            }
            if conventional.isBreaking {
                breaking.append(commit)
            } else if let index = groupIndexByType[conventional.type] {
                configured[index].append(commit)
            } else if hiddenTypes.contains(conventional.type) {
                if configuration.hiddenTypeHandling == .miscellaneous { miscellaneous.append(commit) }
            } else {
                miscellaneous.append(commit)
            }
        }

        var result: [ChangelogGroup] = []
        if !breaking.isEmpty {
            result.append(ChangelogGroup(title: configuration.breakingChangesTitle, kind: .breaking, commits: breaking))
        }
        for (group, commits) in zip(configuration.groups, configured) where !commits.isEmpty {
            result.append(ChangelogGroup(title: group.title, kind: .configured, commits: commits))
        }
        if !miscellaneous.isEmpty {
            result.append(
                ChangelogGroup(title: configuration.miscellaneousTitle, kind: .miscellaneous, commits: miscellaneous))
        }
        if !other.isEmpty {
            result.append(ChangelogGroup(title: configuration.otherTitle, kind: .other, commits: other))
        }
        return result
    }
}

/// A configuration's regular expressions, compiled once per use.
struct CompiledRules {
    enum Outcome: Equatable { case skip, group(String), none }

    private let skipPatterns: [NSRegularExpression]
    private let parsers: [(message: NSRegularExpression?, body: NSRegularExpression?, author: NSRegularExpression?, group: String?, skip: Bool)]

    init(_ configuration: ChangelogConfiguration) {
        // Patterns are checked when a configuration file is loaded; one that does not compile
        // (a configuration built in code) never matches.
        let compile = { (pattern: String?) -> NSRegularExpression? in pattern.flatMap { try? NSRegularExpression(pattern: $0) } }
        skipPatterns = configuration.skipPatterns.compactMap(compile)
        parsers = configuration.parsers.map { (compile($0.message), compile($0.body), compile($0.author), $0.group, $0.skip) }
    }

    func skips(_ summary: String) -> Bool {
        skipPatterns.contains { Self.matches($0, summary) }
    }

    func parse(_ commit: ChangelogCommit) -> Outcome {
        guard !parsers.isEmpty else { return .none }
        let body = commit.message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
        for parser in parsers {
            if let pattern = parser.message, !Self.matches(pattern, commit.message) { continue }
            if let pattern = parser.body, !Self.matches(pattern, body) { continue }
            if let pattern = parser.author, !Self.matches(pattern, commit.authorName) { continue }
            if parser.skip { return .skip }
            if let group = parser.group { return .group(group) }
        }
        return .none
    }

    private static func matches(_ expression: NSRegularExpression, _ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
