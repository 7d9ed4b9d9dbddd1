import Foundation

extension ForgeKind {
    /// Bitbucket Cloud.
    package static let bitbucket = ForgeKind("bitbucket")
}

extension ForgeTarget {
    /// Bitbucket Cloud; `repository` is `workspace/repo_slug` (nil: `BITBUCKET_REPO_FULL_NAME`,
    /// else the origin's path).
    public static func bitbucket(repository: String? = nil) -> ForgeTarget { ForgeTarget(kind: .bitbucket, repository: repository) }
}

/// Bitbucket Cloud behind the `Forge` contract. Bitbucket has no release object: a release is its
/// tag (found with `refs/tags/{name}`, which must have been pushed) and the repository's
/// downloads. There are no drafts and no digests: a download of the same name and size is
/// fetched and hashed; the same bytes are kept, other bytes are an error (a download is public
/// the moment it is up, so nothing is replaced), a missing one is uploaded (`files` in a
/// multipart POST). `publish` passes the run's point of no return once every file is up.
struct BitbucketForge: Forge {
    static let kind = ForgeKind.bitbucket
    static let displayName = "Bitbucket"
    static let publicHosts = ["bitbucket.org": "bitbucket.org", "www.bitbucket.org": "bitbucket.org", "altssh.bitbucket.org": "bitbucket.org"]
    static var action: any DocumentedAction.Type { PublishBitbucketRelease.self }
    static var effects: [any Effect.Type] { [BitbucketDownloadUploaded.self] }

    /// Bitbucket Pipelines (`BITBUCKET_BUILD_NUMBER`).
    static func recognise(ci environment: [String: String]) -> ForgeCISignal? {
        (environment["BITBUCKET_BUILD_NUMBER"] ?? "").isEmpty ? nil : ForgeCISignal(variable: "BITBUCKET_BUILD_NUMBER")
    }

    static func isRepositoryPath(_ components: Int) -> Bool { components == 2 }

    /// Bitbucket's pages: `/commits/<id>`, `/branches/compare/<head>%0D<base>`, `/issues/<n>`, `/src/<tag>`.
    static func url(of link: ForgeLink, repositoryURL: String) -> String {
        switch link {
        case .commit(let id): "\(repositoryURL)/commits/\(RemoteLinks.percentEncoded(id))"
        case let .compare(base, head): "\(repositoryURL)/branches/compare/\(RemoteLinks.percentEncoded(head))%0D\(RemoteLinks.percentEncoded(base))"
        case .issue(let number): "\(repositoryURL)/issues/\(number)"
        case .tag(let tag): "\(repositoryURL)/src/\(RemoteLinks.percentEncoded(tag))"
        }
    }

    static func releaseStep(_ request: ForgeReleaseRequest, target: ForgeTarget) -> any ForgeReleaseStep {
        PublishBitbucketRelease(tag: request.tag, notes: request.notes, assets: request.assets, repository: target.repository, server: target.server)
    }

    /// The release: its tag, and the downloads as listed when the files were attached.
    struct Release: Sendable {
        var tag: BitbucketTag
    }

    let repository: BitbucketRepository
    let credentials: BitbucketCredentials?
    let transport: HTTPTransport

    static func connect(_ target: ForgeTarget, origin: String?, in step: StepContext) throws -> BitbucketForge {
        let variables = step.lane.environment.variables
        return BitbucketForge(
            repository: try BitbucketRepository.locate(repository: target.repository, server: target.server, environment: variables, originURL: origin),
            credentials: BitbucketCredentials.from(variables), transport: step.httpTransport())
    }

    var place: String { "on Bitbucket \(repository)" }

    private func client() throws -> BitbucketClient {
        guard let credentials else { throw BitbucketError.missingCredentials }
        return BitbucketClient(repository: repository, credentials: credentials, transport: transport, version: ShiplaneVersion.current)
    }

    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws {
        let client = try client()
        try await client.checkAccess()
        if try await client.tag(request.tag) == nil {
            if dryRun { note("the tag \(request.tag) is not on Bitbucket yet: the run must push it before the release") }
            else { throw BitbucketError.tagMissing(tag: request.tag, repository: repository.description) }
        }
        if request.prerelease { note("Bitbucket has no prerelease flag: \(request.tag) is released as usual") }
    }

    func findRelease(tag: String) async throws -> Release? { try await client().tag(tag).map { Release(tag: $0) } }

    /// Bitbucket has no drafts: the release is the pushed tag.
    func createDraft(_ request: ForgeReleaseRequest, existing: Release?, recording: any ReleaseEffectRecording) async throws -> Release {
        guard let existing else { throw BitbucketError.tagMissing(tag: request.tag, repository: repository.description) }
        return existing
    }

    func attach(_ artifacts: [Artifact], to release: Release, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (Release, ForgeAttachOutcome) {
        var outcome = ForgeAttachOutcome()
        guard !artifacts.isEmpty else { return (release, outcome) }
        let client = try client()
        var downloads = try await client.downloads()
        for artifact in artifacts {
            let size = try HTTPTransport.regularFileSize(artifact.path)
            if let current = downloads.first(where: { $0.name == artifact.name }) {
                let digest = current.size == size ? try await client.digest(of: current) : nil
                if digest == artifact.sha256 {
                    outcome.unchanged.append(artifact.name)
                    continue
                }
                // A download is public the moment it is up: people may have it already.
                throw ShiplaneError(
                    "Bitbucket's download \(artifact.name) in \(repository) holds other bytes than the file here (sha256:\(artifact.sha256))",
                    suggestion: "build the same bytes again (Shiplane's archives are deterministic: check the inputs and SOURCE_DATE_EPOCH), or release a new version",
                    underlying: [ShiplaneError("the download: \(current.size) bytes, uploaded \(current.createdOn ?? "at an unknown time")")])
            }
            var effect = BitbucketDownloadUploaded(api: repository.apiURL, repository: repository.description, name: artifact.name, size: size,
                                                   sha256: artifact.sha256)
            let handle = try recording.record(effect, "delete the download \(artifact.name) from Bitbucket \(repository)")
            do {
                try await client.upload(name: artifact.name, path: artifact.path)
            } catch HTTPTransportError.responseLost {
                // Sent, answer lost: the list says whether it landed; a second upload of the same name replaces it.
                let landed = try await client.downloads().first { $0.name == artifact.name }
                if try await landed.asyncMap({ $0.size == size ? try await client.digest(of: $0) : nil }) != artifact.sha256 {
                    try await client.upload(name: artifact.name, path: artifact.path)
                }
            } catch let refused as BitbucketError {
                recording.didNotHappen(handle, refused.message)
                throw refused
            }
            downloads = try await client.downloads()
            effect.createdOn = downloads.first { $0.name == artifact.name }?.createdOn
            recording.done(handle, effect)
            outcome.uploaded.append(artifact.name)
        }
        return (release, outcome)
    }

    /// Nothing to send (the tag is public since it was pushed, each download since it was up): the
    /// run's point of no return passes here, once every file is up, so a failure in a later step
    /// leaves a complete release.
    func publish(_ release: Release, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> Release {
        _ = try recording.makingPublic("published the downloads of \(request.tag) on Bitbucket \(repository)")
        return release
    }

    func webURL(of release: Release) -> String? { repository.downloadsPage }
}

extension Optional {
    /// The value mapped by an async transform, or nil.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
