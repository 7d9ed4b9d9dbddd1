import Foundation
internal import Git

/// Publishes a GitHub release: preflight, a draft, the assets uploaded concurrently, then published.
///
/// Preflight runs before any change and reports every problem at once: the token
/// (`GITHUB_TOKEN`, else `GH_TOKEN`) present and accepted, each asset a regular file, no two
/// assets with one name. The API base is `GITHUB_API_URL` when set (GitHub Actions, GitHub
/// Enterprise), else `https://api.github.com`; the repository comes from the `origin` remote
/// unless given. A re-run finds the release for the tag and finishes it: an asset with the same
/// name and size is skipped, a different one is uploaded under a temporary name first, then the
/// old one is deleted and the new one renamed — never deleted first. Rollback deletes a release
/// this run created (a re-used one is left as it is).
package struct PublishGitHubRelease: ForgeReleaseStep {
    /// The action's name in steps and reports.
    package static let name = "githubRelease"
    /// The release's tag; the release is made for it, or found by it on a re-run.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown (e.g. from `lane.changelog()`).
    package var notes: String?
    /// The files to attach, relative to the repository root unless absolute.
    package var assets: [String]
    /// True for a prerelease, which is then not made the latest release.
    package var prerelease: Bool
    /// `owner/name` or a remote URL; nil: the `origin` remote.
    package var repository: String?
    /// How many assets upload at once.
    package var uploadConcurrency: Int

    /// Creates the action that publishes the release for `tag`.
    package init(
        tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], prerelease: Bool = false,
        repository: String? = nil, uploadConcurrency: Int = 4
    ) {
        self.uploadConcurrency = uploadConcurrency
        self.tag = tag
        self.name = name
        self.notes = notes
        self.assets = assets
        self.prerelease = prerelease
        self.repository = repository
    }

    /// The tag, and the assets, prerelease flag and repository when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if !assets.isEmpty { shown.append(StepOption("assets", assets.joined(separator: ", "))) }
        if prerelease { shown.append(StepOption("prerelease", "true")) }
        if let repository { shown.append(StepOption("repository", repository)) }
        return shown
    }

    /// Set by `release`: a repository taken from an origin that is not a public GitHub host is a
    /// GitHub Enterprise server, which needs `GITHUB_API_URL`.
    package var requiresEnterpriseAPI = false

    /// Returns the release's web address (in a dry run, nil): the life `ForgeReleaseRun` drives on every forge.
    package func run(in step: StepContext) async throws -> String? {
        try step.checkArtifacts(assets)
        let lane = step.lane
        let origin = try git { try lane.repository().configString("remote.origin.url") }
        if requiresEnterpriseAPI, repository == nil, (lane.environment.variables["GITHUB_API_URL"] ?? "").isEmpty,
           let origin, let host = RemoteLinks.hostAndPath(of: origin)?.host, GitHubForge.publicHosts[host] == nil {
            throw ShiplaneError("the origin remote's host \(host) is a GitHub Enterprise server, but GITHUB_API_URL is not set",
                                suggestion: "set GITHUB_API_URL=https://\(host)/api/v3")
        }
        var forge = try GitHubForge.connect(.github(repository: repository), origin: origin, in: step)
        forge.uploadConcurrency = uploadConcurrency
        if lane.fanOut.mode == .fanIn, !step.isDryRun {
            forge.partsDraftID = try await lane.fanOut.partsDraft(forge: .github, api: forge.publisher.apiURL, repository: forge.publisher.repository.description, in: lane)
            if let id = forge.partsDraftID { step.log("the parts uploaded their artifacts to the draft release \(id): this job publishes it") }
        }
        let request = ForgeReleaseRequest(tag: tag, name: name, notes: notes, prerelease: prerelease, assets: assets)
        return try await ForgeReleaseRun.run(forge, request, in: step)
    }
}

extension LaneContext {
    /// Publishes a GitHub release for `tag` with `notes` and `assets`; returns its web address.
    @discardableResult
    public func githubRelease(
        tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false,
        repository: String? = nil, uploadConcurrency: Int = 4, file: String = #fileID, line: Int = #line
    ) async throws -> String? {
        try await run(
            PublishGitHubRelease(
                tag: tag, name: name, notes: notes, assets: try ArtifactInputs.paths(assets), prerelease: prerelease, repository: repository,
                uploadConcurrency: uploadConcurrency
            ),
            file: file, line: line
        )
    }
}

extension PublishGitHubRelease: DocumentedAction {
    /// How `lane.githubRelease` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish a GitHub release: preflight, draft, assets uploaded concurrently with retries, then published; a re-run finishes it",
        signature: "try await lane.githubRelease(tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, repository: String? = nil, uploadConcurrency: Int = 4) -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag"),
            .init(name: "name", type: "String?", defaultValue: "the tag", help: "the release's title"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release body, e.g. from changelog()"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to attach"),
            .init(name: "prerelease", type: "Bool", defaultValue: "false", help: "mark it a prerelease (and not the latest release)"),
            .init(name: "repository", type: "String?", defaultValue: "origin remote", help: "owner/name"),
            .init(name: "uploadConcurrency", type: "Int", defaultValue: "4", help: "assets uploading at once")
        ],
        example: #"try await lane.githubRelease(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
        dryRun: "preflight only (token, access, files), then says what it would publish", rollback: "deletes a release this run created"
    )
}
