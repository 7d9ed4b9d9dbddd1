import Foundation

/// What to publish on GitLab: the tag, texts, milestones, and the files for the package registry.
struct GitLabReleaseRequest: Sendable {
    var tag: String
    var name: String?
    var notes: String?
    var assets: [ReleaseAssetFile] = []
    var milestones: [String] = []
    /// The generic package the files go to; its version is `packageVersion`.
    var packageName: String
    var packageVersion: String
    /// `link_type` of each release link: other, runbook, image or package.
    var linkType: String = "package"
}

/// What a publish did.
struct GitLabPublishResult: Sendable, Equatable {
    var webURL: String?
    var createdRelease: Bool
    var uploaded: [String] = []
    var skipped: [String] = []
    var linked: [String] = []
}

/// Creates or finishes a GitLab release: preflight, package files uploaded, then the release made
/// with its links in one call (GitLab has no drafts: creating it publishes it).
///
/// A re-run finds the release by its tag and the package files by name and `file_sha256`: files
/// that hold the same bytes are kept, missing ones uploaded, missing links attached, so a release
/// cut short is finished, never made twice. A file whose bytes differ from what a published
/// release links to is an error, never a silent replacement.
struct GitLabReleasePublisher: Sendable {
    /// The characters GitLab allows in a generic package's name and file names.
    static let allowedNameCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+")
    static let linkTypes = ["other", "runbook", "image", "package"]

    var project: GitLabProject
    var token: GitLabToken?
    var transport: HTTPTransport
    var version: String = "dev"

    // MARK: - Preflight

    /// Checks everything GitLab asks before any change and reports every problem at once: the
    /// token, file names GitLab accepts, the package name and version, the link type, access to
    /// the project, the tag on GitLab (in a dry run a missing tag is only noted: the push before
    /// the release would make it) and the milestones. The files themselves and names two of them
    /// share are `ForgeReleaseRun`'s to check, as on every forge.
    /// - Throws: `ReleasePreflightError` holding all problems.
    @discardableResult
    func preflight(_ request: GitLabReleaseRequest, dryRun: Bool = false, note: (String) -> Void = { _ in }) async throws -> GitLabClient {
        var problems: [any Error] = []
        let client = token.map { GitLabClient(project: project, token: $0, transport: transport, version: version) }
        if client == nil { problems.append(GitLabError.missingToken) }
        for asset in request.assets {
            if !Self.isValidName(asset.name) {
                problems.append(ShiplaneError("GitLab's package registry does not take the file name \(asset.name)",
                                              info: [("file", asset.path)],
                                              suggestion: "name it with letters, digits, `.`, `_`, `-` and `+` only"))
            }
        }
        if !request.assets.isEmpty {
            if !Self.isValidName(request.packageName) {
                problems.append(ShiplaneError("\(request.packageName) is not a valid GitLab generic package name",
                                              suggestion: "pass packageName: with letters, digits, `.`, `_`, `-` and `+` only"))
            }
            if !Self.isValidName(request.packageVersion) {
                problems.append(ShiplaneError("\(request.packageVersion) is not a valid GitLab generic package version",
                                              suggestion: "pass packageVersion: with letters, digits, `.`, `_`, `-` and `+` only"))
            }
        }
        if !Self.linkTypes.contains(request.linkType) {
            problems.append(ShiplaneError("\(request.linkType) is not a GitLab release link type",
                                          suggestion: "use one of \(Self.linkTypes.joined(separator: ", "))"))
        }
        if let client {
            do {
                try await client.checkAccess()
                if try await client.release(forTag: request.tag) == nil {
                    switch try await client.tagExists(request.tag) {
                    case false?:
                        if dryRun { note("the tag \(request.tag) is not on GitLab yet: the run must push it before the release") }
                        else { problems.append(GitLabError.tagMissing(tag: request.tag, project: project.description)) }
                    case true?, nil:
                        break
                    }
                }
                for title in request.milestones {
                    if try await !client.milestoneExists(title) {
                        problems.append(GitLabError.milestoneMissing(title: title, project: project.description))
                    }
                }
            } catch {
                problems.append(error)
            }
        }
        if let client, problems.isEmpty { return client }
        throw ReleasePreflightError(underlyingErrors: problems, forge: "GitLab")
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("..") && name.unicodeScalars.allSatisfy { allowedNameCharacters.contains($0) }
    }

    // MARK: - Publishing

    /// Publishes the release and returns what was done, through the life `ForgeReleaseRun` drives
    /// on every forge (`GitLabForge`: the files in `attach`, the release in `publish`).
    /// - Throws: `ReleasePreflightError` before any change; the first failure after.
    func publish(_ request: GitLabReleaseRequest, recording: some ReleaseEffectRecording) async throws -> GitLabPublishResult {
        let forge = GitLabForge(publisher: self, packageName: request.packageName, milestones: request.milestones, linkType: request.linkType)
        let outcome = try await ForgeReleaseRun.publish(
            forge, ForgeReleaseRequest(tag: request.tag, name: request.name, notes: request.notes, assets: request.assets.map(\.path)),
            files: request.assets, recording: recording)
        return outcome.release.result
    }

