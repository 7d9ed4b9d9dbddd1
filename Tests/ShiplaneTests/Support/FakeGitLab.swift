import Foundation
import HTTPTypes
import Shiplane
import Hummingbird
import NIOCore
import Testing

/// An in-process model of GitLab's REST API (v4) for releases, release links, the generic package
/// registry, tags and milestones, checked against GitLab's published description
/// (`OpenAPIDescription.gitLab`: the operations it serves, transcribed from doc/api/openapi/openapi_v2.yaml,
/// with what that file lacks taken from GitLab's documentation, as the fixture says): every request
/// past the token and project checks is matched to an operation, its path and query parameters and
/// JSON body checked, and every answer checked against the schema documented for its status (an
/// error body, which the description documents without one, against GitLab's error object). A
/// violation is recorded and fails the test when the stand-in stops; a request the description
/// refuses is answered 400 `{"error": …}` as Grape refuses one. Not checked: refused tokens (401), an
/// unknown project (404), injected faults. Models, following GitLab's API documentation: the token in
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
    /// When set, a generic package download answers 302 to `OBJECT_STORAGE/FILE_ID/NAME`, as an
    /// instance with object storage and `proxy_download: false` (the default) does.
    var objectStorage: String?
    /// The merge requests API, when a test serves it (a Homebrew tap's merge request).
    var mergeRequests: FakeGitLabMergeRequests?
    /// When set, the web routes (permalinks, uploads) want a browser session: a request with a
    /// token is redirected to `/users/sign_in`, as GitLab answers an unauthenticated request for a
    /// private project's page.
    var webRoutesNeedSignIn = false

    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var releases: [String: Release] = [:]
    private var packages: [Package] = []
    private var files: [PackageFile] = []
    private var tags: Set<String> = []
    private var tagCommits: [String: String] = [:]
    private var milestones: Set<String> = []
    private var nextID = 1
    private var uploads: [String: [UInt8]] = [:]
    private var requestLog: [String] = []
    private var headersSeen: [[String: String]] = []
    let faults = StandInFaults()

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }
    var apiURL: String { baseURL + "/api/v4" }

    /// GitLab's published description, which every API request and answer is checked against.
    let description = OpenAPIDescription.gitLab
    /// What the description check found; `stop()` fails the test on any violation.
    let ledger = DescriptionLedger()
    var violations: [String] { ledger.violations }
    /// The violations so far, forgotten (for a test that breaks the description on purpose).
    func takeViolations() -> [String] { ledger.take() }

    init(projectPath: String = "acme/rocket", token: String = "glpat-FakeGitLabToken0123456789", jobToken: String = "glcbt-FakeJobToken0123456789ab") {
        self.projectPath = projectPath
        self.token = token
        self.jobToken = jobToken
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    /// Stops the server; a violation of the description found meanwhile fails the running test.
    func stop() {
        server?.stop()
        ledger.finish("GitLab", descriptionLoaded: description != nil)
    }

    // MARK: - Inspection and setup

    var log: [String] { lock.withLock { requestLog } }
    var allReleases: [Release] { lock.withLock { releases.values.sorted { $0.tag < $1.tag } } }
    var allFiles: [PackageFile] { lock.withLock { files } }
    var requestHeaders: [[String: String]] { lock.withLock { headersSeen } }
    func addTag(_ tag: String) { lock.withLock { _ = tags.insert(tag) } }
    /// A tag whose answer names its commit (`commit.id`), as GitLab's tag answer does.
    func addTag(_ tag: String, commit: String) { lock.withLock { tags.insert(tag); tagCommits[tag] = commit } }
    /// A link on a release added with `addRelease`, as `POST .../assets/links` would make it;
    /// with `directAssetPath` (`/NAME`), its permalink `/PROJECT/-/releases/TAG/downloads/NAME`
    /// (`direct_asset_url`) redirects to `url`.
    func addLink(tag: String, name: String, url: String, directAssetPath: String? = nil) {
        lock.withLock {
            releases[tag]?.links.append(Link(id: nextID, name: name, url: url, directAssetPath: directAssetPath, linkType: "other"))
            nextID += 1
        }
    }
    /// A file uploaded to the project (a Markdown upload), served at the address returned:
    /// `/-/project/ID/uploads/SECRET/NAME`, to a request with the token only.
    func addUpload(name: String, bytes: [UInt8]) -> String {
        let path = "/-/project/\(projectID)/uploads/\(SHA256.hex(of: bytes).prefix(32))/\(name)"
        lock.withLock { uploads[path] = bytes }
        return baseURL + path
    }
    /// Removes every package file named `name` (as `DELETE .../package_files/ID` does for each).
    func removePackageFiles(named name: String) { lock.withLock { files.removeAll { $0.name == name } } }
    /// The generic package download address of a file, as a link would name it.
    func packageFileURL(package: String, version: String, name: String) -> String {
        "\(apiURL)/projects/\(projectID)/packages/generic/\(package)/\(version)/\(name)"
    }
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
        let recorded = RecordedAnswer()
        var response = try await RecordedAnswer.$current.withValue(recorded) {
            try await faults.apply(request, context, method: method, target: target) {
                try await route(request, method: method, segments: segments, query: query)
            }
        }
        if let operation = recorded.operation, let answer = recorded.answer {
            ledger.answer(problems: checkAnswer(answer.status, answer.body, to: operation))
        }
        // GitLab.com's rate-limit headers on every answer (a fault's own headers win).
        let used = lock.withLock { requestLog.count }
        for (name, value) in [("RateLimit-Limit", "2000"), ("RateLimit-Observed", String(used)),
                              ("RateLimit-Remaining", String(max(0, 2000 - used))), ("RateLimit-Reset", String(Int(Date().timeIntervalSince1970) + 60))] {
            if let field = HTTPField.Name(name), response.headers[field] == nil { response.headers[field] = value }
        }
        return response
    }

    private func notFound(_ what: String = "") -> Response { json(404, ["message": "404 \(what.isEmpty ? "" : what + " ")Not Found"]) }

    /// A JSON answer, kept for the description's check.
    private func json(_ status: Int, _ body: Any, headers: [String: String] = [:]) -> Response {
        RecordedAnswer.current?.record(status, body)
        return Reply.json(status, body, headers: headers)
    }

    /// An answer without a body, kept for the description's check.
    private func empty(_ status: Int) -> Response {
        RecordedAnswer.current?.record(status, nil)
        return Reply.empty(status)
    }

    /// Matches the request to the description's operation and checks it; a request it refuses is
    /// recorded and answered 400 as Grape refuses a parameter. `body` is the JSON body, or an upload's bytes.
    private func checkRequest(_ request: Request, method: String, query: [String: String], body: [UInt8]) -> Response? {
        guard let description else { return nil }
        let rawPath = String(request.uri.description.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/")
        let (operation, problems) = description.check(method: method, path: rawPath, query: query, body: body)
        ledger.request(operation.map { "\($0.method) \($0.template)" }, problems: problems)
        guard problems.isEmpty else { return Reply.json(400, ["error": problems.joined(separator: "; ")]) }
        RecordedAnswer.current?.operation = operation
        return nil
    }

    /// What is wrong with an answer: the status must be documented; a body where the description
    /// documents none must be an error answer in GitLab's error form.
    private func checkAnswer(_ status: Int, _ body: Any?, to operation: OpenAPIDescription.Operation) -> [String] {
        guard let description else { return [] }
        let documented = (operation.object["responses"] as? [String: Any])?[String(status)] as? [String: Any]
        guard let body, status >= 400, documented != nil, documented?["content"] == nil else {
            return description.check(answer: status, body: body, to: operation)
        }
        return description.validate(body, ["$ref": "#/components/schemas/gitlab_error"], at: "\(operation.method) \(operation.template) answer \(status)")
    }

    private func route(_ request: Request, method: String, segments: [String], query: [String: String]) async throws -> Response {
        guard request.header("PRIVATE-TOKEN") == token || request.header("JOB-TOKEN") == jobToken else {
            _ = try await request.readBody(keeping: 0)
            return Reply.json(401, ["message": "401 Unauthorized"])
        }
        let isJobToken = request.header("JOB-TOKEN") == jobToken
        if segments.first != "api" { return try await webRoute(request, segments: segments) }
        guard segments.count >= 4, segments[0] == "api", segments[1] == "v4", segments[2] == "projects",
              segments[3] == String(projectID) || segments[3] == projectPath else {
            _ = try await request.readBody(keeping: 0)
            return Reply.json(404, ["message": "404 Project Not Found"])
        }
        let rest = Array(segments.dropFirst(4))
        let isUpload = method == "PUT" && rest.count >= 2 && rest[0] == "packages" && rest[1] == "generic"
        // JSON bodies are read here, once, for the check; an upload's bytes are read by `upload`, which checks it.
        let bytes = isUpload ? [] : try await request.readBody().bytes
        if !isUpload, let refusal = checkRequest(request, method: method, query: query, body: bytes) { return refusal }
        if rest.first == "merge_requests", let mergeRequests {
            let (status, body) = mergeRequests.route(method: method, rest: Array(rest.dropFirst()), query: query, payload: jsonBody(request, bytes),
                                                     projectID: projectID, baseURL: baseURL)
            return json(status, body)
        }
        switch (method, rest.count) {
        case ("GET", 3) where rest[0] == "repository" && rest[1] == "tags":
            if isJobToken && jobTokenCannotReadTags { return json(403, ["message": "403 Forbidden"]) }
            guard hasTag(rest[2]) else { return notFound("Tag") }
            let commit = lock.withLock { tagCommits[rest[2]] }
            return json(200, commit.map { ["name": rest[2], "commit": ["id": $0]] } ?? ["name": rest[2]])
        case ("GET", 1) where rest[0] == "milestones":
            let title = query["title"]
            let list = lock.withLock { milestones.filter { title == nil || $0 == title }.sorted() }
            // Only the members whose type the description and GitLab's answers agree on (it types `id` as a string).
            return json(200, list.map { ["title": $0, "state": "active"] })
        case ("GET", 1) where rest[0] == "releases":
            let all = lock.withLock { releases.values.sorted { $0.tag < $1.tag } }
            return page(all.map(releaseJSON), query: query)
        case ("POST", 1) where rest[0] == "releases":
            return createRelease(request, body: bytes)
        case ("GET", 2) where rest[0] == "releases":
            guard let release = lock.withLock({ releases[rest[1]] }) else { return notFound() }
            return json(200, releaseJSON(release))
        case ("PUT", 2) where rest[0] == "releases":
            guard let payload = jsonBody(request, bytes) else { return json(400, ["error": "the body is not JSON"]) }
            let updated: Release? = lock.withLock {
                guard var release = releases[rest[1]] else { return nil }
                if let name = payload["name"] as? String { release.name = name }
                if let description = payload["description"] as? String { release.description = description }
                releases[rest[1]] = release
                return release
            }
            return updated.map { json(200, releaseJSON($0)) } ?? notFound()
        case ("DELETE", 2) where rest[0] == "releases":
            // The description documents 204 (GitLab.com answers 200 with the release; a client takes either).
            guard lock.withLock({ releases.removeValue(forKey: rest[1]) }) != nil else { return notFound() }
            return empty(204)
        case ("GET", 4) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            guard let release = lock.withLock({ releases[rest[1]] }) else { return notFound() }
            return page(release.links.map { linkJSON($0, tag: release.tag) }, query: query)
        case ("POST", 4) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            guard let payload = jsonBody(request, bytes) else { return json(400, ["error": "the body is not JSON"]) }
            return addLink(tag: rest[1], payload)
        case ("DELETE", 5) where rest[0] == "releases" && rest[2] == "assets" && rest[3] == "links":
            let removed: Link? = lock.withLock {
                guard var release = releases[rest[1]], let index = release.links.firstIndex(where: { String($0.id) == rest[4] }) else { return nil }
                let link = release.links.remove(at: index)
                releases[rest[1]] = release
                return link
            }
            // The description documents 204 for a removed link.
            return removed == nil ? notFound() : empty(204)
        case ("PUT", 5) where rest[0] == "packages" && rest[1] == "generic":
            return try await upload(request, package: rest[2], version: rest[3], fileName: rest[4], query: query)
        case ("GET", 5) where rest[0] == "packages" && rest[1] == "generic":
            let found = lock.withLock {
                files.last { file in file.name == rest[4] && packages.contains { $0.id == file.packageID && $0.name == rest[2] && $0.version == rest[3] } }
            }
            guard let found else { return notFound() }
            if let objectStorage {
                RecordedAnswer.current?.record(302, nil)
                return Reply.empty(302, headers: ["Location": "\(objectStorage)/\(found.id)/\(found.name)"])
            }
            RecordedAnswer.current?.record(200, nil)
            return Reply.raw(200, found.bytes, contentType: "application/octet-stream", headers: [:])
        case ("GET", 1) where rest[0] == "packages":
            let list = lock.withLock {
                packages.filter { ($0.name == query["package_name"] || query["package_name"] == nil)
                    && ($0.version == query["package_version"] || query["package_version"] == nil) }
            }
            return page(list.map { ["id": $0.id, "name": $0.name, "version": $0.version, "package_type": "generic", "status": "default"] as [String: Any] }, query: query)
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
            return removed ? empty(204) : notFound()
        default:
            return notFound()
        }
    }

    /// The web routes a release's files are downloaded from (not part of the REST API, so not in
    /// its description), as GitLab's release documentation describes them: a link's permalink
    /// `/PROJECT/-/releases/TAG/downloads/FILEPATH` redirects (302) to the link's URL, and a
    /// project upload `/-/project/ID/uploads/SECRET/NAME` is served as it is; both for the token
    /// (the project is private).
    private func webRoute(_ request: Request, segments: [String]) async throws -> Response {
        _ = try await request.readBody(keeping: 0)
        if webRoutesNeedSignIn { return Reply.empty(302, headers: ["Location": baseURL + "/users/sign_in"]) }
        if let dash = segments.firstIndex(of: "-"), dash > 0, segments[..<dash].joined(separator: "/") == projectPath,
           segments.count > dash + 4, segments[dash + 1] == "releases", segments[dash + 3] == "downloads" {
            let filepath = "/" + segments[(dash + 4)...].joined(separator: "/")
            let link = lock.withLock { releases[segments[dash + 2]]?.links.first { $0.directAssetPath == filepath } }
            guard let link else { return Reply.text(404, "The page could not be found", contentType: "text/html") }
            return Reply.empty(302, headers: ["Location": link.url])
        }
        let path = "/" + segments.joined(separator: "/")
        guard let bytes = lock.withLock({ uploads[path] }) else { return Reply.text(404, "The page could not be found", contentType: "text/html") }
        return Reply.raw(200, bytes, contentType: "application/octet-stream", headers: [:])
    }

    private func hasTag(_ tag: String) -> Bool {
        lock.withLock { tags.contains(tag) } || (pushedTags?(tag) ?? false)
    }

    private func jsonBody(_ request: Request, _ bytes: [UInt8]) -> [String: Any]? {
        guard request.header("Content-Type")?.hasPrefix("application/json") == true else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }

    private static let linkTypes: Set<String> = ["other", "runbook", "image", "package"]

    private func createRelease(_ request: Request, body: [UInt8]) -> Response {
        guard let payload = jsonBody(request, body) else { return json(400, ["error": "the body is not JSON"]) }
        guard let tag = payload["tag_name"] as? String, !tag.isEmpty else { return json(400, ["error": "tag_name is missing"]) }
        var links: [Link] = []
        if let assets = payload["assets"] {
            guard let assets = assets as? [String: Any], let items = (assets["links"] ?? []) as? [[String: Any]] else {
                return json(400, ["error": "assets[links] is invalid"])
            }
            for item in items {
                switch validateLink(item) {
                case .failure(let error): return error.response
                case .success(let link): links.append(link)
                }
            }
            if Set(links.map(\.name)).count != links.count { return json(400, ["message": ["links": ["name has already been taken"]]]) }
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
        case .created(let release): return json(201, releaseJSON(release))
        case .exists: return json(409, ["message": "Release already exists"])
        case .noTag: return json(422, ["message": "Ref is not specified"])
        case .missingMilestone(let title): return json(400, ["message": "Milestone(s) not found: \(title)"])
        }
    }

    private func validateLink(_ item: [String: Any]) -> Result<Link, ResponseError> {
        guard let name = item["name"] as? String, !name.isEmpty else { return .failure(ResponseError(json(400, ["error": "name is missing"]))) }
        guard let url = item["url"] as? String, ["http://", "https://", "ftp://"].contains(where: url.hasPrefix) else {
            return .failure(ResponseError(json(400, ["message": ["url": ["is blocked: Only allowed schemes are http, https, ftp"]]])))
        }
        let type = item["link_type"] as? String ?? "other"
        guard Self.linkTypes.contains(type) else { return .failure(ResponseError(json(400, ["error": "link_type does not have a valid value"]))) }
        if let path = item["direct_asset_path"] as? String, !path.hasPrefix("/") {
            return .failure(ResponseError(json(400, ["message": ["filepath": ["is in an invalid format"]]])))
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
        case .added(let added): return json(201, linkJSON(added, tag: tag))
        case .missing: return notFound()
        case .nameTaken: return json(400, ["message": ["name": ["has already been taken"]]])
        case .urlTaken: return json(400, ["message": ["url": ["has already been taken"]]])
        }
    }

    private static func validName(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("..") && text.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+").contains($0) }
    }

    private func upload(_ request: Request, package: String, version: String, fileName: String, query: [String: String]) async throws -> Response {
        let (bytes, count) = try await request.readBody(keeping: 64 << 20)
        if let refusal = checkRequest(request, method: "PUT", query: query, body: bytes) { return refusal }
        guard Self.validName(package) else { return json(400, ["error": "package_name is invalid"]) }
        guard Self.validName(version) else { return json(400, ["error": "package_version is invalid"]) }
        guard Self.validName(fileName) else { return json(400, ["error": "file_name is invalid"]) }
        if let declared = request.header("Content-Length").flatMap(Int.init), declared != count {
            return json(400, ["message": "400 Bad request - Content-Length does not match"])
        }
        let stored = lock.withLock { storeFile(package: package, version: version, name: fileName, bytes: bytes) }
        if query["select"] == "package_file" { return json(201, fileJSON(stored)) }
        // Without `select`, GitLab answers 201 {"message": "201 Created"}, a body the description does not give 201.
        return json(201, ["message": "201 Created"])
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
        return json(200, slice, headers: headers)
    }

    private func releaseJSON(_ release: Release) -> [String: Any] {
        [
            "tag_name": release.tag, "name": release.name, "description": release.description,
            "milestones": release.milestones.map { ["title": $0] },
            "assets": ["count": release.links.count, "sources": [], "links": release.links.map { linkJSON($0, tag: release.tag) }],
            "_links": ["self": "https://gitlab.example.com/\(projectPath)/-/releases/\(release.tag)"],
        ]
    }

    private func linkJSON(_ link: Link, tag: String) -> [String: Any] {
        var json: [String: Any] = ["id": link.id, "name": link.name, "url": link.url, "link_type": link.linkType]
        if let path = link.directAssetPath {
            json["direct_asset_url"] = "\(baseURL)/\(projectPath)/-/releases/\(tag)/downloads\(path)"
        }
        return json
    }

    private func fileJSON(_ file: PackageFile) -> [String: Any] {
        // No file_md5 or file_sha1 (GitLab leaves them null on FIPS instances; the description types them as strings).
        ["id": file.id, "package_id": file.packageID, "file_name": file.name, "size": file.bytes.count,
         "file_sha256": SHA256.hex(of: file.bytes), "created_at": "2026-01-01T00:00:00Z"]
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
