import Foundation

/// A client for the Gitea/Forgejo REST API (v1) parts a release needs, for one repository and one
/// token (sent as `Authorization: token …`, and added to the transport's redactor).
struct GiteaClient: Sendable {
    let repository: GiteaRepository
    let transport: HTTPTransport
    private let token: String
    let userAgent: String

    init(repository: GiteaRepository, token: String, transport: HTTPTransport, version: String = "dev") {
        var transport = transport
        transport.redactor = transport.redactor.adding([token])
        self.transport = transport
        self.token = token
        self.repository = repository
        self.userAgent = "shiplane/\(version)"
    }

    /// `GITEA_TOKEN`, else `FORGEJO_TOKEN`, else (under Gitea or Forgejo Actions) `GITHUB_TOKEN`.
    static func token(from environment: [String: String]) -> String? {
        let inActions = environment["GITEA_ACTIONS"] == "true" || environment["FORGEJO_ACTIONS"] == "true"
        for name in ["GITEA_TOKEN", "FORGEJO_TOKEN"] + (inActions ? ["GITHUB_TOKEN"] : []) {
            if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return value }
        }
        return nil
    }

    var redactor: SecretRedactor { transport.redactor }
    private var repoPath: String {
        "\(repository.apiURL)/repos/\(segment(repository.owner))/\(segment(repository.name))"
    }
    private func segment(_ text: String) -> String { URITemplate.percentEncode(text, allowReserved: false) }

    // MARK: - Repository and tags

    func checkAccess() async throws {
        let response = try await send(.get, repoPath)
        guard response.isSuccess else { throw failure(response, operation: "read the repository", repositoryLevel: true) }
    }

    func tagExists(_ tag: String) async throws -> Bool {
        let response = try await send(.get, "\(repoPath)/tags/\(segment(tag))")
        if response.isSuccess { return true }
        if response.status == 404 { return false }
        throw failure(response, operation: "read the tag \(tag)")
    }

    // MARK: - Releases

    /// The release for `tag`, a draft included (the by-tag endpoint leaves drafts out).
    func release(forTag tag: String) async throws -> GiteaRelease? {
        let response = try await send(.get, "\(repoPath)/releases/tags/\(segment(tag))")
        if response.isSuccess { return try decode(GiteaRelease.self, response, operation: "get the release \(tag)") }
        guard response.status == 404 else { throw failure(response, operation: "get the release \(tag)") }
        var page = 1
        while page <= 50 {
            let list = try await send(.get, "\(repoPath)/releases?draft=true&limit=50&page=\(page)")
            guard list.isSuccess else { throw failure(list, operation: "list releases") }
            let releases = try decode([GiteaRelease].self, list, operation: "list releases")
            if let found = releases.first(where: { $0.tagName == tag }) { return found }
            if releases.count < 50 { break }
            page += 1
        }
        return nil
    }

    /// Every release, drafts included (which a token with write access sees), newest first.
    func listReleases() async throws -> [GiteaRelease] {
        var all: [GiteaRelease] = []
        for page in 1...50 {
            let list = try await send(.get, "\(repoPath)/releases?limit=50&page=\(page)")
            guard list.isSuccess else { throw failure(list, operation: "list releases") }
            let releases = try decode([GiteaRelease].self, list, operation: "list releases")
            all += releases
            if releases.count < 50 { break }
        }
        return all
    }

    /// The release `id`, a draft included; nil when there is none.
    func release(id: Int) async throws -> GiteaRelease? {
        let response = try await send(.get, "\(repoPath)/releases/\(id)")
        if response.isSuccess { return try decode(GiteaRelease.self, response, operation: "get release \(id)") }
        guard response.status == 404 else { throw failure(response, operation: "get release \(id)") }
        return nil
    }

    private struct ReleaseOption: Encodable {
        var tag_name: String?
        var name: String?
        var body: String?
        var draft: Bool?
        var prerelease: Bool?
    }

    /// Creates a release; one that exists for the tag (409) is returned instead. A lost answer is
    /// resolved by looking, never by sending twice.
    func createRelease(tag: String, name: String, body: String?, draft: Bool, prerelease: Bool) async throws -> (release: GiteaRelease, created: Bool) {
        let request = try HTTPRequest.json(.post, url: "\(repoPath)/releases", headers: headers,
                                           value: ReleaseOption(tag_name: tag, name: name, body: body ?? "", draft: draft, prerelease: prerelease))
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch HTTPTransportError.responseLost {
            if let landed = try await release(forTag: tag) { return (landed, true) }
            response = try await transport.send(request)
        }
        if response.isSuccess { return (try decode(GiteaRelease.self, response, operation: "create the release \(tag)"), true) }
        if response.status == 409, let existing = try await release(forTag: tag) { return (existing, false) }
        throw failure(response, operation: "create the release \(tag)")
    }

    func editRelease(id: Int, tag: String? = nil, name: String? = nil, body: String? = nil, draft: Bool? = nil, prerelease: Bool? = nil) async throws -> GiteaRelease {
        let request = try HTTPRequest.json(.patch, url: "\(repoPath)/releases/\(id)", headers: headers,
                                           value: ReleaseOption(tag_name: tag, name: name, body: body, draft: draft, prerelease: prerelease))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "edit release \(id)") }
        return try decode(GiteaRelease.self, response, operation: "edit release \(id)")
    }

    func deleteRelease(id: Int) async throws {
        let response = try await send(.delete, "\(repoPath)/releases/\(id)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete release \(id)") }
    }

    // MARK: - Attachments

    func attachments(releaseID: Int) async throws -> [GiteaAttachment] {
        let response = try await send(.get, "\(repoPath)/releases/\(releaseID)/assets")
        guard response.isSuccess else { throw failure(response, operation: "list the attachments of release \(releaseID)") }
        return try decode([GiteaAttachment].self, response, operation: "list attachments")
    }

    /// Streams a file as the `attachment` part of a `multipart/form-data` body.
    func uploadAttachment(releaseID: Int, name: String, path: String) async throws -> GiteaAttachment {
        let boundary = "shiplane-" + UUID().uuidString
        let quoted = name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
        let prefix = "--\(boundary)\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"\(quoted)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        let suffix = "\r\n--\(boundary)--\r\n"
        var request = HTTPRequest(
            method: .post, url: "\(repoPath)/releases/\(releaseID)/assets?name=\(URLComponents.queryValue(name))",
            headers: headers + [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
            body: .wrappedFile(prefix: Array(prefix.utf8), path: path, suffix: Array(suffix.utf8)), timeout: 600)
        // Gitea keeps two attachments of one name: a repeat is not harmless.
        request.isRepeatable = false
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "upload attachment \(name)") }
        return try decode(GiteaAttachment.self, response, operation: "upload attachment \(name)")
    }

    func deleteAttachment(releaseID: Int, id: Int) async throws {
        let response = try await send(.delete, "\(repoPath)/releases/\(releaseID)/assets/\(id)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete attachment \(id)") }
    }

    func renameAttachment(releaseID: Int, id: Int, to name: String) async throws {
        struct Payload: Encodable { var name: String }
        let request = try HTTPRequest.json(.patch, url: "\(repoPath)/releases/\(releaseID)/assets/\(id)", headers: headers, value: Payload(name: name))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "rename attachment \(id) to \(name)") }
    }

    /// Downloads the bytes of the attachment `id` of release `releaseID` into `path`: the
    /// attachment as `GET /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}` describes it
    /// gives its `browser_download_url`, fetched with the token on the server's own host only (a
    /// private repository's attachment needs it; an object storage it redirects to gets none).
    /// Returns false when the release has no such attachment (404).
    /// - Throws: `GiteaError` for another answer, the transport's errors.
    func downloadAttachment(releaseID: Int, id: Int, to path: String) async throws -> Bool {
        let described = try await send(.get, "\(repoPath)/releases/\(releaseID)/assets/\(id)")
        if described.status == 404 { return false }
        guard described.isSuccess else { throw failure(described, operation: "read attachment \(id) of release \(releaseID)") }
        let attachment = try decode(GiteaAttachment.self, described, operation: "read attachment \(id)")
        guard let url = attachment.browserDownloadURL, !url.isEmpty else {
            throw GiteaError.unexpectedStatus(operation: "read attachment \(id)", status: described.status,
                                              serverMessage: "the attachment has no browser_download_url to download it from")
        }
        let server = repository.apiURL
        let credential = { (address: String) -> [(name: String, value: String)] in
            ReleaseDownload.sameServer(address, server) ? [("Authorization", "token \(self.token)")] : []
        }
        let (response, _) = try await ReleaseDownload.fetch(url, to: path, credential: credential, server: server, transport: transport, maxBytes: .max)
        if response.status == 404 { return false }
        guard response.isSuccess else { throw failure(response, operation: "download attachment \(attachment.name)") }
        return true
    }

    /// The SHA-256 of an attachment's bytes, downloaded (Gitea's API gives no digest).
    func digest(of attachment: GiteaAttachment) async throws -> String? {
        guard let url = attachment.browserDownloadURL else { return nil }
        var download = transport
        download.maxResponseBytes = Int(attachment.size) + 1
        // The token goes only to the API's own host.
        let sameHost = URLComponents(string: url)?.host == URLComponents(string: repository.apiURL)?.host
        let response = try await download.send(HTTPRequest(method: .get, url: url, headers: sameHost ? headers : [("User-Agent", userAgent)], timeout: 600))
        guard response.isSuccess, Int64(response.body.count) == attachment.size else { return nil }
        return SHA256.hex(of: response.body)
    }

    // MARK: - Plumbing

    var headers: [(name: String, value: String)] {
        [("Authorization", "token \(token)"), ("Accept", "application/json"), ("User-Agent", userAgent)]
    }

    private func send(_ method: HTTPRequestMethod, _ url: String) async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: method, url: url, headers: headers))
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        guard response.mediaType?.contains("json") ?? false else {
            throw GiteaError.notJSON(operation: operation, status: response.status, contentType: response.header("content-type"),
                                     bodySnippet: redactor.redact(response.bodySnippet(limit: 120)))
        }
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw GiteaError.unexpectedStatus(operation: operation, status: response.status,
                                              serverMessage: "the response could not be decoded: " + redactor.redact(response.bodySnippet()))
        }
    }

    func failure(_ response: HTTPResponse, operation: String, repositoryLevel: Bool = false) -> GiteaError {
        let isJSON = response.mediaType?.contains("json") ?? false
        if !isJSON, !response.body.isEmpty {
            return .notJSON(operation: operation, status: response.status, contentType: response.header("content-type"),
                            bodySnippet: redactor.redact(response.bodySnippet(limit: 120)))
        }
        let body = isJSON ? try? JSONDecoder().decode(GiteaErrorBody.self, from: Data(response.body)) : nil
        let text = ([body?.message] + (body?.errors ?? []).map(Optional.some)).compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
        let serverMessage = text.isEmpty ? nil : redactor.redact(text)
        switch response.status {
        case 401: return .tokenRefused(repository: repository.description)
        case 403: return .permissionDenied(operation: operation, repository: repository.description, serverMessage: serverMessage)
        case 404 where repositoryLevel: return .repositoryNotFound(repository: repository.description, api: repository.apiURL)
        default: return .unexpectedStatus(operation: operation, status: response.status, serverMessage: serverMessage)
        }
    }
}
