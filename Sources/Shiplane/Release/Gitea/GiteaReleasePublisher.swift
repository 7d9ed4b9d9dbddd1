import Foundation

/// What to publish on Gitea: the tag, texts, flags and files.
struct GiteaReleaseRequest: Sendable {
    var tag: String
    var name: String?
    var notes: String?
    var prerelease = false
    var assets: [ReleaseAssetFile] = []
    /// Leave the release a draft when false.
    var publish = true
}

/// What a publish did.
struct GiteaPublishResult: Sendable, Equatable {
    var releaseID: Int
    var htmlURL: String?
    var createdRelease: Bool
    var uploaded: [String] = []
    var skipped: [String] = []
    var replaced: [String] = []
    var published: Bool
}

/// Creates or finishes a Gitea/Forgejo release as `githubRelease` does on GitHub: preflight, a
/// draft, the attachments, then published. A re-run finds the release by its tag; an attachment
/// holding the same bytes (Gitea gives no digest: it is downloaded and hashed when the size
/// matches) is kept, a differing one on a draft is uploaded under a temporary name, then the old
/// one deleted and the new one renamed — never deleted first.
struct GiteaReleasePublisher: Sendable {
    static let temporarySuffix = GitHubReleasePublisher.temporarySuffix

    var repository: GiteaRepository
    var token: String?
    var transport: HTTPTransport
    var version: String = "dev"

    /// Checks the token, repository access and the tag; every problem at once. The files and the
    /// names they share are `ForgeReleaseRun`'s to check, as on every forge.
    @discardableResult
    func preflight(_ request: GiteaReleaseRequest, dryRun: Bool = false, note: (String) -> Void = { _ in }) async throws -> GiteaClient {
        var problems: [any Error] = []
        let client = token.map { GiteaClient(repository: repository, token: $0, transport: transport, version: version) }
        if client == nil { problems.append(GiteaError.missingToken) }
        if let client {
            do {
                try await client.checkAccess()
                if try await client.release(forTag: request.tag) == nil, try await !client.tagExists(request.tag) {
                    if dryRun { note("the tag \(request.tag) is not on the Gitea server yet: the run must push it before the release") }
                    else { problems.append(GiteaError.tagMissing(tag: request.tag, repository: repository.description)) }
                }
            } catch {
                problems.append(error)
            }
        }
        if let client, problems.isEmpty { return client }
        throw ReleasePreflightError(underlyingErrors: problems, forge: "Gitea")
    }

    /// Publishes the release and returns what was done, through the life `ForgeReleaseRun` drives
    /// on every forge (`GiteaForge`).
    func publish(_ request: GiteaReleaseRequest, recording: some ReleaseEffectRecording) async throws -> GiteaPublishResult {
        let outcome = try await ForgeReleaseRun.publish(
            GiteaForge(publisher: self),
            ForgeReleaseRequest(tag: request.tag, name: request.name, notes: request.notes, prerelease: request.prerelease,
                                assets: request.assets.map(\.path), publish: request.publish),
            files: request.assets, recording: recording)
        let release = outcome.release.release
        return GiteaPublishResult(releaseID: release.id, htmlURL: release.htmlURL, createdRelease: outcome.release.created,
                                  uploaded: outcome.attached.uploaded, skipped: outcome.attached.unchanged, replaced: outcome.attached.replaced,
                                  published: !release.draft)
    }

    /// `existing` brought up to this request when it is a draft, or a new draft, written down first.
    /// With `adopt`, `existing` is the draft a fanned-out release's parts uploaded to (issue 42):
    /// it becomes this run's release and gets the release's tag; a rollback gives it back to the
    /// parts as they left it (their records name its attachments).
    func findOrCreateDraft(_ request: GiteaReleaseRequest, existing: GiteaRelease?, client: GiteaClient,
                           recording: some ReleaseEffectRecording, adopt: Bool = false) async throws -> (GiteaRelease, Bool) {
        let api = repository.apiURL, repositoryName = repository.description, tag = request.tag, name = request.name ?? tag
        if var existing {
            let adopted = adopt && existing.draft
            if adopted {
                let leftAs = PartsDraftLeftAs(tag: existing.tagName, name: existing.name ?? existing.tagName, body: existing.body ?? "")
                let effect = GiteaReleaseCreated(api: api, repository: repositoryName, id: existing.id, tag: tag, partsDraft: leftAs)
                recording.done(try recording.record(effect, "give the parts' draft release \(existing.id) back to the parts (\(existing.tagName))"), effect)
            }
            if existing.draft, adopted || existing.name != name || (existing.body ?? "") != (request.notes ?? "") || existing.prerelease != request.prerelease {
                existing = try await client.editRelease(id: existing.id, tag: existing.tagName == tag ? nil : tag, name: name,
                                                        body: request.notes ?? "", prerelease: request.prerelease)
            }
            return (existing, adopted)
        }
        let handle = try recording.record(GiteaReleaseCreated(api: api, repository: repositoryName, id: nil, tag: tag), "delete Gitea release \(tag)")
        let made: (release: GiteaRelease, created: Bool)
        do {
            made = try await client.createRelease(tag: tag, name: name, body: request.notes, draft: true, prerelease: request.prerelease)
        } catch let refused as GiteaError {
            recording.didNotHappen(handle, refused.message)
            throw refused
        }
        if made.created {
            recording.done(handle, GiteaReleaseCreated(api: api, repository: repositoryName, id: made.release.id, tag: tag))
        } else {
            recording.didNotHappen(handle, "a release for \(tag) already existed")
        }
        return (made.release, made.created)
    }

