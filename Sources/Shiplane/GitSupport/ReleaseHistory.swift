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

/// Which tags are releases: by default a SemVer name with an optional `v` (`v1.2.0`, `1.2.0`);
/// with a pattern, any tag the glob matches (`app-v*`), its version read from the first digit on.
public struct ReleaseTags: Sendable, Equatable {
    /// An `fnmatch` glob for tag names, or nil for SemVer names.
    public var pattern: String?
    /// Whether prerelease tags (`v2.0.0-rc.1`) count as releases.
    public var includePrereleases: Bool

    public init(pattern: String? = nil, includePrereleases: Bool = true) {
        self.pattern = pattern
        self.includePrereleases = includePrereleases
    }

    public func matches(_ name: String) -> Bool {
        if let pattern {
            guard fnmatch(pattern, name, 0) == 0 else { return false }
            return includePrereleases || !(Self.version(of: name)?.isPrerelease ?? false)
        }
        guard let version = try? SemanticVersion(parsing: name) else { return false }
        return includePrereleases || !version.isPrerelease
    }

    /// The version a release tag names: the whole name, else from its first digit on.
    static func version(of name: String) -> SemanticVersion? {
        if let version = try? SemanticVersion(parsing: name) { return version }
        guard let digit = name.firstIndex(where: \.isASCIIDigit) else { return nil }
        return try? SemanticVersion(parsing: String(name[digit...]))
    }
}

/// What a changelog does with merge commits.
public enum MergeCommits: String, Sendable, CaseIterable, ExpressibleByArgument {
    /// Leave them out (the default, as conventional-changelog tools do: the merged commits speak).
    case exclude
    /// Keep them, shown under their type like any commit.
    case include
    /// Only merge commits (for projects that describe changes in pull-request merges).
    case only
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
