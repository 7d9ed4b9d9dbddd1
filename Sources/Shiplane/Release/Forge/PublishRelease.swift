import Foundation
internal import Git

/// Publishes a release on the project's forge — any of `Forges.all` — with the same
/// lane code for each: `lane.release(tag:notes:assets:)`.
///
/// The forge is the `forge:` argument, else `forge.type` in `.shiplane.yml`, else the origin
/// remote's host (github.com, gitlab.com, codeberg.org, or one declared in `forge.hosts`), else
/// the CI's variables (`GITLAB_CI`, `GITEA_ACTIONS`/`FORGEJO_*`, `GITHUB_ACTIONS`). A host none of
/// these recognise is an error that says how to declare it. The work is that forge's own
/// action's (`githubRelease`, `gitlabRelease`, `giteaRelease`), with its guarantees: preflight,
/// a re-run finishes a half-made release, rollback removes what the run made.
package struct PublishRelease: ForgeReleaseStep {
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
    package var forge: ForgeTarget?

    /// Creates the action that publishes the release for `tag` on the project's forge.
    package init(tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], prerelease: Bool = false, forge: ForgeTarget? = nil) {
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

    /// Returns the release's web address (in a dry run, nil).
    package func run(in step: StepContext) async throws -> String? {
        let lane = step.lane
        let settings = try ProjectSettings.load(root: lane.workingDirectory)
        let origin = try git { try lane.repository().configString("remote.origin.url") }
        let choice = try ForgeChoice.choose(explicit: forge, settings: settings.forge, environment: lane.environment.variables, originURL: origin)
        guard let chosen = choice.forge.kind.forge else {
            throw ShiplaneError("no forge is registered as \(choice.forge.kind): this is a bug in Shiplane, please report it")
        }
        step.log("releasing on \(chosen.displayName) (from \(choice.reason))")
        let request = ForgeReleaseRequest(tag: tag, name: name, notes: notes, prerelease: prerelease, assets: assets)
        return try await chosen.releaseStep(request, target: choice.forge).run(in: step)
    }
}

extension LaneContext {
    /// Publishes the release for `tag` on the project's forge (GitHub, GitLab, Gitea/Forgejo or Bitbucket,
    /// from the settings, the origin remote or the CI, unless `forge` says); returns its web address.
    @discardableResult
    public func release(
        tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, forge: ForgeTarget? = nil,
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
        summary: "Publish a release on the project's forge (GitHub, GitLab, Gitea/Forgejo or Bitbucket, from settings, origin or CI): the same lane on every forge",
        signature: "try await lane.release(tag: String, name: String? = nil, notes: String? = nil, assets: [any ArtifactConvertible] = [], prerelease: Bool = false, forge: ForgeTarget? = nil) -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag"),
            .init(name: "name", type: "String?", defaultValue: "the tag", help: "the release's title"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release notes, e.g. from changelog()"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to attach"),
            .init(name: "prerelease", type: "Bool", defaultValue: "false", help: "mark it a prerelease (GitHub, Gitea)"),
            .init(name: "forge", type: "Forge?", defaultValue: "settings, origin or CI", help: ".github(...), .gitlab(...), .gitea(...) or .bitbucket(...)"),
        ],
        example: #"try await lane.release(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
        dryRun: "names the forge and why, then that forge's dry run (preflight, what it would publish)",
        rollback: "that forge's: removes what this run made before the point of no return")
}
