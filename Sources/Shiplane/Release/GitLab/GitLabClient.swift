import Foundation

/// A GitLab API token and the header it is sent in: `PRIVATE-TOKEN` for a personal, project or
/// group access token (`GITLAB_TOKEN`), `JOB-TOKEN` for GitLab CI's `CI_JOB_TOKEN`.
struct GitLabToken: Sendable {
    var value: String
    var header: String

    /// `GITLAB_TOKEN` (PRIVATE-TOKEN), else `CI_JOB_TOKEN` (JOB-TOKEN); nil when neither is set.
    static func from(_ environment: [String: String]) -> GitLabToken? {
        for (name, header) in [("GITLAB_TOKEN", "PRIVATE-TOKEN"), ("CI_JOB_TOKEN", "JOB-TOKEN")] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                return GitLabToken(value: value, header: header)
            }
        }
        return nil
    }
}

/// A client for the GitLab REST API (v4) parts a release needs: releases, release links, the
/// generic package registry, tags and milestones, for one project and one token.
///
/// The token goes in its header only, and into the transport's redactor, so it never appears in
/// errors or events. Retries (5xx, 429 with `Retry-After` or `RateLimit-Reset`) are the transport's.
struct GitLabClient: Sendable {
    let project: GitLabProject
    let transport: HTTPTransport
    private let token: GitLabToken
    let userAgent: String
    var uploadTimeout: Double = 600

    init(project: GitLabProject, token: GitLabToken, transport: HTTPTransport, version: String = "dev") {
        var transport = transport
        transport.redactor = transport.redactor.adding([token.value])
        self.transport = transport
        self.token = token
        self.project = project
        self.userAgent = "shiplane/\(version)"
    }

    var redactor: SecretRedactor { transport.redactor }
    var usesJobToken: Bool { token.header == "JOB-TOKEN" }
    private var projectPath: String { "\(project.apiURL)/projects/\(project.encodedID)" }
    private func segment(_ text: String) -> String { URITemplate.percentEncode(text, allowReserved: false) }

    // MARK: - Project, tags, milestones

    /// Checks that the token is accepted and can read the project's releases.
    /// - Throws: `GitLabError.tokenRefused` (401), `.projectNotFound` (404), `.permissionDenied` (403).
    func checkAccess() async throws {
        let response = try await send(.get, "\(projectPath)/releases?per_page=1")
        guard response.isSuccess else { throw failure(response, operation: "read the project's releases", projectLevel: true) }
    }

    /// Whether the tag is on GitLab; nil when a job token may not read tags (the create call will say).
    func tagExists(_ tag: String) async throws -> Bool? {
        let response = try await send(.get, "\(projectPath)/repository/tags/\(segment(tag))")
        if response.isSuccess { return true }
        if response.status == 404 { return false }
        if usesJobToken, response.status == 401 || response.status == 403 { return nil }
        throw failure(response, operation: "read the tag \(tag)")
    }

    /// Whether the project (or its group) has a milestone with this title.
    func milestoneExists(_ title: String) async throws -> Bool {
        let query = URLComponents.queryValue(title)
        let response = try await send(.get, "\(projectPath)/milestones?title=\(query)&include_ancestors=true")
        guard response.isSuccess else { throw failure(response, operation: "read milestone \(title)") }
        return !(try decode([IgnoredObject].self, response, operation: "read milestone \(title)")).isEmpty
    }

    // MARK: - Releases

    /// The release for `tag`, or nil when there is none.
    func release(forTag tag: String) async throws -> GitLabRelease? {
        let response = try await send(.get, "\(projectPath)/releases/\(segment(tag))")
        if response.isSuccess { return try decode(GitLabRelease.self, response, operation: "get the release \(tag)") }
        guard response.status == 404 else { throw failure(response, operation: "get the release \(tag)") }
        return nil
    }

    /// A link to attach in the create call or with `createLink`.
    struct LinkRequest: Encodable, Sendable, Equatable {
        var name: String
        var url: String
        var direct_asset_path: String?
        var link_type: String?
    }

