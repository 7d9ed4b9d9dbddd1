import Foundation
internal import Git

/// The release a tag pipeline publishes: the tag at HEAD, its version, and where its notes start.
public struct TagRelease: ReplayableOutput, Equatable {
    /// The tag's name (`v1.4.0`, `core-v2.0.0`).
    public var tag: String
    /// The version the tag names.
    public var version: SemanticVersion
    /// The release tag before it in history, where the release's notes start; nil for the first.
    public var previousTag: String?
    /// Where the tag's name came from: a CI variable, `SHIPLANE_TAG`, the lane, or `HEAD`.
    public var source: String

    /// The commits of this release only, for `lane.changelog(since:)`.
    public var changelogRange: ChangelogRange { .range(from: previousTag, to: tag) }
}

/// Reads the release a pushed tag asks for, checking that this checkout is that release: no bump,
/// no commit, only reads (and tags fetched from origin when a CI checkout has none).
package struct ReleaseFromTag: Action {
    /// The action's name in steps and reports.
    package static let name = "releaseFromTag"
    /// The tag; nil: the one the CI's variables name, else the release tag at HEAD.
    package var tag: String?
    /// The remote to fetch tags from when the tag is not here.
    package var remote: String

    /// Creates the action for `tag`, or for the tag the CI names.
    package init(tag: String? = nil, remote: String = "origin") {
        self.tag = tag
        self.remote = remote
    }

    /// The tag when one is given.
    package var options: [StepOption] { tag.map { [StepOption("tag", $0)] } ?? [] }

    /// `version` and `tag`: what the pushed tag names.
    package func runOutputs(of output: TagRelease) -> [(name: String, value: String)] {
        [("version", output.version.description), ("tag", output.tag)]
    }

    /// Finds the tag, checks it names HEAD and matches the version files, and finds the release
    /// tag before it.
    /// - Throws: `ReleaseTagProblem`; `RepositoryProblem.shallowClone`; `VersionFileError` when
    ///   the version files disagree among themselves; `GitFailure`.
    package func run(in step: StepContext) throws -> TagRelease {
        let lane = step.lane
        let repository = try lane.historyRepository()
        let head = try lane.headCommit(of: repository)
        let settings = try ProjectSettings.load(root: lane.workingDirectory)
        let rule = lane.package?.releaseTags ?? settings.releaseTags
        let isRelease = rule.matcher()
        let named = tag.map { CITag(name: $0, source: "the lane") } ?? lane.environment.ciTag

        let found: Tag
        let source: String
        if let named {
            guard isRelease(named.name) else {
                // A monorepo package's tag, asked of the whole repository: say which package.
                let owner = lane.package == nil ? settings.packages.first { $0.releaseTags.matches(named.name) }?.name : nil
                throw ReleaseTagProblem.notARelease(tag: named.name, source: named.source, rule: Self.describe(rule), package: owner)
            }
            // A CI checkout may hold no tags, or only the pipeline's own (GitLab fetches just that
            // one): without the others the notes would start at the wrong tag, so in a pipeline the
            // missing ones are always fetched.
            var local = try git { try repository.tag(named: named.name) }
            if local == nil || tag == nil, try fetchTags(step, repository) { local = try git { try repository.tag(named: named.name) } }
            guard let local else {
                let hasRemote = try git { try repository.remoteURL(named: remote) } != nil
                throw ReleaseTagProblem.missing(tag: named.name, source: named.source, fetchedFrom: hasRemote ? remote : nil)
            }
            guard local.target == head else {
                throw ReleaseTagProblem.notAtHead(tag: local.name, source: named.source, tagCommit: local.target.short, head: head.short)
            }
            (found, source) = (local, named.source)
        } else {
            var atHead = try releaseTags(at: head, in: repository, isRelease)
            if atHead.isEmpty, try fetchTags(step, repository) { atHead = try releaseTags(at: head, in: repository, isRelease) }
            // v1.4.0 and 1.4.0 on one commit: the first by name, as `versionFromTags` chooses.
            let ranked = atHead.compactMap { tag in Self.version(of: tag.name, rule).map { (tag, $0) } }
                .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.name < $1.0.name }
            guard let highest = ranked.first?.0 else {
                throw ReleaseTagProblem.noneAtHead(head: head.short)
            }
            (found, source) = (highest, "HEAD")
        }
        guard let version = Self.version(of: found.name, rule) else {
            throw ReleaseTagProblem.notARelease(tag: found.name, source: source, rule: Self.describe(rule), package: nil)
        }
        try ensureVersionFilesHold(version, tag: found.name, lane: lane)
        let previous = try git { try repository.lastTag(reachableFrom: head) { isRelease($0.name) && $0.target != head } }
        step.note("\(found.name) → \(version), from \(source), at HEAD \(head.short); notes since \(previous?.name ?? "the first commit")")
        return TagRelease(tag: found.name, version: version, previousTag: previous?.name, source: source)
    }

    /// The version files (when the project has any) must hold the tag's version.
    private func ensureVersionFilesHold(_ version: SemanticVersion, tag: String, lane: LaneContext) throws {
        let agreed = try lane.readVersion(nil)
        guard agreed.tagOrigin == nil, agreed.version.withoutBuildMetadata != version.withoutBuildMetadata else { return }
        let files = agreed.sources.compactMap { source in source.reading.version.literal.map { (source.file.displayPath, $0.description) } }
        throw ReleaseTagProblem.versionFilesDisagree(tag: tag, version: version.description, files: files)
    }

    /// Fetches the tags `remote` has that are missing here (CI checkouts often fetch none);
    /// true when any came. A repository without that remote fetches nothing.
    private func fetchTags(_ step: StepContext, _ repository: Repository) throws -> Bool {
        guard let url = try git({ try repository.remoteURL(named: remote) }) else { return false }
        let credentials = Push.credentials(for: url, environment: step.lane.environment)
        let fetched = try git { try repository.fetchMissingTags(remote: remote, credentials: credentials) }
        if !fetched.isEmpty { step.note("fetched \(fetched.count) tag\(fetched.count == 1 ? "" : "s") from \(remote)") }
        return !fetched.isEmpty
    }

    private func releaseTags(at head: ObjectID, in repository: Repository, _ isRelease: (String) -> Bool) throws -> [Tag] {
        try git { try repository.tags() }.filter { $0.target == head && isRelease($0.name) }
    }

    static func version(of name: String, _ rule: ReleaseTags) -> SemanticVersion? {
        if let prefix = rule.prefix, name.hasPrefix(prefix) { return SemanticVersion(tagged: String(name.dropFirst(prefix.count))) }
        return ReleaseTags.version(of: name)
    }

    private static func describe(_ rule: ReleaseTags) -> String {
        if let prefix = rule.prefix { return "\(prefix) and a SemVer version (\(prefix)1.4.0)" }
        if let pattern = rule.pattern { return "names matching \(pattern)" }
        return "SemVer versions with an optional v (v1.4.0)"
    }
}

