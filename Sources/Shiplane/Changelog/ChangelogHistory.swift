import Foundation
internal import Git

/// Which commits a changelog covers.
public enum ChangelogRange: Sendable, Equatable {
    /// The release being made: the commits since the previous release tag. When HEAD itself
    /// carries a release tag (the lane tagged before writing notes), that tag is the release and
    /// the one before it the start; otherwise the commits are unreleased work.
    case lastTag
    /// Only the commits after the last release tag reachable from HEAD (HEAD's own tag included).
    case unreleased
    /// The commits of `git log FROM..TO`; `from: nil` means the whole history up to `to`.
    case range(from: String?, to: String)
    /// The whole history, split into releases by release tags.
    case all
}

/// Reads releases and their commits from history through libgit2.
struct ChangelogHistory {
    let repository: Repository
    let links: RemoteLinks?
    let tagFilter: ReleaseTags
    let merges: MergeCommits
    /// A package's folder: only commits that touch it are listed.
    let paths: [String]?

    /// `wholeHistory`: the history will be read whole (`.all`), so libgit2's memory is bounded
    /// for that before the repository opens (`Libgit2.boundMemoryForHistoryPass`).
    init(lane: LaneContext, releaseTags: ReleaseTags = .init(), merges: MergeCommits = .exclude, wholeHistory: Bool = false) throws {
        // A package's releases are its own tags, and its commits those that touch its folder.
        self.tagFilter = lane.package.map { package in
            var tags = package.releaseTags
            tags.includePrereleases = releaseTags.includePrereleases
            return tags
        } ?? releaseTags
        self.paths = lane.package.map { [$0.path] }
        self.merges = merges
        if wholeHistory { Libgit2.boundMemoryForHistoryPass() }
        repository = try lane.historyRepository()
        // The URL as written in the config: `url.*.insteadOf` rewrites are for transport, and
        // links must point at the public host.
        let opened = repository
        let url = (try? git { try opened.configString("remote.origin.url") }) ?? nil
        // Self-hosted forges declared in the settings get their links too.
        let declared = try ProjectSettings.load(root: lane.workingDirectory).forge.hosts
        links = url.flatMap { RemoteLinks(remoteURL: $0, additionalHosts: declared) }
    }

    /// The releases `range` covers, newest first, titled by `title` when it is unreleased work.
    func releases(_ range: ChangelogRange, title: String?) throws -> [ChangelogRelease] {
        var releases: [ChangelogRelease] = []
        try eachRelease(range, title: title) { releases.append($0) }
        return releases
    }

    /// Hands over the releases `range` covers one at a time, newest first, so a long history is
    /// never held in memory whole.
    func eachRelease(
        _ range: ChangelogRange, title: String?, parsingMessages: Bool = true, _ body: (ChangelogRelease) throws -> Void
    ) throws {
        guard range == .all else {
            for release in try boundedReleases(range, title: title) { try body(release) }
            return
        }
        let head = try git { try repository.resolveCommit("HEAD") }
        let isRelease = tagFilter.matcher()
        let releaseTags = try git { try repository.tags() }.filter { isRelease($0.name) }
        // One graph for the reachability pass and every release's walk: each commit's header is
        // read once for all of them.
        let walker = try git { try HistoryWalker(repository: repository) }
        let reachable = try git { try walker.reachable(releaseTags.map(\.target), from: head) }
        let ordered = releaseTags.filter { reachable.contains($0.target) }.sorted(by: Self.byVersion).reversed()
        var tagsByTarget: [ObjectID: Tag] = [:]
        for tag in ordered where tagsByTarget[tag.target] == nil { tagsByTarget[tag.target] = tag }
        let unique = ordered.filter { tagsByTarget[$0.target] == $0 }
        if unique.first?.target != head {
            let unreleased = try release(title: title ?? ChangelogRelease.unreleasedTitle, tag: nil, from: head, previous: unique.first, walker: walker, parsing: parsingMessages)
            if !unreleased.commits.isEmpty { try body(unreleased) }
        }
        for (index, tag) in unique.enumerated() {
            let previous = index + 1 < unique.count ? unique[index + 1] : nil
            try body(try release(title: Self.title(of: tag.name), tag: tag, from: tag.target, previous: previous, walker: walker, parsing: parsingMessages))
        }
    }

