import Foundation

extension GiteaClient {
    /// A client for an undo: the API and repository from the record, the token from this process's environment.
    static func forUndo(api: String, repository: String, in context: EffectContext, what: String) throws -> GiteaClient {
        guard let token = token(from: context.environment.variables) else {
            throw ShiplaneError("\(what) stays: set GITEA_TOKEN (or FORGEJO_TOKEN) so rollback can remove it, or remove it by hand")
        }
        let parts = repository.split(separator: "/").map(String.init)
        return GiteaClient(repository: GiteaRepository(apiURL: api, owner: parts.first ?? "", name: parts.last ?? ""), token: token,
                           transport: context.transport(secrets: [token]), version: ShiplaneVersion.current)
    }
}

/// A Gitea release this run created (as a draft). Written down before the create call with `id`
/// nil: a run killed before the answer finds its draft again by the tag.
struct GiteaReleaseCreated: Effect, Equatable {
    static let kind = "gitea.release"
    var api: String
    var repository: String
    var id: Int?
    var tag: String

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GiteaClient.forUndo(api: api, repository: repository, in: context, what: "the Gitea release \(tag)")
        if let id {
            try await client.deleteRelease(id: id)
            return
        }
        guard let found = try await client.release(forTag: tag) else { return }
        guard found.draft else {
            throw ShiplaneError("the Gitea release \(tag) is published and was not made by this run's finished steps; left as it is")
        }
        try await client.deleteRelease(id: found.id)
    }
}

/// A file this run attached to a Gitea release.
struct GiteaAttachmentUploaded: Effect, Equatable {
    static let kind = "gitea.attachment"
    var api: String
    var repository: String
    var releaseID: Int
    var name: String
    var id: Int?

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GiteaClient.forUndo(api: api, repository: repository, in: context, what: "the attachment \(name)")
        if let id {
            try await client.deleteAttachment(releaseID: releaseID, id: id)
            return
        }
        let response = try? await client.attachments(releaseID: releaseID)
        guard let landed = response?.last(where: { $0.name == name }) else { return }
        try await client.deleteAttachment(releaseID: releaseID, id: landed.id)
    }
}