extension LaneContext {
    /// The release a pushed tag asks for, in a tag pipeline: the tag (the CI's variables name it,
    /// else the release tag at HEAD), its version, and `changelogRange` for its notes. Nothing is
    /// bumped or committed; the tag must point at HEAD and the version files hold its version.
    /// - Throws: a clear error, before any effect, for a tag that is not at HEAD, not a release
    ///   tag, not in the repository nor on origin, or that the version files disagree with.
    public func releaseFromTag(_ tag: String? = nil, remote: String = "origin", file: String = #fileID, line: Int = #line) throws -> TagRelease {
        try run(ReleaseFromTag(tag: tag, remote: remote), file: file, line: line)
    }
}

extension ReleaseFromTag: DocumentedAction {
    /// How `lane.releaseFromTag` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "In a tag pipeline: the pushed tag (from the CI's variables, else the release tag at HEAD), its version and its notes' range; refuses a tag not at HEAD, not a release, or that the version files disagree with",
        signature: "try lane.releaseFromTag(_ tag: String? = nil, remote: String = \"origin\") -> TagRelease",
        parameters: [
            .init(name: "tag", type: "String?", defaultValue: "the CI's variables, else HEAD's release tag", help: "GITHUB_REF_NAME, CI_COMMIT_TAG, BITBUCKET_TAG, CIRCLE_TAG, BUILDKITE_TAG, TRAVIS_TAG, DRONE_TAG, BUILD_SOURCEBRANCH, SHIPLANE_TAG"),
            .init(name: "remote", type: "String", defaultValue: "origin", help: "where missing tags are fetched from (CI checkouts often have none)"),
        ],
        example: "let release = try lane.releaseFromTag()",
        dryRun: "runs (it only reads; missing tags are fetched) and says the tag, its version and where its notes start", rollback: "nothing to undo"
    )
}
