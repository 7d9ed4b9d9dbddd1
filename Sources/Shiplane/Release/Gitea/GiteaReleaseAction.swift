import Foundation
internal import Git

/// Publishes a Gitea or Forgejo release: preflight, a draft, the files attached, then published
/// (or left a draft).
///
/// The server is the `server` option, else `forge.url` of `.shiplane.yml`, else
/// `GITEA_SERVER_URL`/`FORGEJO_SERVER_URL` (or `GITHUB_SERVER_URL` under Gitea/Forgejo Actions),
/// else `https://` and the origin's host (`GiteaRepository.locate`); the
/// repository is `owner/name` from the option, the CI or the origin. The token is `GITEA_TOKEN`,
/// else `FORGEJO_TOKEN` (else `GITHUB_TOKEN` under Gitea/Forgejo Actions), sent as
/// `Authorization: token …`. A re-run finds the release by its tag and finishes it; rollback
/// (before the point of no return) deletes the attachments and the draft this run made.
package struct PublishGiteaRelease: ForgeReleaseStep {
    /// The action's name in steps and reports.
    package static let name = "giteaRelease"
    /// The release's tag, which must be on the server (pushed) when the release is made.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown.
    package var notes: String?
    /// The files to attach, relative to the repository root unless absolute.
    package var assets: [String]
    /// True for a prerelease.
    package var prerelease: Bool
    /// True to leave the release a draft.
    package var draft: Bool
    /// `owner/name`; nil: the CI's or the origin's.
    package var repository: String?
    /// The server (`https://code.example.org`); nil: `forge.url`, else the CI's, else the origin's host.
    package var server: String?

    /// Creates the action that publishes the Gitea release for `tag`.
    package init(tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], prerelease: Bool = false, draft: Bool = false,
                repository: String? = nil, server: String? = nil) {
        self.tag = tag
        self.name = name
        self.notes = notes
        self.assets = assets
        self.prerelease = prerelease
        self.draft = draft
        self.repository = repository
        self.server = server
    }

    /// The tag, and the assets, flags, repository and server when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if !assets.isEmpty { shown.append(StepOption("assets", assets.joined(separator: ", "))) }
        if prerelease { shown.append(StepOption("prerelease", "true")) }
        if draft { shown.append(StepOption("draft", "true")) }
        if let repository { shown.append(StepOption("repository", repository)) }
        if let server { shown.append(StepOption("server", server)) }
        return shown
    }

    /// Returns the release's web address (in a dry run, nil).
    package func run(in step: StepContext) async throws -> String? {
        let request = ForgeReleaseRequest(tag: tag, name: name, notes: notes, prerelease: prerelease, assets: assets, publish: !draft)
        let target = ForgeTarget.gitea(server: server, repository: repository)
        let origin = repository == nil || server == nil ? try git { try step.lane.repository().configString("remote.origin.url") } : nil
        var forge = try GiteaForge.connect(target, origin: origin, in: step)
        if step.lane.fanOut.mode == .fanIn, !step.isDryRun {
            // A fanned-out release's parts uploaded to a draft (issue 42): this job publishes it.
            forge.partsDraftID = try await step.lane.fanOut.partsDraft(
                forge: .gitea, api: forge.publisher.repository.apiURL, repository: forge.publisher.repository.description, in: step.lane)
            if let id = forge.partsDraftID { step.log("the parts uploaded their artifacts to the draft release \(id): this job publishes it") }
        }
        return try await ForgeReleaseRun.run(forge, request, in: step)
    }
}

extension LaneContext {
    /// Publishes a Gitea or Forgejo release for `tag` with `notes` and `assets`; returns its web address.
    @discardableResult
    public func giteaRelease(
        tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, draft: Bool = false,
        repository: String? = nil, server: String? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> String? {
        try await run(
            PublishGiteaRelease(tag: tag, name: name, notes: notes, assets: try ArtifactInputs.paths(assets), prerelease: prerelease, draft: draft,
                                repository: repository, server: server),
            file: file, line: line)
    }
}

extension PublishGiteaRelease: DocumentedAction {
    /// How `lane.giteaRelease` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish a Gitea or Forgejo release: preflight, draft, attachments, then published (or left a draft); a re-run finishes it",
        signature: "try await lane.giteaRelease(tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, draft: Bool = false, repository: String? = nil, server: String? = nil) -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag (on the server)"),
            .init(name: "name", type: "String?", defaultValue: "the tag", help: "the release's title"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release body, e.g. from changelog()"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to attach"),
            .init(name: "prerelease", type: "Bool", defaultValue: "false", help: "mark it a prerelease"),
            .init(name: "draft", type: "Bool", defaultValue: "false", help: "leave it a draft"),
            .init(name: "repository", type: "String?", defaultValue: "CI or origin", help: "owner/name"),
            .init(name: "server", type: "String?", defaultValue: "forge.url, GITEA_SERVER_URL or origin's host", help: "the Gitea/Forgejo server URL"),
        ],
        example: #"try await lane.giteaRelease(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
        dryRun: "preflight only (token, repository, tag, files), then says what it would publish",
        rollback: "before the point of no return: deletes the attachments and the draft this run made")
}
