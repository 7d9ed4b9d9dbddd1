import Foundation
internal import Git

extension LaneContext {
    /// The repository, for a step that reads history: a shallow clone is refused, since what it
    /// lacks (older commits, the tags on them) would silently give a wrong version or changelog.
    /// - Throws: `RepositoryProblem.shallowClone`.
    func historyRepository() throws -> Repository {
        let repository = try repository()
        guard !repository.isShallow else { throw RepositoryProblem.shallowClone(path: workingDirectory) }
        return repository
    }

    /// The commit HEAD points at.
    /// - Throws: `RepositoryProblem.noCommits` on an unborn branch.
    func headCommit(of repository: Repository) throws -> ObjectID {
        switch try git({ try repository.head() }) {
        case .branch(_, let commit), .detached(let commit): return commit
        case .unborn(let branch): throw RepositoryProblem.noCommits(branch: branch)
        }
    }

    /// The nearest release tag reachable from HEAD, or nil when there is none.
    func lastReleaseTag(includePrereleases: Bool = true) throws -> Tag? {
        let repository = try historyRepository()
        let head = try headCommit(of: repository)
        if let package {
            var tags = package.releaseTags
            tags.includePrereleases = includePrereleases
            return try git { try repository.lastTag(reachableFrom: head) { tags.matches($0.name) } }
        }
        return try git {
            try repository.lastTag(reachableFrom: head) { ReleaseHistory.isReleaseTag($0.name, includePrereleases: includePrereleases) }
        }
    }

    /// The level the conventional commits since the last release tag call for.
    /// - Throws: `NothingToRelease` when no commit is a feat, fix, perf or breaking change.
    func releaseLevelSinceLastTag(currentVersion: SemanticVersion) throws -> BumpLevel {
        let repository = try historyRepository()
        let head = try headCommit(of: repository)
        let last = try lastReleaseTag()
        var messages: [String] = []
        let paths = package.map { [$0.path] }
        try git {
            try repository.walk(from: head, hiding: last.map { [$0.target] } ?? []) { record in
                // In a package, only the commits that touch its folder count.
                if let paths, try !repository.changes(record.id, comparedTo: record.parents.first, under: paths) { return true }
                messages.append(record.message)
                return true
            }
        }
        let rules = try ProjectSettings.load(root: workingDirectory).bumpRules
        guard let level = ConventionalCommit.bumpLevel(for: messages, currentMajorIsZero: currentVersion.major == 0, rules: rules) else {
            throw NothingToRelease(lastTag: last?.name, commitCount: messages.count, releasingTypes: rules.releasingTypes)
        }
        return level
    }

    /// The number of commits reachable from HEAD (`git rev-list --count HEAD`).
    func commitCount() throws -> Int {
        let repository = try historyRepository()
        let head = try headCommit(of: repository)
        return try git { try repository.commitCount(from: head) }
    }
}