    /// Attaches the files: the same bytes kept, other bytes on a draft replaced (new one first),
    /// on a published release an error.
    func attach(_ assets: [ReleaseAssetFile], to release: GiteaRelease, tag: String, client: GiteaClient,
                recording: some ReleaseEffectRecording) async throws -> ForgeAttachOutcome {
        let api = repository.apiURL, repositoryName = repository.description
        var result = ForgeAttachOutcome()
        guard !assets.isEmpty else { return result }
        var attachments = try await client.attachments(releaseID: release.id)
        for asset in assets {
            let size = try HTTPTransport.regularFileSize(asset.path)
            let digest = try SHA256.hex(ofFile: asset.path)
            func holds(_ attachment: GiteaAttachment) async throws -> Bool {
                attachment.size == size ? try await client.digest(of: attachment) == digest : false
            }
            let current = attachments.first { $0.name == asset.name }
            if let current, try await holds(current) {
                result.unchanged.append(asset.name)
                continue
            }
            if let current, !release.draft {
                throw ShiplaneError(
                    "the published Gitea release \(tag) has \(asset.name) with other bytes than the file here (sha256:\(digest))",
                    suggestion: "build the same bytes again (Shiplane's archives are deterministic: check the inputs and SOURCE_DATE_EPOCH), or release a new version",
                    underlying: [ShiplaneError("attachment \(current.id): \(current.size) bytes")])
            }
            let uploadName = current == nil ? asset.name : asset.name + Self.temporarySuffix
            if current != nil, let stale = attachments.first(where: { $0.name == uploadName }) {
                try await client.deleteAttachment(releaseID: release.id, id: stale.id)
            }
            var effect = GiteaAttachmentUploaded(api: api, repository: repositoryName, releaseID: release.id, name: asset.name)
            let handle = try recording.record(effect, "delete \(asset.name) from Gitea release \(tag)")
            var stored: GiteaAttachment
            do {
                stored = try await client.uploadAttachment(releaseID: release.id, name: uploadName, path: asset.path)
            } catch HTTPTransportError.responseLost {
                attachments = try await client.attachments(releaseID: release.id)
                if let landed = attachments.last(where: { $0.name == uploadName }), try await holds(landed) {
                    stored = landed
                } else {
                    stored = try await client.uploadAttachment(releaseID: release.id, name: uploadName, path: asset.path)
                }
            } catch let refused as GiteaError {
                recording.didNotHappen(handle, refused.message)
                throw refused
            }
            if let current {
                try await client.deleteAttachment(releaseID: release.id, id: current.id)
                try await client.renameAttachment(releaseID: release.id, id: stored.id, to: asset.name)
                stored.name = asset.name
                result.replaced.append(asset.name)
            } else {
                result.uploaded.append(asset.name)
            }
            effect.id = stored.id
            recording.done(handle, effect)
            attachments.removeAll { $0.name == asset.name || $0.name == uploadName }
            attachments.append(stored)
        }
        return result
    }

    /// Publishes a draft, passing the run's point of no return right before.
    func publishDraft(_ release: GiteaRelease, tag: String, client: GiteaClient, recording: some ReleaseEffectRecording) async throws -> GiteaRelease {
        guard release.draft else { return release }
        _ = try recording.makingPublic("published the Gitea release \(tag) on \(repository.description)")
        return try await client.editRelease(id: release.id, draft: false)
    }
}
