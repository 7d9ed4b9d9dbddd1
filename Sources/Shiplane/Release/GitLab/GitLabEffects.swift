import Foundation

extension GitLabClient {
    /// A client for an undo: the API and project from the record, the token from this process's environment.
    /// - Throws: when no token is set (the effect then stays, and the message says how to remove it).
    static func forUndo(api: String, project: String, in context: EffectContext, what: String) throws -> GitLabClient {
        guard let token = GitLabToken.from(context.environment.variables) else {
            throw ShiplaneError("\(what) stays: set GITLAB_TOKEN (or CI_JOB_TOKEN) so rollback can remove it, or remove it by hand")
        }
        return GitLabClient(project: GitLabProject(apiURL: api, id: project), token: token,
                            transport: context.transport(secrets: [token.value]), version: ShiplaneVersion.current)
    }
}

/// A file this run put in a GitLab project's generic package registry. Written down before the
/// upload with no ids: a run stopped while it uploaded finds the file by its name and digest.
struct GitLabPackageFileUploaded: Effect, Equatable {
    static let kind = "gitlab.package-file"
    var api: String
    var project: String
    var package: String
    var version: String
    var fileName: String
    var sha256: String
    var packageID: Int?
    var fileID: Int?

    /// Part of the release: past the point of no return it stays for `shiplane resume`.
    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GitLabClient.forUndo(api: api, project: project, in: context, what: "the package file \(fileName)")
        if let packageID, let fileID {
            try await client.deletePackageFile(packageID: packageID, fileID: fileID)
            return
        }
        // The answer never came: the file is this run's when it holds this run's bytes (a file
        // with these bytes already there was kept, not uploaded again).
        let files = try await client.packageFiles(package: package, version: version)
        guard let landed = files.last(where: { $0.fileName == fileName && $0.fileSHA256?.lowercased() == sha256 }) else { return }
        try await client.deletePackageFile(packageID: landed.packageID, fileID: landed.id)
    }
}

/// A GitLab release this run created for `tag`, with the name and description it was made with.
/// Its undo is a compare-and-swap: the release is deleted only while it still has them (a release
/// someone edited, or deleted and made again, since is left, and the rollback says so).
struct GitLabReleaseCreated: Effect, Equatable {
    static let kind = "gitlab.release"
    var api: String
    var project: String
    var tag: String
    /// The name and description the run made it with; nil in records written before they were kept.
    var name: String?
    var description: String?

    /// Public at once (GitLab has no drafts): it stays past the point of no return.
    var reach: EffectReach { .publication }

    /// Deletes the release (not the tag) while it is as this run made it; gone: nothing to do.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GitLabClient.forUndo(api: api, project: project, in: context, what: "the GitLab release \(tag)")
        guard let found = try await client.release(forTag: tag) else { return }
        if let name, found.name != name || (found.description ?? "") != (description ?? "") {
            throw ShiplaneError("the GitLab release \(tag) in \(project) was changed after this run made it (now named \(found.name ?? tag)): left as it is")
        }
        try await client.deleteRelease(tag: tag)
    }
}

/// A GitLab release whose name and description this run changed; undo puts the old ones back,
/// only while the release still has the ones this run set (compare and swap).
struct GitLabReleaseUpdated: Effect, Equatable {
    static let kind = "gitlab.release-update"
    var api: String
    var project: String
    var tag: String
    var previousName: String
    var previousDescription: String
    /// What this run set; nil in records written before they were kept.
    var newName: String?
    var newDescription: String?

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GitLabClient.forUndo(api: api, project: project, in: context, what: "the new text of the GitLab release \(tag)")
        guard let found = try await client.release(forTag: tag) else { return }
        if let newName, found.name != newName || (found.description ?? "") != (newDescription ?? "") {
            throw ShiplaneError("the GitLab release \(tag) in \(project) was edited again after this run changed it: its text is left as it is")
        }
        _ = try await client.updateRelease(tag: tag, name: previousName, description: previousDescription)
    }
}

/// A link (an asset) this run attached to a GitLab release.
struct GitLabReleaseLinkCreated: Effect, Equatable {
    static let kind = "gitlab.release-link"
    var api: String
    var project: String
    var tag: String
    var name: String
    var id: Int?

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try GitLabClient.forUndo(api: api, project: project, in: context, what: "the link \(name) of the GitLab release \(tag)")
        if let id {
            try await client.deleteLink(tag: tag, id: id)
            return
        }
        guard try await client.release(forTag: tag) != nil,
              let landed = try await client.links(tag: tag).first(where: { $0.name == name }) else { return }
        try await client.deleteLink(tag: tag, id: landed.id)
    }
}
