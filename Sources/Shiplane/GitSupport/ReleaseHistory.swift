import Foundation
internal import Git

/// Release tags and the commits since the last one, as version bumps and changelogs need them.
///
/// A release tag is a tag whose name is a SemVer version, with or without a leading `v`
/// (`v1.2.0`, `1.2.0`, `v2.0.0-rc.1`); other tags are not releases.
enum ReleaseHistory {
    static func isReleaseTag(_ name: String, includePrereleases: Bool = true) -> Bool {
        guard let version = try? SemanticVersion(parsing: name) else { return false }
        return includePrereleases || !version.isPrerelease
    }
}

/// No commit since the last release would change the version.
public struct NothingToRelease: ReportableError {
    public var lastTag: String?
    public var commitCount: Int

    public var message: String {
        let since = lastTag.map { "since \($0)" } ?? "in the history"
        if commitCount == 0 { return "no commits \(since): nothing to release" }
        return "no releasable commits \(since): none of the \(commitCount) commit\(commitCount == 1 ? " is" : "s is") a feat, fix, perf or breaking change"
    }

    public var suggestion: String? { "pass a level (major, minor, patch) to release anyway, or commit a conventional feat/fix first" }
}

extension LaneContext {
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
        let repository = try repository()
        let head = try headCommit(of: repository)
        return try git {
            try repository.lastTag(reachableFrom: head) { ReleaseHistory.isReleaseTag($0.name, includePrereleases: includePrereleases) }
        }
    }

    /// The level the conventional commits since the last release tag call for.
    /// - Throws: `NothingToRelease` when no commit is a feat, fix, perf or breaking change.
    func releaseLevelSinceLastTag(currentVersion: SemanticVersion) throws -> BumpLevel {
        let repository = try repository()
        let head = try headCommit(of: repository)
        let last = try lastReleaseTag()
        var messages: [String] = []
        try git {
            try repository.walk(from: head, hiding: last.map { [$0.target] } ?? []) { record in
                messages.append(record.message)
                return true
            }
        }
        guard let level = ConventionalCommit.bumpLevel(for: messages, currentMajorIsZero: currentVersion.major == 0) else {
            throw NothingToRelease(lastTag: last?.name, commitCount: messages.count)
        }
        return level
    }

    /// The number of commits reachable from HEAD (`git rev-list --count HEAD`).
    func commitCount() throws -> Int {
        let repository = try repository()
        let head = try headCommit(of: repository)
        return try git { try repository.commitCount(from: head) }
    }
}

extension LaneContext {
    /// The nearest release tag reachable from HEAD (a SemVer name, `v` optional), or nil.
    public func lastGitTag(includePrereleases: Bool = true, file: String = #fileID, line: Int = #line) throws -> String? {
        try run(LastGitTag(includePrereleases: includePrereleases), file: file, line: line)
    }

    /// The number of commits reachable from HEAD.
    public func numberOfCommits(file: String = #fileID, line: Int = #line) throws -> Int {
        try run(NumberOfCommits(), file: file, line: line)
    }
}

/// Finds the nearest release tag reachable from HEAD.
public struct LastGitTag: Action {
    public static let name = "lastGitTag"
    public var includePrereleases: Bool

    public func run(in step: StepContext) throws -> String? {
        let tag = try step.lane.lastReleaseTag(includePrereleases: includePrereleases)
        step.note(tag?.name ?? "none")
        return tag?.name
    }
}

/// Counts the commits reachable from HEAD.
public struct NumberOfCommits: Action {
    public static let name = "numberOfCommits"

    public func run(in step: StepContext) throws -> Int {
        let count = try step.lane.commitCount()
        step.note("\(count)")
        return count
    }
}
