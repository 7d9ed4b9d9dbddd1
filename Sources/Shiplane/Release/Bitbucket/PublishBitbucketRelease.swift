import Foundation

/// Publishes a release on Bitbucket Cloud: the pushed tag and the files as the repository's
/// downloads, through the `Forge` contract (`ForgeReleaseRun`): preflight (credentials,
/// repository, tag, files: every problem at once), the files compared by downloading those of
/// the same name and size, missing ones uploaded, then the point of no return.
///
/// The repository is `repository:` (`workspace/repo_slug`), else `BITBUCKET_REPO_FULL_NAME`,
/// else the origin's path; the API is `BITBUCKET_API_URL`, else `https://api.bitbucket.org/2.0`.
/// Rollback (before the point of no return) deletes the downloads this run uploaded while they
/// are still as it left them.
package struct PublishBitbucketRelease: ForgeReleaseStep {
    /// The action's name in steps and reports.
    package static let name = "bitbucketRelease"
    /// The release's tag, which must be on Bitbucket (pushed).
    package var tag: String
    /// The release notes (Bitbucket keeps none with downloads: logged).
    package var notes: String?
    /// The files to upload as downloads, relative to the repository root unless absolute.
    package var assets: [String]
    /// `workspace/repo_slug`; nil: the CI's or the origin's.
    package var repository: String?
    /// The REST API base; nil: `BITBUCKET_API_URL`, else Bitbucket Cloud's.
    package var server: String?

    /// Creates the action that publishes the Bitbucket release for `tag`.
    package init(tag: String, notes: String? = nil, assets: [String] = [], repository: String? = nil, server: String? = nil) {
        self.tag = tag
        self.notes = notes
        self.assets = assets
        self.repository = repository
        self.server = server
    }

    /// The tag, and the assets and repository when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if !assets.isEmpty { shown.append(StepOption("assets", assets.joined(separator: ", "))) }
        if let repository { shown.append(StepOption("repository", repository)) }
        return shown
    }

    /// Returns the repository's downloads page (in a dry run, nil).
    package func run(in step: StepContext) async throws -> String? {
        let request = ForgeReleaseRequest(tag: tag, notes: notes, assets: assets)
        return try await ForgeReleaseRun.run(BitbucketForge.self, target: ForgeTarget(kind: .bitbucket, server: server, repository: repository),
                                             request, in: step)
    }
}

extension LaneContext {
    /// Publishes `assets` as the downloads of the pushed tag `tag` on Bitbucket Cloud; returns the
    /// repository's downloads page.
    @discardableResult
    public func bitbucketRelease(
        tag: String, notes: String? = nil, assets: [any ArtifactConvertible] = [], repository: String? = nil,
        file: String = #fileID, line: Int = #line
    ) async throws -> String? {
        try await run(PublishBitbucketRelease(tag: tag, notes: notes, assets: try ArtifactInputs.paths(assets), repository: repository),
                      file: file, line: line)
    }
}

extension PublishBitbucketRelease: DocumentedAction {
    /// How `lane.bitbucketRelease` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish a release on Bitbucket Cloud: the pushed tag checked, the files uploaded as the repository's downloads; a re-run keeps the same bytes",
        signature: "try await lane.bitbucketRelease(tag: String, notes: String? = nil, assets: [any ArtifactConvertible] = [], repository: String? = nil) -> String?",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag (pushed to Bitbucket)"),
            .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release notes (logged: Bitbucket keeps none)"),
            .init(name: "assets", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "files to upload as downloads"),
            .init(name: "repository", type: "String?", defaultValue: "BITBUCKET_REPO_FULL_NAME or origin", help: "workspace/repo_slug"),
        ],
        example: #"try await lane.bitbucketRelease(tag: "v\(version)", assets: ["dist/app.tar.gz"])"#,
        dryRun: "preflight only (credentials, repository, tag, files), then says what it would publish",
        rollback: "before the point of no return: deletes the downloads this run uploaded, while they are as it left them")
}
