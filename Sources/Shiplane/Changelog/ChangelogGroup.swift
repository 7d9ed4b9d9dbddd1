/// A titled list of commits in a release, such as "Features" or "⚠ BREAKING CHANGES".
public struct ChangelogGroup: Sendable, Hashable, Codable {
    /// Which rule put the commits here; renderers show breaking descriptions for `.breaking`.
    public enum Kind: String, Sendable, Hashable, Codable {
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
    public var title: String
    /// Which rule filled this group.
    public var kind: Kind
    /// The commits, in release order.
    public var commits: [ChangelogCommit]

    /// Creates a group.
    public init(title: String, kind: Kind, commits: [ChangelogCommit]) {
        self.title = title
        self.kind = kind
        self.commits = commits
    }
}

extension ChangelogRelease {
    /// The release's commits sorted into groups, in rendering order, empty groups left out; see
    /// ``ChangelogConfiguration`` for the rules.
    public func groups(configuration: ChangelogConfiguration) -> [ChangelogGroup] {
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

        for commit in commits {
            if commit.isMerge, !configuration.includeMergeCommits { continue }
            if ChangelogConfiguration.isReleaseCommit(commit.summary) { continue }
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
