import Foundation
internal import Git

/// Publishes a GitLab release: preflight, the files uploaded to the project's generic package
/// registry, then the release created with a link to each (`link_type`, `direct_asset_path`).
///
/// Works on gitlab.com and self-managed GitLab. In GitLab CI the API and project come from
/// `CI_API_V4_URL` (or `CI_SERVER_URL`) and `CI_PROJECT_ID`; elsewhere from the `origin` remote,
/// or the `server` and `project` options. The token is `GITLAB_TOKEN` (a personal, project or
/// group access token, sent as `PRIVATE-TOKEN`), else `CI_JOB_TOKEN` (sent as `JOB-TOKEN`).
/// Preflight checks the token, the project, the tag on GitLab, the milestones and the files
/// before any change. A re-run finds the release by its tag and the files by their SHA-256 and
/// finishes what is missing. Rollback (before the point of no return) removes the links, the
/// package files and the release this run made.
package struct PublishGitLabRelease: ForgeReleaseStep {
    /// The action's name in steps and reports.
    package static let name = "gitlabRelease"
    /// The release's tag, which must be on GitLab (pushed) when the release is made.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown (the release's `description`).
    package var notes: String?
    /// The files to upload and link, relative to the repository root unless absolute.
    package var assets: [String]
    /// Titles of milestones to associate with the release.
    package var milestones: [String]
    /// The project's path (`group/project`) or id; nil: `CI_PROJECT_ID`, else the origin remote.
    package var project: String?
    /// The GitLab server (`https://gitlab.example.com`); nil: `CI_API_V4_URL`/`CI_SERVER_URL`, else the origin's host.
    package var server: String?
    /// The generic package the files go to; nil: the project's name.
    package var packageName: String?
    /// The `link_type` of each asset link: other, runbook, image or package.
    package var linkType: String

    /// Creates the action that publishes the GitLab release for `tag`.
    package init(tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], milestones: [String] = [],
                project: String? = nil, server: String? = nil, packageName: String? = nil, linkType: String = "package") {
        self.tag = tag
        self.name = name
        self.notes = notes
        self.assets = assets
        self.milestones = milestones
        self.project = project
        self.server = server
        self.packageName = packageName
        self.linkType = linkType
    }

    /// The tag, and the assets, milestones and project when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if !assets.isEmpty { shown.append(StepOption("assets", assets.joined(separator: ", "))) }
        if !milestones.isEmpty { shown.append(StepOption("milestones", milestones.joined(separator: ", "))) }
        if let project { shown.append(StepOption("project", project)) }
        if let server { shown.append(StepOption("server", server)) }
        return shown
    }

    /// Set by `release` for a prerelease: GitLab has no such flag, so the step says so.
    package var prerelease = false

    /// Returns the release's web address (in a dry run, nil): the life `ForgeReleaseRun` drives on every forge.
    package func run(in step: StepContext) async throws -> String? {
        if prerelease { step.log("GitLab releases have no prerelease flag: \(tag) is released as usual", level: .warning) }
        try step.checkArtifacts(assets)
        let origin = project == nil || server == nil ? try git { try step.lane.repository().configString("remote.origin.url") } : nil
        var forge = try GitLabForge.connect(.gitlab(server: server, project: project), origin: origin, in: step)
        if let packageName { forge.packageName = packageName }
        forge.milestones = milestones
        forge.linkType = linkType
        let request = ForgeReleaseRequest(tag: tag, name: name, notes: notes, assets: assets)
        return try await ForgeReleaseRun.run(forge, request, in: step)
    }

    /// The project's name, reduced to the characters a generic package name may hold: the last
    /// part of its path — from the project option, or, for a numeric id (GitLab CI's
    /// `CI_PROJECT_ID`), from `CI_PROJECT_PATH`/`CI_PROJECT_NAME` or the origin remote — so that
    /// the same release made in CI and from a checkout uses one package; `release` only when
    /// nothing names the project.
    static func defaultPackageName(_ project: GitLabProject, environment: [String: String] = [:], originURL: String? = nil) -> String {
        func lastPart(_ path: String?) -> String? {
            guard let part = path?.split(separator: "/").last.map(String.init), !part.isEmpty, !part.allSatisfy(\.isNumber) else { return nil }
            return part
        }
        let originPath = originURL.flatMap { RemoteLinks.hostAndPath(of: $0) }
            .flatMap { RemoteLinks.repositoryPathComponents($0.path) }.map { $0.joined(separator: "/") }
        let name = lastPart(project.id) ?? lastPart(environment["CI_PROJECT_PATH"]) ?? lastPart(environment["CI_PROJECT_NAME"])
            ?? lastPart(originPath)
        let cleaned = String((name ?? "").unicodeScalars.filter { GitLabReleasePublisher.allowedNameCharacters.contains($0) }.map(Character.init))
        return cleaned.isEmpty ? "release" : cleaned
    }
}

extension LaneContext {
    /// Publishes a GitLab release for `tag` with `notes` and `assets` (uploaded to the generic
    /// package registry and linked); returns its web address.
    @discardableResult
    public func gitlabRelease(
        tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], milestones: [String] = [],
        project: String? = nil, server: String? = nil, packageName: String? = nil, linkType: String = "package",
        file: String = #fileID, line: Int = #line
    ) async throws -> String? {
        try await run(
            PublishGitLabRelease(tag: tag, name: name, notes: notes, assets: try ArtifactInputs.paths(assets), milestones: milestones, project: project,
                                 server: server, packageName: packageName, linkType: linkType),
            file: file, line: line)
    }
}

extension PublishGitLabRelease: DocumentedAction {
    /// How `lane.gitlabRelease` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish a GitLab release: preflight, files to the generic package registry, the release with a link to each; a re-run finishes it",
        signature: "try await lane.gitlabRelease(tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], milestones: [String] = [], project: String? = nil, server: String? = nil, packageName: String? = nil, linkType: String = \"package\") -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag (on GitLab)"),
            .init(name: "name", type: "String?", defaultValue: "the tag", help: "the release's title"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release description, e.g. from changelog()"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to upload and link"),
            .init(name: "milestones", type: "[String]", defaultValue: "[]", help: "milestone titles to associate"),
            .init(name: "project", type: "String?", defaultValue: "CI_PROJECT_ID or origin", help: "group/project or id"),
            .init(name: "server", type: "String?", defaultValue: "CI_SERVER_URL or origin's host", help: "the GitLab server URL"),
            .init(name: "packageName", type: "String?", defaultValue: "project name", help: "generic package the files go to (version: the tag)"),
            .init(name: "linkType", type: "String", defaultValue: "\"package\"", help: "link_type: other, runbook, image or package"),
        ],
        example: #"try await lane.gitlabRelease(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
        dryRun: "preflight only (token, project, tag, milestones, files), then says what it would publish",
        rollback: "before the point of no return: removes the links, package files and release this run made")
}
