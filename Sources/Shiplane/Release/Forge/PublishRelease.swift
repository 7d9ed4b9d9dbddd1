import Foundation
internal import Git

/// Publishes a release on the project's forge — GitHub, GitLab or Gitea/Forgejo — with the same
/// lane code for each: `lane.release(tag:notes:assets:)`.
///
/// The forge is the `forge:` argument, else `forge.type` in `.shiplane.yml`, else the origin
/// remote's host (github.com, gitlab.com, codeberg.org, or one declared in `forge.hosts`), else
/// the CI's variables (`GITLAB_CI`, `GITEA_ACTIONS`/`FORGEJO_*`, `GITHUB_ACTIONS`). A host none of
/// these recognise is an error that says how to declare it. The work is that forge's own
/// action's (`githubRelease`, `gitlabRelease`, `giteaRelease`), with its guarantees: preflight,
/// a re-run finishes a half-made release, rollback removes what the run made.
package struct PublishRelease: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "release"
    /// The release's tag.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown.
    package var notes: String?
    /// The files to attach, relative to the repository root unless absolute.
    package var assets: [String]
    /// True for a prerelease (GitHub, Gitea; GitLab has no such flag and says so in the log).
    package var prerelease: Bool
    /// The forge, explicitly; nil: chosen from the settings, the origin or the CI.
    package var forge: Forge?

    /// Creates the action that publishes the release for `tag` on the project's forge.
    package init(tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], prerelease: Bool = false, forge: Forge? = nil) {
        self.tag = tag
        self.name = name
        self.notes = notes
        self.assets = assets
        self.prerelease = prerelease
        self.forge = forge
    }

    /// The tag, and the assets, prerelease flag and forge when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if !assets.isEmpty { shown.append(StepOption("assets", assets.joined(separator: ", "))) }
        if prerelease { shown.append(StepOption("prerelease", "true")) }
        if let forge { shown.append(StepOption("forge", forge.kind.rawValue)) }
        return shown
    }

    /// `release_url`: the release's web address (none in a dry run).
    package func runOutputs(of output: String?) -> [(name: String, value: String)] { output.map { [("release_url", $0)] } ?? [] }

    /// Returns the release's web address (in a dry run, nil).
    package func run(in step: StepContext) async throws -> String? {
        try step.checkArtifacts(assets)
        let lane = step.lane
        let settings = try ProjectSettings.load(root: lane.workingDirectory)
        let origin = try git { try lane.repository().configString("remote.origin.url") }
        let variables = lane.environment.variables
        let choice = try ForgeChoice.choose(explicit: forge, settings: settings.forge, environment: variables, originURL: origin)
        step.log("releasing on \(choice.forge.kind.displayName) (from \(choice.reason))")
        switch choice.forge {
        case .github(let repository):
            if repository == nil, let host = origin.flatMap({ RemoteLinks.hostAndPath(of: $0)?.host }), ForgeChoice.knownHosts[host] != .github,
               (variables["GITHUB_API_URL"] ?? "").isEmpty {
                throw ShiplaneError("the origin remote's host \(host) is a GitHub Enterprise server, but GITHUB_API_URL is not set",
                                    suggestion: "set GITHUB_API_URL=https://\(host)/api/v3")
            }
            return try await PublishGitHubRelease(tag: tag, name: name, notes: notes, assets: assets, prerelease: prerelease,
                                                  repository: repository).run(in: step)
        case let .gitlab(server, project):
            if prerelease { step.log("GitLab releases have no prerelease flag: \(tag) is released as usual", level: .warning) }
            return try await PublishGitLabRelease(tag: tag, name: name, notes: notes, assets: assets, project: project, server: server).run(in: step)
        case let .gitea(server, repository):
            return try await PublishGiteaRelease(tag: tag, name: name, notes: notes, assets: assets, prerelease: prerelease,
                                                 repository: repository, server: server).run(in: step)
        }
    }
}

extension LaneContext {
    /// Publishes the release for `tag` on the project's forge (GitHub, GitLab or Gitea/Forgejo,
    /// from the settings, the origin remote or the CI, unless `forge` says); returns its web address.
    @discardableResult
    public func release(
        tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, forge: Forge? = nil,
        file: String = #fileID, line: Int = #line
    ) async throws -> String? {
        try await run(PublishRelease(tag: tag, name: name, notes: notes, assets: try ArtifactInputs.paths(assets), prerelease: prerelease, forge: forge),
                      file: file, line: line)
    }
}

extension PublishRelease: DocumentedAction {
    /// How `lane.release` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish a release on the project's forge (GitHub, GitLab or Gitea/Forgejo, from settings, origin or CI): the same lane on every forge",
        signature: "try await lane.release(tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, forge: Forge? = nil) -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag"),
            .init(name: "name", type: "String?", defaultValue: "the tag", help: "the release's title"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release notes, e.g. from changelog()"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to attach"),
            .init(name: "prerelease", type: "Bool", defaultValue: "false", help: "mark it a prerelease (GitHub, Gitea)"),
            .init(name: "forge", type: "Forge?", defaultValue: "settings, origin or CI", help: ".github(...), .gitlab(...) or .gitea(...)"),
        ],
        example: #"try await lane.release(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
        dryRun: "names the forge and why, then that forge's dry run (preflight, what it would publish)",
        rollback: "that forge's: removes what this run made before the point of no return")
}
