import Foundation

/// A tag as Bitbucket's `refs/tags/{name}` answers it.
struct BitbucketTag: Decodable, Sendable, Equatable {
    struct Target: Decodable, Sendable, Equatable { var hash: String }
    var name: String
    var target: Target
}

/// A download artifact as Bitbucket lists it (`GET …/downloads`): its name, size and upload time.
struct BitbucketDownload: Decodable, Sendable, Equatable {
    var name: String
    var size: Int64
    var createdOn: String?

    enum CodingKeys: String, CodingKey {
        case name, size
        case createdOn = "created_on"
    }
}

/// A client for the parts of Bitbucket Cloud's REST API 2.0 a release needs — the repository, its
/// tags (`refs/tags`) and its downloads — for one repository and one set of credentials (added to
/// the transport's redactor).
struct BitbucketClient: Sendable {
    let repository: BitbucketRepository
    let transport: HTTPTransport
    private let credentials: BitbucketCredentials
    let userAgent: String

    init(repository: BitbucketRepository, credentials: BitbucketCredentials, transport: HTTPTransport, version: String = "dev") {
        var transport = transport
        transport.redactor = transport.redactor.adding(credentials.secrets)
        self.transport = transport
        self.credentials = credentials
        self.repository = repository
        self.userAgent = "shiplane/\(version)"
    }

    var repoPath: String {
        "\(repository.apiURL)/repositories/\(segment(repository.workspace))/\(segment(repository.slug))"
    }
    func segment(_ text: String) -> String { URITemplate.percentEncode(text, allowReserved: false) }

    var headers: [(name: String, value: String)] {
        [("Authorization", credentials.authorization), ("Accept", "application/json"), ("User-Agent", userAgent)]
    }

    private func send(_ method: HTTPRequestMethod, _ url: String) async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: method, url: url, headers: headers))
    }

    // MARK: - Repository and tags

    /// Reads the repository: the credentials and access in one request.
    func checkAccess() async throws {
        let response = try await send(.get, repoPath)
        guard response.isSuccess else { throw failure(response, operation: "read the repository", repositoryLevel: true) }
    }

    /// The tag `name`, or nil when Bitbucket has none (404).
    func tag(_ name: String) async throws -> BitbucketTag? {
        let response = try await send(.get, "\(repoPath)/refs/tags/\(segment(name))")
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "read the tag \(name)") }
        return try decode(BitbucketTag.self, response, operation: "read the tag \(name)")
    }

    // MARK: - Downloads

    private struct Page: Decodable {
        var values: [BitbucketDownload]
        var next: String?
    }

    /// Every download artifact, page by page (`next`, on the API's own host only).
    func downloads() async throws -> [BitbucketDownload] {
        var all: [BitbucketDownload] = []
        var url: String? = "\(repoPath)/downloads?pagelen=100"
        var pages = 0
        while let current = url, pages < 100 {
            let response = try await send(.get, current)
            guard response.isSuccess else { throw failure(response, operation: "list the downloads") }
            let page = try decode(Page.self, response, operation: "list the downloads")
            all += page.values
            pages += 1
            url = page.next.flatMap { next in
                URLComponents(string: next)?.host == URLComponents(string: repository.apiURL)?.host ? next : nil
            }
        }
        return all
    }

    /// Streams a file as a `files` part of a `multipart/form-data` body; Bitbucket replaces a
    /// download of the same name. A lost answer is resolved by the caller, by looking.
    func upload(name: String, path: String) async throws {
        let boundary = "shiplane-" + UUID().uuidString
        let quoted = name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
        let prefix = "--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(quoted)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        let suffix = "\r\n--\(boundary)--\r\n"
        var request = HTTPRequest(
            method: .post, url: "\(repoPath)/downloads", headers: headers + [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
            body: .wrappedFile(prefix: Array(prefix.utf8), path: path, suffix: Array(suffix.utf8)), timeout: 600)
        request.isRepeatable = false
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "upload the download \(name)") }
    }

    /// The SHA-256 of a download's bytes: `GET …/downloads/{name}` redirects to the file (the
    /// credentials go only to the API's own host); nil when it is gone or not `size` bytes.
    func digest(of download: BitbucketDownload) async throws -> String? {
        var fetch = transport
        fetch.maxResponseBytes = Int(download.size) + 1
        var response = try await fetch.send(HTTPRequest(method: .get, url: "\(repoPath)/downloads/\(segment(download.name))", headers: headers, timeout: 600))
        var hops = 0
        while [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location"), hops < 5 {
            let target = URL(string: location, relativeTo: URL(string: repoPath))?.absoluteString ?? location
            let sameHost = URLComponents(string: target)?.host == URLComponents(string: repository.apiURL)?.host
            response = try await fetch.send(HTTPRequest(method: .get, url: target, headers: sameHost ? headers : [("User-Agent", userAgent)], timeout: 600))
            hops += 1
        }
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, operation: "download \(download.name)") }
        guard Int64(response.body.count) == download.size else { return nil }
        return SHA256.hex(of: response.body)
    }

    /// Deletes a download (gone already: nothing to do).
    func delete(name: String) async throws {
        let response = try await send(.delete, "\(repoPath)/downloads/\(segment(name))")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete the download \(name)") }
    }

    // MARK: - Answers

    /// `{"type": "error", "error": {"message": …, "detail": …}}`; `detail` is a string or an
    /// object (the scopes a token lacks), so only `message` is read.
    private struct ErrorBody: Decodable {
        struct Detail: Decodable { var message: String? }
        var error: Detail?
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        guard response.mediaType?.contains("json") ?? false else {
            throw BitbucketError.notJSON(operation: operation, status: response.status, contentType: response.header("content-type"))
        }
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw BitbucketError.unexpectedStatus(operation: operation, status: response.status,
                                                  serverMessage: "the answer could not be read: " + transport.redactor.redact(response.bodySnippet()))
        }
    }

    func failure(_ response: HTTPResponse, operation: String, repositoryLevel: Bool = false) -> BitbucketError {
        let isJSON = response.mediaType?.contains("json") ?? false
        if !isJSON, !response.body.isEmpty, response.status != 401 {
            return .notJSON(operation: operation, status: response.status, contentType: response.header("content-type"))
        }
        let body = isJSON ? try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)) : nil
        let text = body?.error?.message ?? ""
        let serverMessage = text.isEmpty ? nil : transport.redactor.redact(text)
        switch response.status {
        case 401: return .credentialsRefused(repository: repository.description)
        case 403: return .permissionDenied(operation: operation, repository: repository.description, serverMessage: serverMessage)
        case 404 where repositoryLevel: return .repositoryNotFound(repository: repository.description, api: repository.apiURL)
        default: return .unexpectedStatus(operation: operation, status: response.status, serverMessage: serverMessage)
        }
    }
}