    /// Creates the release (with its links); when one exists for the tag (409), returns that one.
    /// An answer lost on the way is resolved by looking, never by sending twice.
    /// - Returns: the release and whether this call created it.
    func createRelease(tag: String, name: String, description: String?, milestones: [String], links: [LinkRequest])
        async throws -> (release: GitLabRelease, created: Bool) {
        struct Assets: Encodable { var links: [LinkRequest] }
        struct Payload: Encodable {
            var tag_name: String
            var name: String
            var description: String?
            var milestones: [String]?
            var assets: Assets?
        }
        let payload = Payload(tag_name: tag, name: name, description: description, milestones: milestones.isEmpty ? nil : milestones,
                              assets: links.isEmpty ? nil : Assets(links: links))
        let request = try HTTPRequest.json(.post, url: "\(projectPath)/releases", headers: headers, value: payload)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch HTTPTransportError.responseLost {
            if let landed = try await release(forTag: tag) { return (landed, true) }
            response = try await transport.send(request)
        }
        if response.isSuccess { return (try decode(GitLabRelease.self, response, operation: "create the release \(tag)"), true) }
        if response.status == 409, let existing = try await release(forTag: tag) { return (existing, false) }
        throw failure(response, operation: "create the release \(tag)")
    }

    /// Gives a release a new name and description.
    func updateRelease(tag: String, name: String, description: String?) async throws -> GitLabRelease {
        struct Payload: Encodable { var name: String; var description: String? }
        let request = try HTTPRequest.json(.put, url: "\(projectPath)/releases/\(segment(tag))", headers: headers,
                                           value: Payload(name: name, description: description ?? ""))
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "update the release \(tag)") }
        return try decode(GitLabRelease.self, response, operation: "update the release \(tag)")
    }

    /// Deletes the release (not its tag); one already gone counts as deleted.
    func deleteRelease(tag: String) async throws {
        let response = try await send(.delete, "\(projectPath)/releases/\(segment(tag))")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete the release \(tag)") }
    }

    // MARK: - Release links

    /// The release's links.
    func links(tag: String) async throws -> [GitLabReleaseLink] {
        try await paginate(GitLabReleaseLink.self, "\(projectPath)/releases/\(segment(tag))/assets/links", operation: "list the links of \(tag)")
    }

    /// Attaches a link; one with the name already there (an earlier attempt whose answer was lost) is returned instead.
    func createLink(tag: String, _ link: LinkRequest) async throws -> GitLabReleaseLink {
        let request = try HTTPRequest.json(.post, url: "\(projectPath)/releases/\(segment(tag))/assets/links", headers: headers, value: link)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch HTTPTransportError.responseLost {
            if let landed = try await links(tag: tag).first(where: { $0.name == link.name }) { return landed }
            response = try await transport.send(request)
        }
        if response.isSuccess { return try decode(GitLabReleaseLink.self, response, operation: "attach \(link.name) to \(tag)") }
        if response.status == 400, let existing = try await links(tag: tag).first(where: { $0.name == link.name && $0.url == link.url }) {
            return existing
        }
        throw failure(response, operation: "attach \(link.name) to \(tag)")
    }

    /// Removes a link from a release; one already gone counts as removed.
    func deleteLink(tag: String, id: Int) async throws {
        let response = try await send(.delete, "\(projectPath)/releases/\(segment(tag))/assets/links/\(id)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "remove link \(id) from \(tag)") }
    }

    // MARK: - Generic package registry

    /// The download URL of a generic package file (what a release link points at).
    func packageFileURL(package: String, version: String, fileName: String) -> String {
        "\(projectPath)/packages/generic/\(segment(package))/\(segment(version))/\(segment(fileName))"
    }

    /// Streams a file to the generic package registry; returns the package file GitLab stored.
    /// Not repeated blindly when its answer is lost: the caller looks at the package's files.
    func uploadPackageFile(package: String, version: String, fileName: String, path: String) async throws -> GitLabPackageFile {
        let url = packageFileURL(package: package, version: version, fileName: fileName) + "?select=package_file"
        var request = HTTPRequest(method: .put, url: url, headers: headers + [("Content-Type", "application/octet-stream")],
                                  body: .file(path: path), timeout: uploadTimeout)
        // Each PUT adds a file (GitLab keeps duplicates): sending it again is not harmless.
        request.isRepeatable = false
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, operation: "upload \(fileName) to the package registry") }
        return try decode(GitLabPackageFile.self, response, operation: "upload \(fileName)")
    }

    /// Every file of the generic package `package` at `version`, oldest first.
    func packageFiles(package: String, version: String) async throws -> [GitLabPackageFile] {
        let query = "package_type=generic&package_name=\(URLComponents.queryValue(package))&package_version=\(URLComponents.queryValue(version))"
        let packages = try await paginate(GitLabPackage.self, "\(projectPath)/packages?\(query)", operation: "list packages")
        var files: [GitLabPackageFile] = []
        for found in packages where found.name == package && found.version == version {
            files += try await paginate(GitLabPackageFile.self, "\(projectPath)/packages/\(found.id)/package_files",
                                        operation: "list the files of package \(package) \(version)")
        }
        return files.sorted { $0.id < $1.id }
    }

    /// Deletes one package file; one already gone counts as deleted.
    func deletePackageFile(packageID: Int, fileID: Int) async throws {
        let response = try await send(.delete, "\(projectPath)/packages/\(packageID)/package_files/\(fileID)")
        guard response.isSuccess || response.status == 404 else { throw failure(response, operation: "delete package file \(fileID)") }
    }

    // MARK: - Plumbing

    var headers: [(name: String, value: String)] {
        [(token.header, token.value), ("Accept", "application/json"), ("User-Agent", userAgent)]
    }

    private func send(_ method: HTTPRequestMethod, _ url: String) async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: method, url: url, headers: headers))
    }

    /// Follows GitLab's `X-Next-Page` (at most 50 pages of 100).
    private func paginate<Item: Decodable>(_ type: Item.Type, _ url: String, operation: String) async throws -> [Item] {
        var items: [Item] = []
        var page = "1"
        for _ in 0..<50 {
            let separator = url.contains("?") ? "&" : "?"
            let response = try await send(.get, "\(url)\(separator)per_page=100&page=\(page)")
            guard response.isSuccess else { throw failure(response, operation: operation) }
            items += try decode([Item].self, response, operation: operation)
            guard let next = response.header("x-next-page")?.trimmingCharacters(in: .whitespaces), !next.isEmpty else { break }
            page = next
        }
        return items
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        guard response.mediaType?.contains("json") ?? false else { throw notJSON(response, operation: operation) }
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw GitLabError.unexpectedStatus(operation: operation, status: response.status,
                                               serverMessage: "the response could not be decoded: " + redactor.redact(response.bodySnippet()))
        }
    }

    private func notJSON(_ response: HTTPResponse, operation: String) -> GitLabError {
        .notJSON(operation: operation, status: response.status, contentType: response.header("content-type"),
                 bodySnippet: redactor.redact(response.bodySnippet(limit: 120)))
    }

    /// Maps a failed response to the error that explains it.
    func failure(_ response: HTTPResponse, operation: String, projectLevel: Bool = false) -> GitLabError {
        let isJSON = response.mediaType?.contains("json") ?? false
        if !isJSON, !response.body.isEmpty { return notJSON(response, operation: operation) }
        let serverMessage = (isJSON ? try? JSONDecoder().decode(GitLabErrorBody.self, from: Data(response.body)) : nil)?.text
            .map { redactor.redact($0) }
        switch response.status {
        case 401:
            return .tokenRefused(project: project.description, header: token.header)
        case 403:
            return .permissionDenied(operation: operation, project: project.description, serverMessage: serverMessage)
        case 404 where projectLevel || serverMessage == "404 Project Not Found":
            return .projectNotFound(project: project.description, api: project.apiURL)
        default:
            return .unexpectedStatus(operation: operation, status: response.status, serverMessage: serverMessage)
        }
    }
}

/// Any JSON object, read only to be counted.
struct IgnoredObject: Decodable {}

extension URLComponents {
    /// `text` percent-encoded for a query value (`&`, `=`, `+` and `#` too).
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
