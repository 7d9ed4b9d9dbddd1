import Foundation

/// How changelog text is rendered.
public enum ChangelogFormat: Sendable, Equatable {
    /// Keep a Changelog Markdown, with links to commits, compare views and issues for GitHub and
    /// GitLab remotes.
    case markdown
    /// The releases, groups and commits as JSON, for other tools.
    case json
    /// A Mustache template (the text of it).
    case template(String)
}

/// Renders release notes from the history: the conventional commits of a range, grouped.
package struct Changelog: Action {
    /// The action's name in steps and reports.
    package static let name = "changelog"
    /// Which commits the notes cover; by default the release being made.
    package var range: ChangelogRange
    /// The heading of unreleased work, usually the version being released (`1.6.0`).
    package var version: String?
    /// Markdown, JSON or a Mustache template.
    package var format: ChangelogFormat
    /// Groups, parsers and links; nil: the project's `.shiplane.yml`, else the defaults.
    package var configuration: ChangelogConfiguration?
    /// Which tags are releases; nil: the project's `.shiplane.yml`, else SemVer names.
    package var releaseTags: ReleaseTags?
    /// Merge commits; nil: `include_merges` of `.shiplane.yml`, else left out.
    package var merges: MergeCommits?

    /// Creates the action that renders the notes for `range`.
    package init(
        since range: ChangelogRange = .lastTag, version: String? = nil, format: ChangelogFormat = .markdown,
        configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil
    ) {
        self.range = range
        self.version = version
        self.format = format
        self.configuration = configuration
        self.releaseTags = releaseTags
        self.merges = merges
    }

    /// The range and, when given, the version.
    package var options: [StepOption] {
        [StepOption("since", "\(range)")] + (version.map { [StepOption("version", $0)] } ?? [])
    }

    /// Returns the rendered notes.
    /// - Throws: `EmptyChangelog` when the range holds no commit.
    package func run(in step: StepContext) throws -> String {
        let (configuration, releaseTags, merges) = try step.lane.changelogSettings(configuration, releaseTags, merges)
        let history = try ChangelogHistory(lane: step.lane, releaseTags: releaseTags, merges: merges, wholeHistory: range == .all)
        if range == .all, format == .markdown || format == .json {
            var text = ""
            let counts = try Self.streamAll(history: history, configuration: configuration, json: format == .json) { text += $0 }
            step.note("\(counts.commits) commits, \(counts.releases) release\(counts.releases == 1 ? "" : "s")")
            return text
        }
        let releases = try Self.releases(range, version: version, history: history, lane: step.lane)
        let text = try Self.render(releases.list, format: format, configuration: configuration, links: releases.links, whole: range == .all)
        step.note("\(releases.list.reduce(0) { $0 + $1.commits.count }) commits, \(releases.list.count) release\(releases.list.count == 1 ? "" : "s")")
        return text
    }

    /// The whole history (`.all`) as Markdown or JSON, handed to `write` a release at a time, so
    /// only one release's commits are in memory. Nothing is written until a release with a commit
    /// has been rendered: a history with none writes nothing and throws.
    /// - Returns: the number of commits and of releases.
    /// - Throws: `EmptyChangelog` when no release holds a commit.
    static func streamAll(
        history: ChangelogHistory, configuration: ChangelogConfiguration, json: Bool, to write: (String) -> Void
    ) throws -> (commits: Int, releases: Int) {
        var commits = 0
        var releases = 0
        var held = ""
        func emit(_ text: String) {
            if commits == 0 { held += text; return }
            if !held.isEmpty { write(held); held = "" }
            write(text)
        }
        if json {
            let encoder = ChangelogJSONEncoder(configuration: configuration, links: history.links)
            try ReleasePipeline(history: history).forEach { release in
                let piece = try encoder.encodedRelease(release)
                commits += release.commits.count
                emit((releases == 0 ? ChangelogJSONEncoder.documentStart : ",\n") + piece)
                releases += 1
            }
            emit(ChangelogJSONEncoder.documentEnd)
        } else {
            let renderer = MarkdownChangelogRenderer(configuration: configuration, links: history.links)
            var definitions: [String] = []
            try ReleasePipeline(history: history).forEach { release in
                commits += release.commits.count
                emit((releases == 0 ? ChangelogFileEditor.defaultHeader : "") + "\n" + renderer.renderSection(release))
                if let definition = renderer.linkReferenceDefinition(for: release) { definitions.append(definition) }
                releases += 1
            }
            if !definitions.isEmpty { emit("\n" + definitions.joined(separator: "\n") + "\n") }
        }
        guard commits > 0 else { throw EmptyChangelog(range: .all, previousTag: nil) }
        return (commits, releases)
    }

    static func releases(
        _ range: ChangelogRange, version: String?, history: ChangelogHistory, lane: LaneContext
    ) throws -> (list: [ChangelogRelease], links: RemoteLinks?) {
        // Before `addGitTag`, the release being made is the version this run bumped to: the
        // notes are titled with it, in a dry run as in the real run.
        let version = version ?? (range == .lastTag ? lane.state.bumpedVersion.map { $0.description } : nil)
        var releases = try history.releases(range, title: version)
        // HEAD is already a release tag and the run makes another version: no commit came since
        // that tag, so the new release has nothing to list (its tag's own section is not it).
        if let version, range == .lastTag, let tag = releases.first?.tagName,
           let tagged = ReleaseTags.version(of: tag), let made = try? SemanticVersion(parsing: version), tagged != made {
            throw EmptyChangelog(range: range, previousTag: tag)
        }
        if let version, range != .all, var first = releases.first, first.tagName == nil {
            let semantic = try? SemanticVersion(parsing: version)
            first.title = semantic?.description ?? version
            // The tag the release will get, written as the repository's tags are (`2.1.6`, `v2.1.6`).
            first.tagName = semantic.map { lane.releaseTagName($0) } ?? "v" + first.title
            first.date = lane.state.now()
            releases[0] = first
        }
        guard releases.contains(where: { !$0.commits.isEmpty }) else {
            throw EmptyChangelog(range: range, previousTag: releases.first?.previousTagName)
        }
        return (releases, history.links)
    }

    static func render(
        _ releases: [ChangelogRelease], format: ChangelogFormat, configuration: ChangelogConfiguration,
        links: RemoteLinks?, whole: Bool
    ) throws -> String {
        switch format {
        case .markdown:
            let renderer = MarkdownChangelogRenderer(configuration: configuration, links: links)
            if whole { return renderer.renderDocument(releases) }
            let sections = releases.map(renderer.renderSection).joined(separator: "\n")
            let definitions = releases.compactMap(renderer.linkReferenceDefinition(for:))
            return definitions.isEmpty ? sections : sections + "\n" + definitions.joined(separator: "\n") + "\n"
        case .json:
            return String(decoding: try ChangelogJSONEncoder(configuration: configuration, links: links).encode(releases), as: UTF8.self)
        case .template(let text):
            return try ChangelogTemplateRenderer(template: text, configuration: configuration, links: links).render(releases)
        }
    }
}

