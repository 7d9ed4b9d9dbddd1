import Foundation

/// A GitHub release this run created (`api`: the API base, `repository`: owner/name). Written down
/// before the create call with `id` nil: a run killed before the answer came leaves a draft that is
/// found again by its tag.
package struct GitHubReleaseCreated: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "github.release"
    /// The API base URL.
    package var api: String
    /// The repository, `owner/name`.
    package var repository: String
    /// The release's id, once GitHub answered.
    package var id: Int?
    /// The release's tag.
    package var tag: String
    /// Set when the release is the parts' draft of a fanned-out release that this run (the
    /// fan-in) took over: how the parts left it, which its undo puts back instead of deleting it.
    package var partsDraft: PartsDraftLeftAs?

    /// Describes a release created (`partsDraft`: the parts' draft taken over, as they left it).
    package init(api: String, repository: String, id: Int?, tag: String, partsDraft: PartsDraftLeftAs? = nil) {
        self.api = api
        self.repository = repository
        self.id = id
        self.tag = tag
        self.partsDraft = partsDraft
    }

    /// Public once the run is past its point of no return.
    package var reach: EffectReach { .publication }

    /// Deletes the release; with no id (the answer never came), the draft found for the tag. The
    /// parts' draft a fan-in took over is given back to the parts as they left it (still a draft:
    /// their records name its assets), not deleted; one gone or published since is left.
    /// - Throws: when no token is set, or GitHub refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let variables = context.environment.variables.merging(["GITHUB_API_URL": api]) { $1 }
        guard let token = GitHubReleasePublisher.token(from: variables) else {
            throw ShiplaneError("the GitHub release \(tag) stays: set GITHUB_TOKEN (or GH_TOKEN) so rollback can delete it, or delete it by hand")
        }
        let client = try GitHubClient(
            repository: try GitHubRepository(remoteURL: repository), token: token, environment: variables,
            transport: context.transport(secrets: [token]), version: ShiplaneVersion.current
        )
        if let id, let parts = partsDraft {
            guard let found = try await client.release(id: id) else { return }
            guard found.draft else {
                throw ShiplaneError("the parts' draft release \(id) was published since this run took it over; left as it is")
            }
            _ = try await client.updateDraft(releaseID: id, name: parts.name, body: parts.body, prerelease: false,
                                             tag: found.tagName == parts.tag ? nil : parts.tag)
            return
        }
        if let id {
            try await client.deleteRelease(id: id)
            return
        }
        // The run was stopped while it asked GitHub to create the draft: whether it exists is
        // only known by looking. Only a draft is deleted; a published release is someone's.
        guard let found = try await client.release(forTag: tag) else { return }
        guard found.draft else {
            throw ShiplaneError("the GitHub release \(tag) is published and was not made by this run's finished steps; left as it is")
        }
        try await client.deleteRelease(id: found.id)
    }
}