    /// Uploads the files to the generic package registry (GitLab has no drafts: these come before
    /// the release); returns the release links that point at them.
    func uploadFiles(_ request: GitLabReleaseRequest, existing: GitLabRelease?, client: GitLabClient, recording: some ReleaseEffectRecording,
                     result: inout GitLabPublishResult) async throws -> [GitLabClient.LinkRequest] {
        let api = project.apiURL, projectID = project.id, tag = request.tag
        let publishedLinks = Set((existing?.assets?.links ?? []).map(\.name))
        var links: [GitLabClient.LinkRequest] = []
        var files = request.assets.isEmpty ? [] : try await client.packageFiles(package: request.packageName, version: request.packageVersion)
        // GitLab asks for one upload at a time to a package name and version.
        for asset in request.assets {
            let digest = try SHA256.hex(ofFile: asset.path)
            links.append(.init(name: asset.name, url: client.packageFileURL(package: request.packageName, version: request.packageVersion, fileName: asset.name),
                               direct_asset_path: "/" + asset.name, link_type: request.linkType))
            let newest = files.last { $0.fileName == asset.name }
            if let newest, newest.fileSHA256?.lowercased() == digest {
                result.skipped.append(asset.name)
                continue
            }
            if let newest, publishedLinks.contains(asset.name) {
                // People may already have downloaded what the published release links to.
                throw ShiplaneError(
                    "the published GitLab release \(tag) links \(asset.name) with sha256:\(newest.fileSHA256 ?? "unknown"), but the file here has sha256:\(digest)",
                    suggestion: "build the same bytes again (Shiplane's archives are deterministic: check the inputs and SOURCE_DATE_EPOCH), or release a new version")
            }
            var effect = GitLabPackageFileUploaded(api: api, project: projectID, package: request.packageName, version: request.packageVersion,
                                                   fileName: asset.name, sha256: digest)
            let handle = try recording.record(effect, "delete \(asset.name) from GitLab's package registry")
            let stored: GitLabPackageFile
            do {
                stored = try await client.uploadPackageFile(package: request.packageName, version: request.packageVersion,
                                                            fileName: asset.name, path: asset.path)
            } catch HTTPTransportError.responseLost {
                // Sent, answer lost: the package's files say whether it landed; send again only if not.
                files = try await client.packageFiles(package: request.packageName, version: request.packageVersion)
                if let landed = files.last(where: { $0.fileName == asset.name && $0.fileSHA256?.lowercased() == digest }) {
                    stored = landed
                } else {
                    stored = try await client.uploadPackageFile(package: request.packageName, version: request.packageVersion,
                                                                fileName: asset.name, path: asset.path)
                }
            } catch let refused as GitLabError {
                recording.didNotHappen(handle, refused.message)
                throw refused
            }
            effect.packageID = stored.packageID
            effect.fileID = stored.id
            recording.done(handle, effect)
            files.append(stored)
            result.uploaded.append(asset.name)
        }
        return links
    }

    /// Creates the release with its links in one call (the point of no return passes right
    /// before), or brings the one that exists up to this run's texts and links.
    func createOrFinish(_ request: GitLabReleaseRequest, existing: GitLabRelease?, links: [GitLabClient.LinkRequest], client: GitLabClient,
                        recording: some ReleaseEffectRecording, result: inout GitLabPublishResult) async throws {
        let api = project.apiURL, projectID = project.id, tag = request.tag
        var existing = existing
        let name = request.name ?? tag
        if existing == nil {
            let passedHere = try recording.makingPublic("published the GitLab release \(tag) in \(projectID)")
            let effect = GitLabReleaseCreated(api: api, project: projectID, tag: tag, name: name, description: request.notes ?? "")
            let handle = try recording.record(effect, "delete GitLab release \(tag)")
            do {
                let (release, created) = try await client.createRelease(tag: tag, name: name, description: request.notes,
                                                                        milestones: request.milestones, links: links)
                if created {
                    recording.done(handle, effect)
                    result.createdRelease = true
                    result.linked = links.map(\.name)
                    result.webURL = release.links?.selfURL
                } else {
                    recording.didNotHappen(handle, "a release for \(tag) already existed")
                    existing = release
                }
            } catch let refused as GitLabError {
                // GitLab answered no: nothing became public.
                recording.didNotHappen(handle, refused.message)
                if passedHere { try recording.notPublicAfterAll() }
                throw refused
            }
        }
        if let existing {
            result.webURL = existing.links?.selfURL ?? result.webURL
            try await finish(existing, name: name, request: request, links: links, client: client, recording: recording, result: &result)
        }
    }

    /// Brings a release that exists up to this run's texts and links.
    private func finish(_ release: GitLabRelease, name: String, request: GitLabReleaseRequest, links: [GitLabClient.LinkRequest],
                        client: GitLabClient, recording: some ReleaseEffectRecording, result: inout GitLabPublishResult) async throws {
        let api = project.apiURL, projectID = project.id, tag = request.tag
        if release.name != name || (release.description ?? "") != (request.notes ?? "") {
            _ = try recording.makingPublic("updated the GitLab release \(tag) in \(projectID)")
            let effect = GitLabReleaseUpdated(api: api, project: projectID, tag: tag, previousName: release.name ?? tag,
                                              previousDescription: release.description ?? "", newName: name, newDescription: request.notes ?? "")
            let handle = try recording.record(effect, "put back the name and notes of GitLab release \(tag)")
            _ = try await client.updateRelease(tag: tag, name: name, description: request.notes)
            recording.done(handle, effect)
        }
        guard !links.isEmpty else { return }
        let present = Set(try await client.links(tag: tag).map(\.name))
        for link in links where !present.contains(link.name) {
            _ = try recording.makingPublic("attached assets to the GitLab release \(tag) in \(projectID)")
            var effect = GitLabReleaseLinkCreated(api: api, project: projectID, tag: tag, name: link.name)
            let handle = try recording.record(effect, "remove \(link.name) from GitLab release \(tag)")
            let made = try await client.createLink(tag: tag, link)
            effect.id = made.id
            recording.done(handle, effect)
            result.linked.append(link.name)
        }
    }
}
