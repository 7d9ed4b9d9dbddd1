import Foundation
import HTTPTypes
import Shiplane
import Hummingbird
import NIOCore

/// An in-process model of GitLab's REST API (v4) for releases, release links, the generic package
/// registry, tags and milestones, following GitLab's published API documentation: the token in
/// `PRIVATE-TOKEN` or `JOB-TOKEN` (401 `{"message":"401 Unauthorized"}` otherwise), the project as
/// an id or a URL-encoded path (`acme%2Frocket`; 404 `{"message":"404 Project Not Found"}`),
/// 404 `{"message":"404 Not Found"}` for a missing release, 409 when a release exists, 422 when the
/// tag does not exist and no `ref` is given, 400 `{"error":"tag_name is missing"}` for a missing
/// parameter and for members the documentation does not list, 400 for a link name already taken,
/// pagination with `X-Next-Page`, and GitLab.com's `RateLimit-*` headers on every answer. Faults
/// as `FakeGitHub`'s (a 429 with `Retry-After` and `RateLimit-Reset` among them).
final class FakeGitLab: @unchecked Sendable {
    struct Link { var id: Int; var name: String; var url: String; var directAssetPath: String?; var linkType: String }
    struct Release { var tag: String; var name: String; var description: String; var milestones: [String]; var links: [Link] }
    struct Package { var id: Int; var name: String; var version: String }
    struct PackageFile { var id: Int; var packageID: Int; var name: String; var bytes: [UInt8] }