/// Keeps CHANGELOG.md: inserts the release's section in the right place (replacing an
/// `Unreleased` section), never adds a version that is already there, keeps every other byte.
package struct WriteChangelog: Action {
    /// The action's name in steps and reports.
    package static let name = "writeChangelog"
    /// The changelog file, relative to the repository root unless absolute.
    package var path: String
    /// Which commits the section covers; `.all` is refused.
    package var range: ChangelogRange
    /// The heading of unreleased work, usually the version being released; nil: `Unreleased`.
    /// A release already tagged keeps its tag's version.
    package var version: String?
    /// Groups, parsers and links; nil: the project's `.shiplane.yml`, else the defaults.
    package var configuration: ChangelogConfiguration?
    /// Which tags are releases; nil: the project's `.shiplane.yml`, else SemVer names.
    package var releaseTags: ReleaseTags?
    /// Merge commits; nil: `include_merges` of `.shiplane.yml`, else left out.
    package var merges: MergeCommits?

    /// Creates the action that adds the section for `range` to the file at `path`.
    package init(
        path: String = "CHANGELOG.md", since range: ChangelogRange = .lastTag, version: String? = nil,
        configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil
    ) {
        self.path = path
        self.range = range
        self.version = version
        self.configuration = configuration
        self.releaseTags = releaseTags
        self.merges = merges
    }

    /// The file, the range and, when given, the version.
    package var options: [StepOption] {
        [StepOption("path", path), StepOption("since", "\(range)")] + (version.map { [StepOption("version", $0)] } ?? [])
    }

    /// Returns the section it wrote (or in a dry run, would write) and the file it changed.
    package func run(in step: StepContext) throws -> ChangelogWriteResult {
        guard range != .all else {
            throw ValidationFailure(problems: ["writeChangelog keeps a file one release at a time; `.all` would rewrite it"], suggestion: "render the whole history with changelog(since: .all)")
        }
        let lane = step.lane
        let full = path.hasPrefix("/") ? path : lane.workingDirectory + "/" + path
        // A submodule, nested clone or linked worktree is another project (`OtherProjects`), as
        // for the version files: its changelog is its own, and a commit would not take the change.
        if let other = OtherProjects.enclosingRepository(of: full, below: lane.workingDirectory, fileSystem: lane.fileSystem) {
            throw ShiplaneError(
                "\(path) is inside \(lane.displayPath(other)), another project (a submodule, a nested repository or a linked worktree): this project's changelog is not written there",
                suggestion: "write the changelog to a file of this project's own work tree (e.g. CHANGELOG.md); nothing was written")
        }
        let (configuration, releaseTags, merges) = try lane.changelogSettings(configuration, releaseTags, merges)
        let history = try ChangelogHistory(lane: lane, releaseTags: releaseTags, merges: merges)
        let (releases, links) = try Changelog.releases(range, version: version, history: history, lane: lane)
        guard let release = releases.first else { return ChangelogWriteResult(section: "", fileChanges: []) }
        let renderer = MarkdownChangelogRenderer(configuration: configuration, links: links)
        let section = renderer.renderSection(release)
        let existingBytes = try lane.fileSystem.contents(of: full)
        let existing = existingBytes.map { String(decoding: $0, as: UTF8.self) }
        let updated = try ChangelogFileEditor().updatedChangelog(
            existing: existing, newSection: section, version: release.title,
            linkReferenceDefinition: renderer.linkReferenceDefinition(for: release)
        )
        let change = try step.writeFile(Data(updated.utf8), to: full, describedAs: path, replacing: existingBytes)
        if step.isDryRun {
            step.log("would write to \(path):\n" + section)
        }
        step.note("\(release.title): \(counted(release.commits.count, "commit"))")
        return ChangelogWriteResult(section: section, fileChanges: change.map { [$0] } ?? [])
    }
}

