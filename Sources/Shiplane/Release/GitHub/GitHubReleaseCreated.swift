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

    /// Describes a release created.
    package init(api: String, repository: String, id: Int?, tag: String) {
        self.api = api
        self.repository = repository
        self.id = id
        self.tag = tag
    }

    /// Public once the run is past its point of no return.
    package var reach: EffectReach { .publication }

    /// Deletes the release; with no id (the answer never came), the draft found for the tag.
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