    let projectID = 42
    let projectPath: String
    let token: String
    let jobToken: String
    /// When set, job tokens may not read repository tags (403), as on instances with fine-grained job token permissions.
    var jobTokenCannotReadTags = false
    /// Largest page the server returns.
    var pageSize = 100
    /// Where tags pushed to the project are found besides `addTag` (the bare repository a test pushes to).
    var pushedTags: (@Sendable (String) -> Bool)?

    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var releases: [String: Release] = [:]
    private var packages: [Package] = []
    private var files: [PackageFile] = []
    private var tags: Set<String> = []
    private var milestones: Set<String> = []
    private var nextID = 1
    private var requestLog: [String] = []
    private var headersSeen: [[String: String]] = []
    let faults = StandInFaults()

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }
    var apiURL: String { baseURL + "/api/v4" }

    init(projectPath: String = "acme/rocket", token: String = "glpat-FakeGitLabToken0123456789", jobToken: String = "glcbt-FakeJobToken0123456789ab") {
        self.projectPath = projectPath
        self.token = token
        self.jobToken = jobToken
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }

    // MARK: - Inspection and setup

    var log: [String] { lock.withLock { requestLog } }
    var allReleases: [Release] { lock.withLock { releases.values.sorted { $0.tag < $1.tag } } }
    var allFiles: [PackageFile] { lock.withLock { files } }
    var requestHeaders: [[String: String]] { lock.withLock { headersSeen } }
    func addTag(_ tag: String) { lock.withLock { _ = tags.insert(tag) } }
    func addMilestone(_ title: String) { lock.withLock { _ = milestones.insert(title) } }
    func inject(_ fault: FakeGitHub.Fault) { faults.inject(fault) }

    func failNext(_ count: Int, method: String? = nil, path: String, status: Int = 502, headers: [String: String] = [:],
                  body: String = "<html><body>502 Bad Gateway</body></html>", contentType: String = "text/html") {
        inject(.init(method: method, pathContains: path, remaining: count,
                     action: .status(status, headers: headers, body: body, contentType: contentType)))
    }

    func addRelease(tag: String, name: String? = nil, description: String = "") {
        lock.withLock { releases[tag] = Release(tag: tag, name: name ?? tag, description: description, milestones: [], links: []) }
    }

    @discardableResult
    func addPackageFile(package: String, version: String, name: String, bytes: [UInt8]) -> Int {
        lock.withLock { storeFile(package: package, version: version, name: name, bytes: bytes).id }
    }

    // MARK: - Handling

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let method = request.method.rawValue
        let (segments, query) = request.rawSegments
        let target = "/" + segments.joined(separator: "/")
        lock.withLock {
            requestLog.append("\(method) \(target)")
            var seen: [String: String] = [:]
            for field in request.headers { seen[field.name.canonicalName.lowercased()] = field.value }
            headersSeen.append(seen)
        }
        var response = try await faults.apply(request, context, method: method, target: target) {
            try await route(request, method: method, segments: segments, query: query)
        }
        // GitLab.com's rate-limit headers on every answer (a fault's own headers win).
        let used = lock.withLock { requestLog.count }
        for (name, value) in [("RateLimit-Limit", "2000"), ("RateLimit-Observed", String(used)),
                              ("RateLimit-Remaining", String(max(0, 2000 - used))), ("RateLimit-Reset", String(Int(Date().timeIntervalSince1970) + 60))] {
            if let field = HTTPField.Name(name), response.headers[field] == nil { response.headers[field] = value }
        }
        return response
    }

    private func notFound(_ what: String = "") -> Response { Reply.json(404, ["message": "404 \(what.isEmpty ? "" : what + " ")Not Found"]) }

    private func route(_ request: Request, method: String, segments: [String], query: [String: String]) async throws -> Response {
        guard request.header("PRIVATE-TOKEN") == token || request.header("JOB-TOKEN") == jobToken else {
            _ = try await request.readBody(keeping: 0)
            return Reply.json(401, ["message": "401 Unauthorized"])
        }
        let isJobToken = request.header("JOB-TOKEN") == jobToken
        guard segments.count >= 3, segments[0] == "api", segments[1] == "v4", segments[2] == "projects" else { return notFound() }
        guard segments.count >= 4, segments[3] == String(projectID) || segments[3] == projectPath else {
            _ = try await request.readBody(keeping: 0)
            return notFound("Project")
        }
        let rest = Array(segments.dropFirst(4))
        switch (method, rest.count) {
        case ("GET", 3) where rest[0] == "repository" && rest[1] == "tags":
            if isJobToken && jobTokenCannotReadTags { return Reply.json(403, ["message": "403 Forbidden"]) }
            return hasTag(rest[2]) ? Reply.json(200, ["name": rest[2]]) : notFound("Tag")
        case ("GET", 1) where rest[0] == "milestones":
            let title = query["title"]
            let list = lock.withLock { milestones.filter { title == nil || $0 == title }.sorted() }
            return Reply.json(200, list.enumerated().map { ["id": $0.offset + 1, "title": $0.element] })
        case ("GET", 1) where rest[0] == "releases":
            let all = lock.withLock { releases.values.sorted { $0.tag < $1.tag } }
            return page(all.map(releaseJSON), query: query)
        case ("POST", 1) where rest[0] == "releases":
            return try await createRelease(request)
        case ("GET", 2) where rest[0] == "releases":
            guard let release = lock.withLock({ releases[rest[1]] }) else { return notFound() }
            return Reply.json(200, releaseJSON(release))
        case ("PUT", 2) where rest[0] == "releases":
            guard let payload = try await jsonBody(request) else { return Reply.json(400, ["error": "the body is not JSON"]) }
            if let unknown = payload.keys.first(where: { !["name", "description", "milestones", "released_at"].contains($0) }) {
                return Reply.json(400, ["error": "\(unknown) does not have a valid value"])
            }
            let updated: Release? = lock.withLock {
                guard var release = releases[rest[1]] else { return nil }
                if let name = payload["name"] as? String { release.name = name }
                if let description = payload["description"] as? String { release.description = description }
                releases[rest[1]] = release
                return release
            }
            return updated.map { Reply.json(200, releaseJSON($0)) } ?? notFound()
        case ("DELETE", 2) where rest[0] == "releases":
            guard let removed = lock.withLock({ releases.removeValue(forKey: rest[1]) }) else { return notFound() }
            return Reply.json(200, releaseJSON(removed))
        case ("GET", 4) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            guard let release = lock.withLock({ releases[rest[1]] }) else { return notFound() }
            return page(release.links.map(linkJSON), query: query)
        case ("POST", 4) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            guard let payload = try await jsonBody(request) else { return Reply.json(400, ["error": "the body is not JSON"]) }
            return addLink(tag: rest[1], payload)
        case ("DELETE", 5) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            let removed: Link? = lock.withLock {
                guard var release = releases[rest[1]], let index = release.links.firstIndex(where: { String($0.id) == rest[4] }) else { return nil }
                let link = release.links.remove(at: index)
                releases[rest[1]] = release
                return link
            }
            return removed.map { Reply.json(200, linkJSON($0)) } ?? notFound()
        case ("PUT", 5) where rest[0] == "packages" && rest[1] == "generic":
            return try await upload(request, package: rest[2], version: rest[3], fileName: rest[4], query: query)
        case ("GET", 1) where rest[0] == "packages":
            guard query["package_type"] == nil || ["generic"].contains(query["package_type"]) else {
                return Reply.json(400, ["error": "package_type does not have a valid value"])
            }
            let list = lock.withLock {
                packages.filter { ($0.name == query["package_name"] || query["package_name"] == nil)
                    && ($0.version == query["package_version"] || query["package_version"] == nil) }
            }
            return page(list.map { ["id": $0.id, "name": $0.name, "version": $0.version, "package_type": "generic"] as [String: Any] }, query: query)
        case ("GET", 3) where rest[0] == "packages" && rest[2] == "package_files":
            guard let packageID = Int(rest[1]), lock.withLock({ packages.contains { $0.id == packageID } }) else { return notFound() }
            let list = lock.withLock { files.filter { $0.packageID == packageID } }
            return page(list.map(fileJSON), query: query)
        case ("DELETE", 4) where rest[0] == "packages" && rest[2] == "package_files":
            let removed = lock.withLock { () -> Bool in
                guard let index = files.firstIndex(where: { String($0.id) == rest[3] && String($0.packageID) == rest[1] }) else { return false }
                files.remove(at: index)
                return true
            }
            return removed ? Reply.empty(204) : notFound()
        default:
            return notFound()
        }
    }

    private func hasTag(_ tag: String) -> Bool {
        lock.withLock { tags.contains(tag) } || (pushedTags?(tag) ?? false)
    }

    private func jsonBody(_ request: Request) async throws -> [String: Any]? {
        let (bytes, _) = try await request.readBody()
        guard request.header("Content-Type")?.hasPrefix("application/json") == true else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }

    private static let releaseParameters: Set<String> = ["tag_name", "name", "tag_message", "description", "ref", "milestones", "assets", "released_at"]
    private static let linkParameters: Set<String> = ["name", "url", "direct_asset_path", "filepath", "link_type"]
    private static let linkTypes: Set<String> = ["other", "runbook", "image", "package"]

    private func createRelease(_ request: Request) async throws -> Response {
        guard let payload = try await jsonBody(request) else { return Reply.json(400, ["error": "the body is not JSON"]) }
        if let unknown = payload.keys.sorted().first(where: { !Self.releaseParameters.contains($0) }) {
            return Reply.json(400, ["error": "\(unknown) does not have a valid value"])
        }
        guard let tag = payload["tag_name"] as? String, !tag.isEmpty else { return Reply.json(400, ["error": "tag_name is missing"]) }
        var links: [Link] = []
        if let assets = payload["assets"] {
            guard let assets = assets as? [String: Any], Set(assets.keys).isSubset(of: ["links"]),
                  let items = (assets["links"] ?? []) as? [[String: Any]] else {
                return Reply.json(400, ["error": "assets[links] is invalid"])
            }
            for item in items {
                switch validateLink(item) {
                case .failure(let error): return error.response
                case .success(let link): links.append(link)
                }
            }
            if Set(links.map(\.name)).count != links.count { return Reply.json(400, ["message": ["links": ["name has already been taken"]]]) }
        }
        let titles = payload["milestones"] as? [String] ?? []
        let tagPushed = pushedTags?(tag) ?? false
        enum Outcome { case created(Release), exists, noTag, missingMilestone(String) }
        let outcome: Outcome = lock.withLock {
            if releases[tag] != nil { return .exists }
            if !tags.contains(tag) && !tagPushed {
                guard payload["ref"] is String else { return .noTag }
                tags.insert(tag)
            }
            if let missing = titles.first(where: { !milestones.contains($0) }) { return .missingMilestone(missing) }
            for index in links.indices {
                links[index].id = nextID
                nextID += 1
            }
            let release = Release(tag: tag, name: payload["name"] as? String ?? tag, description: payload["description"] as? String ?? "",
                                  milestones: titles, links: links)
            releases[tag] = release
            return .created(release)
        }
        switch outcome {
        case .created(let release): return Reply.json(201, releaseJSON(release))
        case .exists: return Reply.json(409, ["message": "Release already exists"])
        case .noTag: return Reply.json(422, ["message": "Ref is not specified"])
        case .missingMilestone(let title): return Reply.json(400, ["message": "Milestone(s) not found: \(title)"])
        }
    }

    private func validateLink(_ item: [String: Any]) -> Result<Link, ResponseError> {
        if let unknown = item.keys.sorted().first(where: { !Self.linkParameters.contains($0) }) {
            return .failure(ResponseError(Reply.json(400, ["error": "\(unknown) does not have a valid value"])))
        }
        guard let name = item["name"] as? String, !name.isEmpty else { return .failure(ResponseError(Reply.json(400, ["error": "name is missing"]))) }
        guard let url = item["url"] as? String, ["http://", "https://", "ftp://"].contains(where: url.hasPrefix) else {
            return .failure(ResponseError(Reply.json(400, ["message": ["url": ["is blocked: Only allowed schemes are http, https, ftp"]]])))
        }
        let type = item["link_type"] as? String ?? "other"
        guard Self.linkTypes.contains(type) else { return .failure(ResponseError(Reply.json(400, ["error": "link_type does not have a valid value"]))) }
        if let path = item["direct_asset_path"] as? String, !path.hasPrefix("/") {
            return .failure(ResponseError(Reply.json(400, ["message": ["filepath": ["is in an invalid format"]]])))
        }
        return .success(Link(id: 0, name: name, url: url, directAssetPath: item["direct_asset_path"] as? String, linkType: type))
    }

    struct ResponseError: Error { let response: Response; init(_ response: Response) { self.response = response } }

    private func addLink(tag: String, _ payload: [String: Any]) -> Response {
        let link: Link
        switch validateLink(payload) {
        case .failure(let error): return error.response
        case .success(let valid): link = valid
        }
        enum Outcome { case added(Link), missing, nameTaken, urlTaken }
        let outcome: Outcome = lock.withLock {
            guard var release = releases[tag] else { return .missing }
            if release.links.contains(where: { $0.name == link.name }) { return .nameTaken }
            if release.links.contains(where: { $0.url == link.url }) { return .urlTaken }
            var added = link
            added.id = nextID
            nextID += 1
            release.links.append(added)
            releases[tag] = release
            return .added(added)
        }
        switch outcome {
        case .added(let added): return Reply.json(201, linkJSON(added))
        case .missing: return notFound()
        case .nameTaken: return Reply.json(400, ["message": ["name": ["has already been taken"]]])
        case .urlTaken: return Reply.json(400, ["message": ["url": ["has already been taken"]]])
        }
    }

    private static func validName(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("..") && text.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+").contains($0) }
    }

    private func upload(_ request: Request, package: String, version: String, fileName: String, query: [String: String]) async throws -> Response {
        let (bytes, count) = try await request.readBody(keeping: 64 << 20)
        guard Self.validName(package) else { return Reply.json(400, ["error": "package_name is invalid"]) }
        guard Self.validName(version) else { return Reply.json(400, ["error": "package_version is invalid"]) }
        guard Self.validName(fileName) else { return Reply.json(400, ["error": "file_name is invalid"]) }
        if let declared = request.header("Content-Length").flatMap(Int.init), declared != count {
            return Reply.json(400, ["message": "400 Bad request - Content-Length does not match"])
        }
        guard query["status"] == nil || ["default", "hidden"].contains(query["status"]) else {
            return Reply.json(400, ["error": "status does not have a valid value"])
        }
        let stored = lock.withLock { storeFile(package: package, version: version, name: fileName, bytes: bytes) }
        if query["select"] == "package_file" { return Reply.json(201, fileJSON(stored)) }
        guard query["select"] == nil else { return Reply.json(400, ["error": "select does not have a valid value"]) }
        return Reply.json(201, ["message": "201 Created"])
    }

    /// Must be called under `lock`.
    private func storeFile(package: String, version: String, name: String, bytes: [UInt8]) -> PackageFile {
        let packageID: Int
        if let existing = packages.first(where: { $0.name == package && $0.version == version }) {
            packageID = existing.id
        } else {
            packageID = nextID
            nextID += 1
            packages.append(Package(id: packageID, name: package, version: version))
        }
        let file = PackageFile(id: nextID, packageID: packageID, name: name, bytes: bytes)
        nextID += 1
        files.append(file)
        return file
    }

    private func page(_ items: [[String: Any]], query: [String: String]) -> Response {
        let perPage = min(pageSize, max(1, Int(query["per_page"] ?? "20") ?? 20))
        let pageNumber = max(1, Int(query["page"] ?? "1") ?? 1)
        let start = (pageNumber - 1) * perPage
        let slice = start < items.count ? Array(items[start..<min(items.count, start + perPage)]) : []
        let totalPages = max(1, (items.count + perPage - 1) / perPage)
        var headers = ["X-Page": String(pageNumber), "X-Per-Page": String(perPage), "X-Total": String(items.count),
                       "X-Total-Pages": String(totalPages), "X-Next-Page": ""]
        if pageNumber < totalPages { headers["X-Next-Page"] = String(pageNumber + 1) }
        return Reply.json(200, slice, headers: headers)
    }

    private func releaseJSON(_ release: Release) -> [String: Any] {
        [
            "tag_name": release.tag, "name": release.name, "description": release.description,
            "milestones": release.milestones.map { ["title": $0] },
            "assets": ["count": release.links.count, "sources": [], "links": release.links.map(linkJSON)],
            "_links": ["self": "https://gitlab.example.com/\(projectPath)/-/releases/\(release.tag)"],
        ]
    }

    private func linkJSON(_ link: Link) -> [String: Any] {
        var json: [String: Any] = ["id": link.id, "name": link.name, "url": link.url, "link_type": link.linkType]
        if let path = link.directAssetPath {
            json["direct_asset_url"] = "https://gitlab.example.com/\(projectPath)/-/releases/x/downloads\(path)"
        }
        return json
    }

    private func fileJSON(_ file: PackageFile) -> [String: Any] {
        ["id": file.id, "package_id": file.packageID, "file_name": file.name, "size": file.bytes.count,
         "file_sha256": SHA256.hex(of: file.bytes), "file_md5": NSNull(), "file_sha1": NSNull()]
    }
}

/// Runs `body` with a started GitLab stand-in, stopped afterwards.
@discardableResult
func withFakeGitLab<T>(_ body: (FakeGitLab) async throws -> T) async throws -> T {
    let gitlab = FakeGitLab()
    try await gitlab.start()
    defer { gitlab.stop() }
    return try await body(gitlab)
}
