import Foundation

/// A file to attach to a release, and the name it gets there.
package struct ReleaseAssetFile: Sendable, Equatable {
    /// The file on disk.
    package var path: String
    /// The asset's name on the release.
    package var name: String
    /// The media type to upload it with; nil: guessed from the name.
    package var contentType: String?

    /// Creates an asset; the name defaults to the file's last path component.
    package init(path: String, name: String? = nil, contentType: String? = nil) {
        self.path = path
        self.name = name ?? URL(fileURLWithPath: path).lastPathComponent
        self.contentType = contentType
    }
}

/// What to publish: the tag, texts, flags and assets of a GitHub release.
package struct GitHubReleaseRequest: Sendable {
    /// The release's tag.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown.
    package var notes: String?
    /// True for a prerelease.
    package var prerelease: Bool
    /// Whether it becomes the latest release; nil: GitHub's default.
    package var makeLatest: GitHubMakeLatest?
    /// The branch or commit a new tag is created at; nil: GitHub's default (the default branch).
    package var targetCommitish: String?
    /// The files to attach.
    package var assets: [ReleaseAssetFile]
    /// Leave the release a draft when false.
    package var publish: Bool
    /// How many assets upload at once.
    package var uploadConcurrency: Int

    /// Creates a request for the release of `tag`.
    package init(
        tag: String, name: String? = nil, notes: String? = nil, prerelease: Bool = false,
        makeLatest: GitHubMakeLatest? = nil, targetCommitish: String? = nil, assets: [ReleaseAssetFile] = [],
        publish: Bool = true, uploadConcurrency: Int = 4
    ) {
        self.tag = tag
        self.name = name
        self.notes = notes
        self.prerelease = prerelease
        self.makeLatest = makeLatest
        self.targetCommitish = targetCommitish
        self.assets = assets
        self.publish = publish
        self.uploadConcurrency = uploadConcurrency
    }
}

/// What a publish did, so the caller can report it and register a rollback.
package struct GitHubPublishResult: Sendable, Equatable {
    /// The release's id.
    package var releaseID: Int
    /// The release's page, when GitHub gave it.
    package var htmlURL: String?
    /// True when this run created the release (a rollback should delete it); false when it reused one.
    package var createdRelease: Bool
    /// The assets uploaded under a name the release did not have.
    package var uploaded: [String]
    /// The assets left as they were: the release already held the same bytes.
    package var skipped: [String]
    /// The assets whose bytes changed, replaced by upload, delete and rename.
    package var replaced: [String]
    /// True when the release is public (published now or before).
    package var published: Bool
}

/// A publish that failed after a release was found or created; says which, for rollback.
package struct GitHubPublishError: ReportableError {
    /// The release's tag.
    package var tag: String
    /// The id of the release that was found or created.
    package var releaseID: Int
    /// True when this run created the release, so undoing the run means deleting it.
    package var createdRelease: Bool
    /// The error that stopped the publish.
    package var underlyingErrors: [any Error]

    /// Names the tag whose release failed.
    package var message: String { "publishing the GitHub release \(tag) failed" }
    /// The release's id and whether this run created it.
    package var info: [(key: String, value: String)] {
        [("release id", String(releaseID)), ("release created by this run", createdRelease ? "yes" : "no")]
    }
    /// Run again: the release is found and finished.
    package var suggestion: String? { "run again: the release is found and finished, uploaded assets are kept" }
}

/// Every problem found before publishing, reported together.
package struct ReleasePreflightError: ReportableError {
    /// Every problem found, each its own error.
    package var underlyingErrors: [any Error]
    /// The forge the release was for: GitHub, GitLab or Gitea.
    package var forge = "GitHub"
    /// Says how many problems stop the release.
    package var message: String {
        "the \(forge) release cannot be published: \(underlyingErrors.count) problem\(underlyingErrors.count == 1 ? "" : "s") found"
    }
}