/// The range holds no commit: there is nothing to write.
package struct EmptyChangelog: ReportableError {
    /// The range that held no commit.
    package var range: ChangelogRange
    /// The release tag the range started after, when there was one.
    package var previousTag: String?

    /// Says which range was empty.
    package var message: String {
        switch range {
        case .range(let from, let to): "no commits in \(from.map { "\($0).." } ?? "")\(to): nothing to write"
        default: "no commits since \(previousTag ?? "the start of history"): nothing to write"
        }
    }

    /// Commit something, or name another range.
    package var suggestion: String? { "commit something first, or name another range (--from, --to)" }
}

extension LaneContext {
    /// The whole history's changelog (`changelog --all`), handed to `write` a release at a time
    /// — Markdown, or JSON with `json` — so a history of any length is never held whole: memory
    /// stays that of one release. The text equals what `changelog(since: .all, …)` returns.
    /// - Throws: as `changelog(since: .all)`.
    public func streamWholeChangelog(
        json: Bool, configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil,
        to write: (String) -> Void
    ) throws {
        let (configuration, releaseTags, merges) = try changelogSettings(configuration, releaseTags, merges)
        let history = try ChangelogHistory(lane: self, releaseTags: releaseTags, merges: merges, wholeHistory: true)
        _ = try Changelog.streamAll(history: history, configuration: configuration, json: json, to: write)
    }

    /// The changelog settings a step uses: what the lane passed, else the project's
    /// `.shiplane.yml`, else the defaults.
    /// - Throws: `SettingsError` for a mistake in `.shiplane.yml`.
    func changelogSettings(
        _ configuration: ChangelogConfiguration?, _ releaseTags: ReleaseTags?, _ merges: MergeCommits?
    ) throws -> (ChangelogConfiguration, ReleaseTags, MergeCommits) {
        let settings = (configuration == nil || releaseTags == nil) ? try ProjectSettings.load(root: workingDirectory) : ProjectSettings()
        var chosen = configuration ?? settings.changelog
        let merges = merges ?? (chosen.includeMergeCommits ? .include : .exclude)
        chosen.includeMergeCommits = merges != .exclude
        return (chosen, releaseTags ?? settings.releaseTags, merges)
    }

