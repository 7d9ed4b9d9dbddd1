import Foundation
internal import Git

extension LaneContext {
    /// A tag-only project's version: the highest SemVer release tag reachable from HEAD, or
    /// 0.0.0 before the first one (as git-cliff and commitizen answer from tags).
    ///
    /// Tags are releases when they match `tags` (by default a SemVer name with an optional `v`);
    /// the others are listed in `TagOrigin.ignored` with the reason, so `shiplane version` can
    /// say why a tag did not count.
    /// - Throws: `RepositoryProblem.shallowClone` (a shallow clone lacks the tags' commits),
    ///   `RepositoryProblem.noCommits` on an unborn branch.
    func versionFromTags(_ given: ReleaseTags? = nil) throws -> AgreedVersion {
        let tags = given ?? package?.releaseTags ?? ReleaseTags()
        let repository = try historyRepository()
        let head = try headCommit(of: repository)
        var candidates: [(tag: Tag, version: SemanticVersion)] = []
        var ignored: [(name: String, reason: String)] = []
        let isRelease = tags.matcher()
        for tag in try git({ try repository.tags() }) {
            guard isRelease(tag.name), let version = ReleaseTags.version(of: tag.name) else {
                if package != nil { continue }   // other packages' tags are not worth a line each
                ignored.append((tag.name, tags.pattern.map { "does not match \($0)" } ?? "not a SemVer version such as v1.2.3"))
                continue
            }
            candidates.append((tag, version))
        }
        let reachable = try git { try repository.reachable(candidates.map(\.tag.target), from: head) }
        for candidate in candidates where !reachable.contains(candidate.tag.target) {
            ignored.append((candidate.tag.name, "not reachable from HEAD"))
        }
        // Highest version; among equal versions (v1.2.0 and 1.2.0 on one commit) the first by name.
        let best = candidates.filter { reachable.contains($0.tag.target) }
            .sorted { $0.version != $1.version ? $0.version > $1.version : $0.tag.name < $1.tag.name }
            .first
        return AgreedVersion(
            version: best.map { $0.version.withoutBuildMetadata } ?? SemanticVersion(unchecked: 0, 0, 0),
            build: nil, sources: [],
            tagOrigin: .init(tag: best?.tag.name, ignored: ignored.sorted { $0.name < $1.name })
        )
    }
}