/// Creates or finishes a GitHub release: preflight, find-or-create a draft, upload assets, publish.
///
/// Re-running is safe: an existing release is reused, an asset with the same name and size is
/// skipped, and a differing asset is replaced by uploading the new bytes under a temporary name,
/// then deleting the old asset, then renaming — never deleting first.
package struct GitHubReleasePublisher: Sendable {
    /// Appended to an asset's name while its new bytes upload, before the old asset is deleted.
    package static let temporarySuffix = ".shiplane-upload"

    /// The repository the release is for.
    package var repository: GitHubRepository
    /// The API token; nil or empty fails the preflight.
    package var token: String?
    /// The environment; only `GITHUB_API_URL` is read.
    package var environment: [String: String]
    /// Sends the requests, with retries and redaction.
    package var transport: HTTPTransport
    /// Shiplane's version, for the `User-Agent`.
    package var version: String

    /// Creates a publisher for `repository` with `token`.
    package init(repository: GitHubRepository, token: String?, environment: [String: String] = [:],
                transport: HTTPTransport, version: String = "dev") {
        self.repository = repository
        self.token = token
        self.environment = environment
        self.transport = transport
        self.version = version
    }

    /// The token from `GITHUB_TOKEN`, else `GH_TOKEN`, in the given environment.
    package static func token(from environment: [String: String]) -> String? {
        for key in ["GITHUB_TOKEN", "GH_TOKEN"] {
            if let value = environment[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return value }
        }
        return nil
    }

    // MARK: - Preflight

    /// Checks the token and repository access; reports every problem. The files and their names
    /// are `ForgeReleaseRun`'s to check, as on every forge. Sends no request when the token is missing.
    /// - Throws: `ReleasePreflightError` holding all problems.
    @discardableResult
    package func preflight(_ request: GitHubReleaseRequest) async throws -> GitHubClient {
        var problems: [any Error] = []
        var client: GitHubClient?
        do {
            client = try GitHubClient(repository: repository, token: token ?? "", environment: environment,
                                      transport: transport, version: version)
        } catch {
            problems.append(error)
        }
        if let client {
            do { try await client.checkAccess() } catch { problems.append(error) }
        }
        if let client, problems.isEmpty { return client }
        // Errors from the client are already redacted (the token is in its redactor).
        throw ReleasePreflightError(underlyingErrors: problems)
    }

    // MARK: - Publishing

    /// Publishes the release and returns what was done, through the life `ForgeReleaseRun` drives
    /// on every forge: preflight, `findOrCreateDraft`, `uploadAssets`, `publishDraft`.
    /// - Throws: `ReleasePreflightError` before any change; `GitHubPublishError` (with every upload failure) after.
    package func publish(_ request: GitHubReleaseRequest, recording: any ReleaseEffectRecording = NoEffectRecording()) async throws -> GitHubPublishResult {
        var forge = GitHubForge(publisher: self, uploadConcurrency: request.uploadConcurrency, latest: .fixed(request.makeLatest),
                                targetCommitish: request.targetCommitish)
        for asset in request.assets { forge.contentTypes[asset.name] = asset.contentType }
        let outcome = try await ForgeReleaseRun.publish(
            forge, ForgeReleaseRequest(tag: request.tag, name: request.name, notes: request.notes, prerelease: request.prerelease,
                                       assets: request.assets.map(\.path), publish: request.publish),
            files: request.assets, recording: recording)
        let release = outcome.release.release
        return GitHubPublishResult(
            releaseID: release.id, htmlURL: release.htmlURL, createdRelease: outcome.release.created, uploaded: outcome.attached.uploaded,
            skipped: outcome.attached.unchanged, replaced: outcome.attached.replaced, published: !release.draft)
    }

    /// The API base the release's effects name.
    var apiURL: String { environment["GITHUB_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? GitHubClient.defaultAPIURL }

    /// `existing` (an earlier run's draft gets this run's name, notes and flags), or a new draft.
    /// The release is written down before the create call (with no id yet) and given its id when
    /// GitHub answers, so a run killed in between still finds and deletes its draft.
    /// With `adopt`, `existing` is the draft a fanned-out release's parts uploaded to (issue 42):
    /// it becomes this run's release and gets the release's tag; a rollback gives it back to the
    /// parts as they left it (their records name its assets).
    func findOrCreateDraft(_ request: GitHubReleaseRequest, existing: GitHubRelease?, client: GitHubClient,
                           recording: any ReleaseEffectRecording, adopt: Bool = false) async throws -> (GitHubRelease, Bool) {
        if var existing {
            let adopted = adopt && existing.draft
            if adopted {
                let leftAs = PartsDraftLeftAs(tag: existing.tagName, name: existing.name ?? existing.tagName, body: existing.body ?? "")
                let effect = GitHubReleaseCreated(api: apiURL, repository: repository.description, id: existing.id, tag: request.tag, partsDraft: leftAs)
                let handle = try recording.record(effect, "give the parts' draft release \(existing.id) back to the parts (\(existing.tagName))")
                recording.done(handle, effect)
            }
            if existing.draft, adopted || existing.name != (request.name ?? request.tag) || existing.body != request.notes
                || existing.prerelease != request.prerelease {
                existing = try await client.updateDraft(
                    releaseID: existing.id, name: request.name ?? request.tag, body: request.notes, prerelease: request.prerelease,
                    tag: existing.tagName == request.tag ? nil : request.tag)
            }
            return (existing, adopted)
        }
        let effect = GitHubReleaseCreated(api: apiURL, repository: repository.description, id: nil, tag: request.tag)
        let handle = try recording.record(effect, "delete GitHub release \(request.tag)")
        let (release, created) = try await client.createRelease(
            tag: request.tag, name: request.name ?? request.tag, body: request.notes, draft: true,
            prerelease: request.prerelease, makeLatest: request.makeLatest, targetCommitish: request.targetCommitish)
        if created {
            recording.done(handle, GitHubReleaseCreated(api: apiURL, repository: repository.description, id: release.id, tag: request.tag))
        } else {
            recording.didNotHappen(handle, "a release for \(request.tag) already existed")
        }
        return (release, created)
    }

    /// Publishes a draft, passing the run's point of no return right before.
    func publishDraft(_ release: GitHubRelease, request: GitHubReleaseRequest, client: GitHubClient,
                      recording: any ReleaseEffectRecording) async throws -> GitHubRelease {
        guard release.draft else { return release }
        _ = try recording.makingPublic("published the GitHub release \(request.tag) on \(repository)")
        return try await client.publish(releaseID: release.id, makeLatest: request.makeLatest)
    }

    enum UploadOutcome: Sendable { case uploaded, skipped, replaced }

    func uploadAssets(_ request: GitHubReleaseRequest, release: GitHubRelease, client: GitHubClient) async throws -> [(String, UploadOutcome)] {
        guard !request.assets.isEmpty else { return [] }
        let existing = try await client.listAssets(releaseID: release.id)
        let outcomes = try await performConcurrently(request.assets, limit: request.uploadConcurrency, what: "asset uploads") { asset in
            do {
                return (asset.name, try await upload(asset, existing: existing, release: release, client: client))
            } catch {
                throw ShiplaneError("upload of asset \(asset.name) failed", info: [("file", asset.path)], underlying: [error])
            }
        }
        return outcomes
    }

    /// Uploads, and when GitHub says the name exists with the same size (an earlier attempt whose
    /// answer was lost) adopts that asset instead of failing.
    /// The same goes when the upload's answer was lost on the way (the request is not sent again
    /// blindly: the asset list says whether it landed).
    private func uploadOrAdopt(_ asset: ReleaseAssetFile, name: String, size: Int64, release: GitHubRelease, client: GitHubClient) async throws {
        do {
            _ = try await client.uploadAsset(uploadURL: release.uploadURL, file: asset.path, name: name, contentType: asset.contentType)
        } catch let error as GitHubError {
            // GitHub's description documents this 422 ("an asset with the same filename as another
            // uploaded asset") without a body: the asset list, not the body, says what is there.
            guard case .unexpectedStatus(_, 422, _, _) = error else { throw error }
            let current = try await client.listAssets(releaseID: release.id)
            guard try current.contains(where: { try $0.name == name && Self.holds($0, asset, size: size) }) else { throw error }
        } catch let error as HTTPTransportError {
            guard case .responseLost = error else { throw error }
            let current = try await client.listAssets(releaseID: release.id)
            if try current.contains(where: { try $0.name == name && Self.holds($0, asset, size: size) }) { return }
            if let partial = current.first(where: { $0.name == name }) { try await client.deleteAsset(id: partial.id) }
            _ = try await client.uploadAsset(uploadURL: release.uploadURL, file: asset.path, name: name, contentType: asset.contentType)
        }
    }

    /// Whether a release asset holds exactly the local file: complete, and the same content by
    /// GitHub's `digest`. Without a digest (older GitHub Enterprise servers) nothing is downloaded
    /// to compare: the asset counts as different and is replaced (safely, see `upload`).
    static func holds(_ remote: GitHubAsset, _ asset: ReleaseAssetFile, size: Int64) throws -> Bool {
        guard (remote.state ?? "uploaded") == "uploaded", remote.size == size, let digest = remote.digest else { return false }
        return digest.lowercased() == "sha256:" + (try SHA256.hex(ofFile: asset.path))
    }

    private func upload(_ asset: ReleaseAssetFile, existing: [GitHubAsset], release: GitHubRelease, client: GitHubClient) async throws -> UploadOutcome {
        let size = try HTTPTransport.regularFileSize(asset.path)
        let temporaryName = asset.name + Self.temporarySuffix
        guard let current = existing.first(where: { $0.name == asset.name }) else {
            // A replacement whose rename failed last time: it holds this file, so it takes the name.
            if let orphan = existing.first(where: { $0.name == temporaryName }), try Self.holds(orphan, asset, size: size) {
                _ = try await client.updateAsset(id: orphan.id, name: asset.name)
                return .uploaded
            }
            try await uploadOrAdopt(asset, name: asset.name, size: size, release: release, client: client)
            return .uploaded
        }
        if try Self.holds(current, asset, size: size) { return .skipped }
        if !release.draft, (current.state ?? "uploaded") == "uploaded", let published = current.digest {
            // People may already have downloaded what is published: a file built again that
            // differs is an error, never a silent replacement.
            throw ShiplaneError(
                "the published release \(release.tagName) has \(asset.name) with \(published.lowercased()), but the file here has sha256:\(try SHA256.hex(ofFile: asset.path))",
                suggestion: "build the same bytes again (Shiplane's archives are deterministic: check the inputs and SOURCE_DATE_EPOCH), or release a new version"
            )
        }
        if current.state != nil, current.state != "uploaded" {
            // An upload that never finished holds no usable bytes: nothing is lost by deleting it first.
            try await client.deleteAsset(id: current.id)
            try await uploadOrAdopt(asset, name: asset.name, size: size, release: release, client: client)
            return .uploaded
        }
        if let stale = existing.first(where: { $0.name == temporaryName }) {
            try await client.deleteAsset(id: stale.id)
        }
        try await uploadOrAdopt(asset, name: temporaryName, size: size, release: release, client: client)
        guard let fresh = try await client.listAssets(releaseID: release.id).first(where: { $0.name == temporaryName }) else {
            throw ShiplaneError("the uploaded replacement \(temporaryName) is missing from the release", suggestion: "run again")
        }
        try await client.deleteAsset(id: current.id)
        _ = try await client.updateAsset(id: fresh.id, name: asset.name)
        return .replaced
    }
}
