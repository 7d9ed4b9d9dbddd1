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
    /// Set when the release is the parts' draft of a fanned-out release that this run (the
    /// fan-in) took over: how the parts left it, which the undo puts back instead of deleting it.
    var partsDraft: PartsDraftLeftAs? = nil

    var reach: EffectReach { .publication }

    /// Deletes the release; the parts' draft a fan-in took over is given back to the parts as
    /// they left it (still a draft: their records name its attachments); one gone or published
    /// since is left.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GiteaClient.forUndo(api: api, repository: repository, in: context, what: "the Gitea release \(tag)")
        if let id, let parts = partsDraft {
            guard let found = try await client.release(id: id) else { return }
            guard found.draft else {
                throw ShiplaneError("the parts' draft release \(id) was published since this run took it over; left as it is")
            }
            _ = try await client.editRelease(id: id, tag: found.tagName == parts.tag ? nil : parts.tag, name: parts.name, body: parts.body, prerelease: false)
            return
        }
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
