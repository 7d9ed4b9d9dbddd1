import Foundation
import Shiplane
import Hummingbird
import NIOCore

/// An in-process Gitea/Forgejo API for releases and attachments, checked against Gitea's published
/// API description (`GiteaAPIDescription`): a request it does not allow is refused (404 for an
/// unknown operation, 422 `validationError` for an unknown or missing body member or query
/// parameter) and recorded in `violations`, as is an answer with a status the operation does not
/// document. Error bodies take the description's shapes (`{"message","url"}`; `notFound` adds
/// `errors`). The token must come as `Authorization: token …`. Drafts are left out of the by-tag
/// endpoint; `draft=true` lists only drafts. Faults as `FakeGitHub`'s.
final class FakeGitea: @unchecked Sendable {
    struct Release { var id: Int; var tag: String; var name: String; var body: String; var draft: Bool; var prerelease: Bool }
    struct Attachment { var id: Int; var releaseID: Int; var uuid: String; var name: String; var bytes: [UInt8] }

    let owner = "acme"
    let repo: String
    let token: String
    /// The pulls API, when a test serves it (a Homebrew tap's pull request).
    var pulls: FakeGiteaPulls?

    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var releases: [Int: Release] = [:]
    private var attachments: [Int: Attachment] = [:]
    private var tags: Set<String> = []
    private var nextID = 1
    private var requestLog: [String] = []
    private var violationLog: [String] = []
    let faults = StandInFaults()

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }
    /// When true, the repository is private: `/attachments/UUID` answers 404 (as Gitea's
    /// `ServeAttachment` does for a reader without access) unless the API's token comes with it
    /// (`Authorization: token …`, which Gitea takes on that web route).
    var privateRepository = false
    /// When set before `start()`, attachments are served by another loopback server (Gitea's
    /// `[storage] SERVE_DIRECT` with an object storage): `/attachments/UUID` answers `307` to it.
    var storageOnAnotherServer = false
    private(set) var storageServer: TestServer?
    private var storageAuthorizations: [String?] = []
    private var attachmentAuthorizations: [String?] = []
    /// The `Authorization` header of every request the storage received (nil: none).
    var storageAuthorizationHeaders: [String?] { lock.withLock { storageAuthorizations } }
    /// The `Authorization` header of every `/attachments/UUID` request (nil: none).
    var attachmentAuthorizationHeaders: [String?] { lock.withLock { attachmentAuthorizations } }

    init(token: String = "gitea0123456789abcdef0123456789abcdef0123", repo: String = "rocket") {
        self.token = token
        self.repo = repo
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
        if storageOnAnotherServer {
            storageServer = try await TestServer.start { [self] request, _ in
                let segments = request.rawSegments.segments
                lock.withLock {
                    requestLog.append("\(request.method.rawValue) /" + segments.joined(separator: "/"))
                    storageAuthorizations.append(request.header("Authorization"))
                }
                guard segments.count == 2, segments[0] == "objects",
                      let found = lock.withLock({ attachments.values.first { $0.uuid == segments[1] } }) else { return Reply.text(404, "Not Found") }
                return Reply.raw(200, found.bytes, contentType: "application/octet-stream", headers: [:])
            }
        }
    }

    func stop() {
        server?.stop()
        storageServer?.stop()
    }

    var log: [String] { lock.withLock { requestLog } }
    var violations: [String] { lock.withLock { violationLog } }
    var allReleases: [Release] { lock.withLock { releases.values.sorted { $0.id < $1.id } } }
    var allAttachments: [Attachment] { lock.withLock { attachments.values.sorted { $0.id < $1.id } } }
    func addTag(_ tag: String) { lock.withLock { _ = tags.insert(tag) } }
    /// The commits tags name, given in the tag's `commit` (CommitMeta) when known.
    private var tagCommits: [String: String] = [:]
    func addTag(_ tag: String, commit: String) { lock.withLock { _ = tags.insert(tag); tagCommits[tag] = commit } }
    func inject(_ fault: FakeGitHub.Fault) { faults.inject(fault) }

    @discardableResult
    func addRelease(tag: String, draft: Bool, name: String? = nil, body: String = "") -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            releases[id] = Release(id: id, tag: tag, name: name ?? tag, body: body, draft: draft, prerelease: false)
            return id
        }
    }

    @discardableResult
    func addAttachment(releaseID: Int, name: String, bytes: [UInt8]) -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            attachments[id] = Attachment(id: id, releaseID: releaseID, uuid: UUID().uuidString.lowercased(), name: name, bytes: bytes)
            return id
        }
    }

    /// Puts other bytes under the attachment `id`, keeping its id, name and uuid (someone replaced
    /// the file behind the release's back).
    func replaceAttachmentBytes(id: Int, with bytes: [UInt8]) { lock.withLock { attachments[id]?.bytes = bytes } }

    private func violation(_ text: String) { lock.withLock { violationLog.append(text) } }

    // MARK: - Handling

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let method = request.method.rawValue
        let (segments, query) = request.rawSegments
        let target = "/" + segments.joined(separator: "/") + (query["name"].map { "?name=\($0)" } ?? "")
        lock.withLock { requestLog.append("\(method) \(target)") }
        return try await faults.apply(request, context, method: method, target: target) {
            // Downloads are the web route of an attachment, outside the API.
            if method == "GET", segments.count == 2, segments[0] == "attachments" {
                let authorization = request.header("Authorization")
                lock.withLock { attachmentAuthorizations.append(authorization) }
                guard !privateRepository || authorization == GiteaAPIDescription.tokenPrefix + token,
                      let found = lock.withLock({ attachments.values.first { $0.uuid == segments[1] } }) else { return Reply.text(404, "Not Found") }
                if let storage = storageServer { return Reply.empty(307, headers: ["Location": "\(storage.baseURL)/objects/\(found.uuid)"]) }
                return Reply.raw(200, found.bytes, contentType: "application/octet-stream", headers: [:])
            }
            return try await api(request, method: method, segments: segments, query: query)
        }
    }

    private func error(_ status: Int, _ message: String, notFound: Bool = false) -> Response {
        var body: [String: Any] = ["message": message, "url": "https://gitea.example.com/api/swagger"]
        if notFound { body["errors"] = [message] }
        return Reply.json(status, body)
    }

    private func api(_ request: Request, method: String, segments: [String], query: [String: String]) async throws -> Response {
        guard segments.count >= 2, segments[0] == "api", segments[1] == "v1" else { return error(404, "not found", notFound: true) }
        let path = Array(segments.dropFirst(2))
        guard let (operation, parameters) = GiteaAPIDescription.match(method: method, segments: path) else {
            violation("\(method) /\(path.joined(separator: "/")) is not in the API description")
            _ = try await request.readBody(keeping: 0)
            return error(404, "not found", notFound: true)
        }
        guard request.header("Authorization") == GiteaAPIDescription.tokenPrefix + token else {
            _ = try await request.readBody(keeping: 0)
            return error(401, "token is required")
        }
        if let unknown = query.keys.sorted().first(where: { !operation.query.contains($0) }) {
            violation("\(operation.method) \(operation.path): query parameter \(unknown) is not described")
            return error(422, "unknown query parameter \(unknown)")
        }
        var json: [String: Any] = [:]
        var form: [String: (filename: String?, bytes: [UInt8])] = [:]
        switch operation.body {
        case .none:
            _ = try await request.readBody(keeping: 0)
        case .json(let name):
            let (bytes, _) = try await request.readBody()
            guard request.header("Content-Type")?.hasPrefix("application/json") == true,
                  let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                violation("\(operation.method) \(operation.path): the body is not a JSON object")
                return error(422, "the body is not JSON")
            }
            let definition = GiteaAPIDescription.definitions[name] ?? .init(properties: [])
            if let unknown = object.keys.sorted().first(where: { !definition.properties.contains($0) }) {
                violation("\(operation.method) \(operation.path): \(unknown) is not a property of \(name)")
                return error(422, "\(unknown) is not a property of \(name)")
            }
            if let missing = definition.required.sorted().first(where: { object[$0] == nil }) {
                violation("\(operation.method) \(operation.path): required \(missing) of \(name) is missing")
                return error(422, "\(missing) is required")
            }
            json = object
        case .form(let fields):
            let (bytes, count) = try await request.readBody(keeping: 64 << 20)
            if let declared = request.header("Content-Length").flatMap(Int.init), declared != count {
                return error(400, "Content-Length \(declared) does not match \(count) bytes")
            }
            guard let parsed = Self.multipart(bytes, contentType: request.header("Content-Type")) else {
                violation("\(operation.method) \(operation.path): the body is not multipart/form-data")
                return error(400, "the body is not multipart/form-data")
            }
            if let unknown = parsed.keys.sorted().first(where: { fields[$0] == nil }) {
                violation("\(operation.method) \(operation.path): form field \(unknown) is not described")
                return error(400, "unknown form field \(unknown)")
            }
            if let missing = fields.filter({ $0.value }).keys.sorted().first(where: { parsed[$0] == nil }) {
                return error(400, "\(missing) is required")
            }
            form = parsed
        }
        let response = route(operation, parameters: parameters, query: query, json: json, form: form)
        // 401 and 404 (a missing object) come from Gitea's middleware for every operation.
        if !operation.statuses.contains(Int(response.status.code)), ![401, 404].contains(response.status.code) {
            violation("\(operation.method) \(operation.path) answered \(response.status.code), which it does not document")
        }
        return response
    }

    private func route(_ operation: GiteaAPIDescription.Operation, parameters: [String: String], query: [String: String],
                       json: [String: Any], form: [String: (filename: String?, bytes: [UInt8])]) -> Response {
        guard parameters["owner"] == owner, parameters["repo"] == repo else { return error(404, "repository does not exist", notFound: true) }
        let id = parameters["id"].flatMap(Int.init)
        switch (operation.method, operation.path) {
        case ("GET", "/repos/{owner}/{repo}"):
            return Reply.json(200, ["id": 7, "name": repo, "full_name": "\(owner)/\(repo)"])
        case ("GET", "/repos/{owner}/{repo}/tags/{tag}"):
            let tag = parameters["tag"] ?? ""
            guard let known = lock.withLock({ tags.contains(tag) ? .some(tagCommits[tag]) : nil }) else { return error(404, "tag not found", notFound: true) }
            guard let commit = known else { return Reply.json(200, ["name": tag]) }
            return Reply.json(200, ["name": tag, "id": commit,
                                    "commit": ["sha": commit, "url": "\(baseURL)/api/v1/repos/\(owner)/\(repo)/git/commits/\(commit)", "created": "2026-11-28T12:00:00Z"]])
        case ("GET", "/repos/{owner}/{repo}/releases"):
            let draft = query["draft"].map { $0 == "true" }
            let list = lock.withLock { releases.values.filter { draft == nil || $0.draft == draft }.sorted { $0.id > $1.id } }
            let limit = Int(query["limit"] ?? "30") ?? 30, page = max(1, Int(query["page"] ?? "1") ?? 1)
            let slice = list.dropFirst((page - 1) * limit).prefix(limit)
            return Reply.json(200, slice.map(releaseJSON), headers: ["X-Total-Count": String(list.count)])
        case ("POST", "/repos/{owner}/{repo}/releases"):
            let tag = json["tag_name"] as? String ?? ""
            enum Outcome { case created(Release), exists }
            let outcome: Outcome = lock.withLock {
                if releases.values.contains(where: { $0.tag == tag }) { return .exists }
                let release = Release(id: nextID, tag: tag, name: json["name"] as? String ?? tag, body: json["body"] as? String ?? "",
                                      draft: json["draft"] as? Bool ?? false, prerelease: json["prerelease"] as? Bool ?? false)
                nextID += 1
                releases[release.id] = release
                // Gitea makes the tag of a published release; a draft's tag waits for its publication.
                if !release.draft { tags.insert(tag) }
                return .created(release)
            }
            switch outcome {
            case .created(let release): return Reply.json(201, releaseJSON(release))
            case .exists: return error(409, "release tag already exists")
            }
        case ("GET", "/repos/{owner}/{repo}/releases/tags/{tag}"):
            guard let found = lock.withLock({ releases.values.first { $0.tag == parameters["tag"] && !$0.draft } }) else {
                return error(404, "release not found", notFound: true)
            }
            return Reply.json(200, releaseJSON(found))
        case ("GET", "/repos/{owner}/{repo}/releases/{id}"):
            guard let found = lock.withLock({ id.flatMap { releases[$0] } }) else { return error(404, "release not found", notFound: true) }
            return Reply.json(200, releaseJSON(found))
        case ("DELETE", "/repos/{owner}/{repo}/releases/{id}"):
            let removed = lock.withLock { () -> Bool in
                guard let id, releases.removeValue(forKey: id) != nil else { return false }
                attachments = attachments.filter { $0.value.releaseID != id }
                return true
            }
            return removed ? Reply.empty(204) : error(404, "release not found", notFound: true)
        case ("PATCH", "/repos/{owner}/{repo}/releases/{id}"):
            let updated: Release? = lock.withLock {
                guard let id, var release = releases[id] else { return nil }
                if let value = json["tag_name"] as? String, !value.isEmpty { release.tag = value }
                if let value = json["name"] as? String { release.name = value }
                if let value = json["body"] as? String { release.body = value }
                if let value = json["draft"] as? Bool { release.draft = value }
                if let value = json["prerelease"] as? Bool { release.prerelease = value }
                if !release.draft { tags.insert(release.tag) }
                releases[id] = release
                return release
            }
            return updated.map { Reply.json(200, releaseJSON($0)) } ?? error(404, "release not found", notFound: true)
        case ("GET", "/repos/{owner}/{repo}/releases/{id}/assets"):
            let list = lock.withLock { attachments.values.filter { $0.releaseID == id }.sorted { $0.id < $1.id } }
            return Reply.json(200, list.map(attachmentJSON))
        case ("POST", "/repos/{owner}/{repo}/releases/{id}/assets"):
            guard let part = form["attachment"] else { return error(400, "attachment is required") }
            let name = query["name"].flatMap { $0.isEmpty ? nil : $0 } ?? part.filename ?? "attachment"
            let stored: Attachment? = lock.withLock {
                guard let id, releases[id] != nil else { return nil }
                let attachment = Attachment(id: nextID, releaseID: id, uuid: UUID().uuidString.lowercased(), name: name, bytes: part.bytes)
                nextID += 1
                attachments[attachment.id] = attachment
                return attachment
            }
            return stored.map { Reply.json(201, attachmentJSON($0)) } ?? error(400, "release does not exist")
        case ("GET", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}"):
            // repoGetReleaseAttachment: the Attachment, of this release only (Gitea answers 404 for
            // an attachment of another release).
            guard let found = lock.withLock({ parameters["attachment_id"].flatMap(Int.init).flatMap { attachments[$0] } }), found.releaseID == id else {
                return error(404, "attachment not found", notFound: true)
            }
            return Reply.json(200, attachmentJSON(found))
        case ("DELETE", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}"):
            let removed = lock.withLock { parameters["attachment_id"].flatMap(Int.init).flatMap { attachments.removeValue(forKey: $0) } != nil }
            return removed ? Reply.empty(204) : error(404, "attachment not found", notFound: true)
        case ("PATCH", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}"):
            let renamed: Attachment? = lock.withLock {
                guard let attachmentID = parameters["attachment_id"].flatMap(Int.init), var attachment = attachments[attachmentID] else { return nil }
                if let name = json["name"] as? String { attachment.name = name }
                attachments[attachmentID] = attachment
                return attachment
            }
            return renamed.map { Reply.json(201, attachmentJSON($0)) } ?? error(404, "attachment not found", notFound: true)
        case ("GET", "/repos/{owner}/{repo}/pulls"), ("POST", "/repos/{owner}/{repo}/pulls"), ("GET", "/repos/{owner}/{repo}/pulls/{index}"),
             ("PATCH", "/repos/{owner}/{repo}/pulls/{index}"):
            guard let pulls else { return error(404, "not found", notFound: true) }
            let (status, body) = pulls.route(method: operation.method, index: parameters["index"].flatMap(Int.init), query: query, json: json,
                                             owner: owner, repo: repo, baseURL: baseURL)
            if status >= 400 { return error(status, body as? String ?? "", notFound: status == 404) }
            return Reply.json(status, body)
        default:
            return error(404, "not found", notFound: true)
        }
    }

    private func releaseJSON(_ release: Release) -> [String: Any] {
        let files = lock.withLock { attachments.values.filter { $0.releaseID == release.id }.sorted { $0.id < $1.id } }
        return ["id": release.id, "tag_name": release.tag, "name": release.name, "body": release.body, "draft": release.draft,
                "prerelease": release.prerelease, "html_url": "https://gitea.example.com/\(owner)/\(repo)/releases/tag/\(release.tag)",
                "assets": files.map(attachmentJSON)]
    }

    private func attachmentJSON(_ attachment: Attachment) -> [String: Any] {
        ["id": attachment.id, "name": attachment.name, "size": attachment.bytes.count, "uuid": attachment.uuid, "download_count": 0,
         "browser_download_url": "\(baseURL)/attachments/\(attachment.uuid)"]
    }

    /// The parts of a `multipart/form-data` body by field name; nil when it is not one.
    static func multipart(_ body: [UInt8], contentType: String?) -> [String: (filename: String?, bytes: [UInt8])]? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
              let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Array(("--" + contentType[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        var parts: [String: (filename: String?, bytes: [UInt8])] = [:]
        var positions: [Int] = []
        var index = 0
        while index + boundary.count <= body.count {
            if Array(body[index..<index + boundary.count]) == boundary { positions.append(index); index += boundary.count } else { index += 1 }
        }
        guard positions.count >= 2 else { return nil }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var part = Array(body[(start + boundary.count)..<end])
            if part.starts(with: [13, 10]) { part.removeFirst(2) }
            if part.suffix(2) == [13, 10] { part.removeLast(2) }
            guard let split = (0..<max(0, part.count - 3)).first(where: { part[$0] == 13 && part[$0 + 1] == 10 && part[$0 + 2] == 13 && part[$0 + 3] == 10 }) else { return nil }
            let headers = String(decoding: part[..<split], as: UTF8.self)
            let content = Array(part[(split + 4)...])
            func attribute(_ key: String) -> String? {
                guard let found = headers.range(of: "\(key)=\"") else { return nil }
                let rest = headers[found.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
            guard let name = attribute("name") else { return nil }
            parts[name] = (attribute("filename"), content)
        }
        return parts
    }
}

/// Runs `body` with a started Gitea stand-in, stopped afterwards.
@discardableResult
func withFakeGitea<T>(_ body: (FakeGitea) async throws -> T) async throws -> T {
    let gitea = FakeGitea()
    try await gitea.start()
    defer { gitea.stop() }
    return try await body(gitea)
}