    /// Release notes for `since` (by default: the release being made), as Markdown.
    public func changelog(
        since range: ChangelogRange = .lastTag, version: String? = nil, format: ChangelogFormat = .markdown,
        configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> String {
        try run(
            Changelog(since: range, version: version, format: format, configuration: configuration, releaseTags: releaseTags, merges: merges),
            file: file, line: line
        )
    }

    /// Adds the release's section to CHANGELOG.md (or `path`) and returns what it changed: the
    /// section (which it reads as in text) and the file, for `commitVersionBump`.
    @discardableResult
    public func writeChangelog(
        _ path: String = "CHANGELOG.md", since range: ChangelogRange = .lastTag, version: String? = nil,
        configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> ChangelogWriteResult {
        try run(
            WriteChangelog(path: path, since: range, version: version, configuration: configuration, releaseTags: releaseTags, merges: merges),
            file: file, line: line
        )
    }
}

extension Changelog: DocumentedAction {
    /// How `lane.changelog` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Changelog",
        summary: "Release notes from the conventional commits of a range, grouped (breaking changes first), Markdown, JSON or a Mustache template",
        signature: "try lane.changelog(since range: ChangelogRange = .lastTag, version: String? = nil, format: ChangelogFormat = .markdown, configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil) -> String",
        parameters: [
            .init(name: "since", type: "ChangelogRange", defaultValue: ".lastTag", help: ".lastTag (the release being made), .unreleased, .range(from:to:), .all"),
            .init(name: "version", type: "String?", defaultValue: "nil", help: "heading for unreleased work"),
            .init(name: "format", type: "ChangelogFormat", defaultValue: ".markdown", help: ".markdown, .json, .template(text)"),
            .init(name: "configuration", type: "ChangelogConfiguration?", defaultValue: ".shiplane.yml, else the defaults", help: "group titles and order, hidden types, parsers, skip patterns, links"),
            .init(name: "releaseTags", type: "ReleaseTags?", defaultValue: ".shiplane.yml, else SemVer names", help: "which tags are releases: ReleaseTags(pattern: \"app-v*\", includePrereleases: false)"),
            .init(name: "merges", type: "MergeCommits?", defaultValue: ".shiplane.yml, else .exclude", help: ".exclude, .include or .only merge commits"),
        ],
        example: #"let notes = try lane.changelog(since: .lastTag)"#,
        dryRun: "runs (it only reads)", rollback: "nothing to undo"
    )
}

extension WriteChangelog: DocumentedAction {
    /// How `lane.writeChangelog` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Changelog",
        summary: "Insert the release's section into CHANGELOG.md (replacing Unreleased), never twice, keeping every other byte; the file joins the release commit",
        signature: "try lane.writeChangelog(_ path: String = \"CHANGELOG.md\", since range: ChangelogRange = .lastTag, version: String? = nil, configuration: ChangelogConfiguration? = nil, releaseTags: ReleaseTags? = nil, merges: MergeCommits? = nil) -> ChangelogWriteResult",
        parameters: [
            .init(name: "path", type: "String", defaultValue: "CHANGELOG.md", help: "the file"),
            .init(name: "since", type: "ChangelogRange", defaultValue: ".lastTag", help: "the release being made; .unreleased, .range(from:to:) (.all is refused)"),
            .init(name: "version", type: "String?", defaultValue: "nil", help: "the section's heading, e.g. the version being released"),
            .init(name: "configuration", type: "ChangelogConfiguration?", defaultValue: ".shiplane.yml, else the defaults", help: "group titles and order, hidden types, parsers, skip patterns, links"),
            .init(name: "releaseTags", type: "ReleaseTags?", defaultValue: ".shiplane.yml, else SemVer names", help: "which tags are releases: ReleaseTags(pattern: \"app-v*\", includePrereleases: false)"),
            .init(name: "merges", type: "MergeCommits?", defaultValue: ".shiplane.yml, else .exclude", help: ".exclude, .include or .only merge commits"),
        ],
        example: #"try lane.writeChangelog(version: version.description)"#,
        dryRun: "writes to the overlay and prints the section", rollback: "restores the file"
    )
}
