import Foundation

/// A client for GitHub's releases REST API, for one repository and one token.
///
/// Sends `Authorization: Bearer`, `Accept: application/vnd.github+json`,
/// `X-GitHub-Api-Version: 2022-11-28` and `User-Agent: shiplane/<version>`. The API base comes from
/// `GITHUB_API_URL` in the given environment, else `https://api.github.com`. The token is added to
/// the transport's redactor so it never appears in errors or events.
package struct GitHubClient: Sendable {
    /// The API base used when `GITHUB_API_URL` is not set.
    package static let defaultAPIURL = "https://api.github.com"
    /// The REST API version sent in `X-GitHub-Api-Version`.
    package static let apiVersion = "2022-11-28"

    /// The repository the client works on.
    package let repository: GitHubRepository
    /// The API base, without a trailing slash.
    package let apiBaseURL: String
    /// The `User-Agent` sent: `shiplane/<version>`.
    package let userAgent: String
    /// Seconds allowed for an asset upload to get its response.
    package var uploadTimeout: Double = 600
    let transport: HTTPTransport
    private let token: String

    /// Creates a client; `environment` is consulted only for `GITHUB_API_URL`.
    /// - Throws: `GitHubError.missingToken` when the token is empty.
    package init(
        repository: GitHubRepository, token: String, environment: [String: String] = [:],
        transport: HTTPTransport, version: String = "dev"
    ) throws {
        guard !token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw GitHubError.missingToken(variable: "GITHUB_TOKEN")
        }
        var transport = transport
        transport.redactor = transport.redactor.adding([token])
        self.transport = transport
        self.token = token
        self.repository = repository
        var base = environment["GITHUB_API_URL"].map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if base.isEmpty { base = Self.defaultAPIURL }
        while base.hasSuffix("/") { base.removeLast() }
        self.apiBaseURL = base
        self.userAgent = "shiplane/\(version)"
    }

    /// Hides this client's token and other secrets in text.
    package var redactor: SecretRedactor { transport.redactor }

    private var repoPath: String {
        "/repos/\(URITemplate.percentEncode(repository.owner, allowReserved: false))/\(URITemplate.percentEncode(repository.name, allowReserved: false))"
    }

    // MARK: - Repository

    /// Checks that the repository exists and the token can see it.
    /// - Throws: `GitHubError.tokenRefused` (401), `.repositoryNotFound` (404), `.permissionDenied` (403).
    package func checkAccess() async throws {
        let response = try await send(.get, repoPath)
        guard response.isSuccess else { throw failure(response, operation: "read the repository") }
    }

    // MARK: - Releases

    /// The release for `tag`, including a draft with that tag, or nil when there is none.
    package func release(forTag tag: String) async throws -> GitHubRelease? {
        let response = try await send(.get, "\(repoPath)/releases/tags/\(URITemplate.percentEncode(tag, allowReserved: false))")
        if response.isSuccess { return try decode(GitHubRelease.self, response, operation: "get the release for \(tag)") }
        guard response.status == 404 else { throw failure(response, operation: "get the release for \(tag)") }
        // Drafts are not returned by the tags endpoint; look through the list.
        return try await listReleases().first { $0.tagName == tag }
    }

    /// The release with `id`, a draft included, or nil when there is none (deleted). Looked up in
    /// the list: GitHub's description of `GET …/releases/{release_id}` documents no 404.
    package func release(id: Int) async throws -> GitHubRelease? {
        try await listReleases().first { $0.id == id }
    }

    /// Every release, following `Link: rel="next"` (at most `maxPages` pages of 100).
    package func listReleases(maxPages: Int = 50) async throws -> [GitHubRelease] {
        try await paginate(GitHubRelease.self, firstURL: apiBaseURL + "\(repoPath)/releases?per_page=100", operation: "list releases", maxPages: maxPages)
    }

    /// Creates a release; when one with the tag already exists (422 `already_exists`) returns that one instead.
    /// - Returns: the release and whether this call created it.
    package func createRelease(
        tag: String, name: String?, body: String?, draft: Bool, prerelease: Bool, makeLatest: GitHubMakeLatest? = nil,
        targetCommitish: String? = nil
    ) async throws -> (release: GitHubRelease, created: Bool) {
        struct Payload: Encodable {
            var tag_name: String
            var target_commitish: String?
            var name: String?
            var body: String?
            var draft: Bool
            var prerelease: Bool
            var make_latest: String?
        }
        let payload = Payload(tag_name: tag, target_commitish: targetCommitish, name: name, body: body, draft: draft,
                              prerelease: prerelease, make_latest: draft ? nil : makeLatest?.rawValue)
        let request = try HTTPRequest.json(.post, url: apiBaseURL + "\(repoPath)/releases", headers: headers, value: payload)
        let response: HTTPResponse
        do {
            response = try await send(request)
        } catch HTTPTransportError.responseLost {
            // Sent, but the answer was lost: look before sending again. A release found for the
            // tag now was made by that request, so it counts as created by this run.
            if let landed = try await release(forTag: tag) { return (landed, true) }
            response = try await send(request)
        }
        if response.isSuccess {
            return (try decode(GitHubRelease.self, response, operation: "create the release \(tag)"), true)
        }
        if response.status == 422, errorCodes(in: response).contains("already_exists"),
           let existing = try await release(forTag: tag) {
            return (existing, false)
        }
        throw failure(response, operation: "create the release \(tag)")
    }

    /// Gives a draft new texts and flags (a draft left by an earlier run gets this run's).
    /// With `tag`, the draft also gets that tag (the parts' draft of a fanned-out release, made
    /// before the release's tag was known).
    package func updateDraft(releaseID: Int, name: String, body: String?, prerelease: Bool, tag: String? = nil) async throws -> GitHubRelease {
        struct Payload: Encodable { var tag_name: String?; var name: String; var body: String?; var prerelease: Bool }
        let request = try HTTPRequest.json(.patch, url: apiBaseURL + "\(repoPath)/releases/\(releaseID)", headers: headers,
                                           value: Payload(tag_name: tag, name: name, body: body, prerelease: prerelease))
        let response = try await send(request)
        guard response.isSuccess else { throw failure(response, operation: "update draft release \(releaseID)") }
        return try decode(GitHubRelease.self, response, operation: "update draft release \(releaseID)")
    }

    /// Publishes a draft (`draft: false`), optionally making it the latest release.
    package func publish(releaseID: Int, makeLatest: GitHubMakeLatest? = nil) async throws -> GitHubRelease {
        struct Payload: Encodable { var draft: Bool; var make_latest: String? }
        let request = try HTTPRequest.json(.patch, url: apiBaseURL + "\(repoPath)/releases/\(releaseID)", headers: headers,
                                           value: Payload(draft: false, make_latest: makeLatest?.rawValue))
        let response = try await send(request)
        guard response.isSuccess else { throw failure(response, operation: "publish release \(releaseID)") }
        return try decode(GitHubRelease.self, response, operation: "publish release \(releaseID)")
    }

    /// Deletes a release (not its tag). A release that is already gone counts as deleted.
    package func deleteRelease(id: Int) async throws {
        let response = try await send(.delete, "\(repoPath)/releases/\(id)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete release \(id)") }
    }

    // MARK: - Assets

    /// Every asset of a release, following pagination.
    package func listAssets(releaseID: Int, maxPages: Int = 50) async throws -> [GitHubAsset] {
        try await paginate(GitHubAsset.self, firstURL: apiBaseURL + "\(repoPath)/releases/\(releaseID)/assets?per_page=100",
                           operation: "list assets of release \(releaseID)", maxPages: maxPages)
    }

    /// Streams a file to the release's `upload_url` template (e.g. `…/assets{?name,label}`).
    package func uploadAsset(uploadURL: String, file: String, name: String, label: String? = nil, contentType: String? = nil) async throws -> GitHubAsset {
        var variables = ["name": name]
        if let label { variables["label"] = label }
        let url = URITemplate.expand(uploadURL, with: variables)
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw GitHubError.invalidUploadURL(redactor.redact(uploadURL)) }
        var request = HTTPRequest(
            method: .post, url: url,
            headers: headers + [("Content-Type", contentType ?? ContentType.forFileName(name))],
            body: .file(path: file), timeout: uploadTimeout)
        // An asset name is taken once: a repeat that finds it uploaded gets 422 already_exists,
        // which the publisher resolves from the asset list. So a lost answer may be retried.
        request.isRepeatable = true
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "upload asset \(name)") }
        return try decode(GitHubAsset.self, response, operation: "upload asset \(name)")
    }

    /// Downloads an asset's bytes into `path`: `GET /repos/{owner}/{repo}/releases/assets/{asset_id}`
    /// with `Accept: application/octet-stream`, which GitHub answers with the bytes (200) or with
    /// `302 Found` to its storage; the redirect is followed without the token (a storage address
    /// is signed, and refuses another credential). Returns false when GitHub has no such asset (404).
    /// - Throws: `GitHubError` for another answer, the transport's errors.
    func downloadAsset(id: Int, to path: String) async throws -> Bool {
        let api = apiBaseURL
        let credential = { (url: String) -> [(name: String, value: String)] in
            guard ReleaseDownload.sameServer(url, api) else { return [] }
            return [("Authorization", "Bearer \(token)"), ("Accept", "application/octet-stream"), ("X-GitHub-Api-Version", Self.apiVersion)]
        }
        let (response, _) = try await ReleaseDownload.fetch(apiBaseURL + "\(repoPath)/releases/assets/\(id)", to: path, credential: credential,
                                                            server: apiBaseURL, transport: transport, maxBytes: .max)
        if response.status == 404 { return false }
        guard response.isSuccess else { throw failure(response, operation: "download asset \(id)") }
        return true
    }

    /// Deletes an asset; one that is already gone counts as deleted.
    package func deleteAsset(id: Int) async throws {
        let response = try await send(.delete, "\(repoPath)/releases/assets/\(id)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete asset \(id)") }
    }

    /// Renames an asset.
    package func updateAsset(id: Int, name: String, label: String? = nil) async throws -> GitHubAsset {
        struct Payload: Encodable { var name: String; var label: String? }
        let request = try HTTPRequest.json(.patch, url: apiBaseURL + "\(repoPath)/releases/assets/\(id)", headers: headers,
                                           value: Payload(name: name, label: label))
        let response = try await send(request)
        guard response.isSuccess else { throw failure(response, operation: "rename asset \(id) to \(name)") }
        return try decode(GitHubAsset.self, response, operation: "rename asset \(id)")
    }

    // MARK: - Plumbing

    var headers: [(name: String, value: String)] {
        [("Authorization", "Bearer \(token)"), ("Accept", "application/vnd.github+json"),
         ("X-GitHub-Api-Version", Self.apiVersion), ("User-Agent", userAgent)]
    }

    private func send(_ method: HTTPRequestMethod, _ path: String) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: method, url: apiBaseURL + path, headers: headers))
    }

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transport.send(request)
    }

    private func paginate<Item: Decodable>(_ type: Item.Type, firstURL: String, operation: String, maxPages: Int) async throws -> [Item] {
        var items: [Item] = []
        var next: String? = firstURL
        var pages = 0
        while let url = next, pages < maxPages {
            pages += 1
            let response = try await send(HTTPRequest(method: .get, url: url, headers: headers))
            guard response.isSuccess else { throw failure(response, operation: operation) }
            items += try decode([Item].self, response, operation: operation)
            next = LinkHeader.url(for: "next", in: response.header("link"))
        }
        return items
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        guard response.mediaType?.contains("json") ?? false else { throw notJSON(response, operation: operation) }
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            if response.text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<") { throw notJSON(response, operation: operation) }
            throw GitHubError.unexpectedStatus(operation: operation, status: response.status,
                                               serverMessage: "the response could not be decoded",
                                               details: [redactor.redact(String(describing: error)), redactor.redact(response.bodySnippet())])
        }
    }

    private func notJSON(_ response: HTTPResponse, operation: String) -> GitHubError {
        .notJSON(operation: operation, status: response.status, contentType: response.header("content-type"),
                 bodySnippet: redactor.redact(response.bodySnippet(limit: 120)))
    }

    private func errorCodes(in response: HTTPResponse) -> [String] {
        (try? JSONDecoder().decode(GitHubErrorBody.self, from: Data(response.body)))?.errors?.compactMap(\.code) ?? []
    }

    /// Maps a failed response to the error that explains it.
    func failure(_ response: HTTPResponse, operation: String) -> GitHubError {
        let isJSON = response.mediaType?.contains("json") ?? false
        let body = isJSON ? try? JSONDecoder().decode(GitHubErrorBody.self, from: Data(response.body)) : nil
        if !isJSON, !response.body.isEmpty { return notJSON(response, operation: operation) }
        let serverMessage = body?.message.map { redactor.redact($0) }
        switch response.status {
        case 401:
            return .tokenRefused(repository: repository.description)
        case 403:
            return .permissionDenied(operation: operation, repository: repository.description,
                                     acceptedPermissions: response.header("x-accepted-github-permissions"), serverMessage: serverMessage)
        case 404 where operation == "read the repository":
            return .repositoryNotFound(repository: repository.description)
        default:
            let details = (body?.errors ?? []).map { item in
                redactor.redact([item.resource, item.field, item.code, item.message].compactMap { $0 }.joined(separator: " "))
            }
            return .unexpectedStatus(operation: operation, status: response.status, serverMessage: serverMessage, details: details)
        }
    }
}