    private func boundedReleases(_ range: ChangelogRange, title: String?) throws -> [ChangelogRelease] {
        let head = try git { try repository.resolveCommit("HEAD") }
        let isRelease = tagFilter.matcher()
        let releaseTags = try git { try repository.tags() }.filter { isRelease($0.name) }
        switch range {
        case .lastTag, .unreleased:
            let onHead = releaseTags.filter { $0.target == head }.max(by: Self.byVersion)
            if range == .lastTag, let onHead {
                let previous = try git { try repository.lastTag(reachableFrom: head) { isRelease($0.name) && $0.target != head } }
                return [try release(title: Self.title(of: onHead.name), tag: onHead, from: head, previous: previous)]
            }
            let previous = try git { try repository.lastTag(reachableFrom: head) { isRelease($0.name) } }
            return [try release(title: title ?? ChangelogRelease.unreleasedTitle, tag: nil, from: head, previous: previous)]
        case .range(let from, let to):
            let end = try git { try repository.resolveCommit(to) }
            let start = try from.map { reference in try git { try repository.resolveCommit(reference) } }
            let endTag = releaseTags.filter { $0.target == end }.max(by: Self.byVersion)
            let startTag = from.flatMap { reference in releaseTags.first { $0.name == reference } }
            var commits: [ChangelogCommit] = []
            try git {
                try repository.walk(from: end, hiding: start.map { [$0] } ?? []) { record in
                    if keeps(record), try touches(record) { commits.append(Self.commit(record)) }
                    return true
                }
            }
            return [ChangelogRelease(
                title: endTag.map { Self.title(of: $0.name) } ?? title ?? ChangelogRelease.unreleasedTitle,
                tagName: endTag?.name, date: endTag.map { _ in commits.first?.date } ?? nil,
                previousTagName: startTag?.name, commits: commits
            )]
        case .all:
            return try releases(.all, title: title)
        }
    }

    private func release(
        title: String, tag: Tag?, from start: ObjectID, previous: Tag?, walker: HistoryWalker? = nil, parsing: Bool = true
    ) throws -> ChangelogRelease {
        var commits: [ChangelogCommit] = []
        var tipDate: Date?
        try git {
            let walker = try walker ?? HistoryWalker(repository: repository)
            try walker.walk(from: start, hiding: previous.map { [$0.target] } ?? []) { record in
                if record.id == start { tipDate = record.committerDate }
                if keeps(record), try touches(record) { commits.append(parsing ? Self.commit(record) : Self.unparsedCommit(record)) }
                return true
            }
        }
        return ChangelogRelease(
            title: title, tagName: tag?.name, date: tag.flatMap { $0.tagger?.date ?? tipDate },
            previousTagName: previous?.name, commits: commits
        )
    }

    private func touches(_ record: CommitRecord) throws -> Bool {
        guard let paths else { return true }
        return try repository.changes(record.id, comparedTo: record.parents.first, under: paths)
    }

    private func keeps(_ record: CommitRecord) -> Bool {
        switch merges {
        case .include: true
        case .exclude: record.parentCount <= 1
        case .only: record.parentCount > 1
        }
    }

    static func unparsedCommit(_ record: CommitRecord) -> ChangelogCommit {
        ChangelogCommit(
            unparsedID: record.id.hex, message: record.message, authorName: record.authorName,
            authorEmail: record.authorEmail, date: record.authorDate, isMerge: record.parentCount > 1
        )
    }

    static func commit(_ record: CommitRecord) -> ChangelogCommit {
        ChangelogCommit(
            id: record.id.hex, message: record.message, authorName: record.authorName,
            authorEmail: record.authorEmail, date: record.authorDate, isMerge: record.parentCount > 1
        )
    }

    /// `v1.2.0` → `1.2.0`: headings show the version, with as many numbers as the tag (`v7.76` → `7.76`).
    static func title(of tagName: String) -> String {
        guard let version = ReleaseTags.version(of: tagName) else { return tagName }
        return ReleaseTagStyle(tag: tagName)?.text(for: version, shown: version.description) ?? version.description
    }

    static func byVersion(_ left: Tag, _ right: Tag) -> Bool {
        guard let a = ReleaseTags.version(of: left.name), let b = ReleaseTags.version(of: right.name) else {
            return left.name < right.name
        }
        return a < b || (a == b && left.name < right.name)
    }
}
