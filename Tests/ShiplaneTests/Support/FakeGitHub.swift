import Foundation
import Shiplane
import Hummingbird
import NIOCore

/// An in-process model of GitHub's releases REST API with fault injection.
///
/// Models: token check (401), repository visibility (404), missing permission (403 with
/// `x-accepted-github-permissions`), releases by tag (drafts hidden), paginated lists with `Link`
/// headers, 422 `already_exists`, uploads to the `upload_url` template on the same server (checking
/// Content-Length against the bytes received), asset rename and delete.
final class FakeGitHub: @unchecked Sendable {
    struct Release {
        var id: Int
        var tag: String
        var name: String
        var body: String
        var draft: Bool
        var prerelease: Bool
    }

    struct Asset {
        var id: Int
        var releaseID: Int
        var name: String
        var size: Int
        var contentType: String
        var bytes: [UInt8]
        var state = "uploaded"
    }

    /// What to do to the next matching requests.
    struct Fault {
        enum Action {
            case status(Int, headers: [String: String], body: String, contentType: String)
            case delay(seconds: Double)
            case reset
            /// Handle the request fully, then close the connection instead of answering.
            case dropResponse
            /// Handle the request fully, then wait this long before answering (a slow answer,
            /// for killing the client while its request has landed but its answer has not).
            case answerLate(seconds: Double)
        }
        var method: String?
        var pathContains: String
        var remaining: Int
        var action: Action
    }

    let owner: String
    let repo: String
    let token: String
    private let lock = NSLock()
    private var releases: [Int: Release] = [:]
    private var assets: [Int: Asset] = [:]
    private var nextID = 1
    private let faults = StandInFaults()
    private var requestLog: [String] = []
    private var uploadByteCounts: [String: Int] = [:]
    /// Largest page the server returns, whatever `per_page` asks (small values exercise pagination).
    var pageSize = 100
    /// When set, repository reads answer 403 with this `x-accepted-github-permissions` value.
    var missingPermission: String?
    /// When set, every API request is answered with this HTML page (a misconfigured proxy).
    var htmlPage: String?
    /// When true, error bodies echo the Authorization header back (a careless proxy).
    var echoAuthorizationInErrors = false

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }

    init(owner: String = "acme", repo: String = "rocket", token: String = "ghp_FakeTokenForTests1234567890abcd") {
        self.owner = owner
        self.repo = repo
        self.token = token
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in
            try await self.handle(request, context)
        }
    }

    func stop() { server?.stop() }

    // MARK: - Inspection and setup

    var log: [String] { lock.withLock { requestLog } }
    var allReleases: [Release] { lock.withLock { releases.values.sorted { $0.id < $1.id } } }
    var allAssets: [Asset] { lock.withLock { assets.values.sorted { $0.id < $1.id } } }
    func uploadedByteCount(_ name: String) -> Int? { lock.withLock { uploadByteCounts[name] } }

    func inject(_ fault: Fault) { faults.inject(fault) }

    func failNext(_ count: Int, method: String? = nil, path: String, status: Int = 502, headers: [String: String] = [:],
                  body: String = "<html><body>502 Bad Gateway</body></html>", contentType: String = "text/html") {
        inject(Fault(method: method, pathContains: path, remaining: count,
                     action: .status(status, headers: headers, body: body, contentType: contentType)))
    }

    /// The commits refs (tags) name, for `GET /repos/{owner}/{repo}/commits/{ref}`.
    private var refCommits: [String: String] = [:]
    func setCommit(_ sha: String, forRef ref: String) { lock.withLock { refCommits[ref] = sha } }

    @discardableResult
    func addRelease(tag: String, draft: Bool, name: String? = nil) -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            releases[id] = Release(id: id, tag: tag, name: name ?? tag, body: "", draft: draft, prerelease: false)
            return id
        }
    }

    @discardableResult
    func addAsset(releaseID: Int, name: String, bytes: [UInt8], state: String = "uploaded") -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            assets[id] = Asset(id: id, releaseID: releaseID, name: name, size: bytes.count, contentType: "application/octet-stream",
                               bytes: bytes, state: state)
            return id
        }
    }

    // MARK: - Handling

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let method = request.method.rawValue
        let (path, query) = request.pathAndQuery
        let target = path + (query["name"].map { "?name=\($0)" } ?? "")
        lock.withLock { requestLog.append("\(method) \(target)") }
        return try await faults.apply(request, context, method: method, target: target) {
            try await route(request, method: method, path: path, query: query)
        }
    }

    private func route(_ request: Request, method: String, path: String, query: [String: String]) async throws -> Response {
        if let htmlPage { return Reply.text(200, htmlPage, contentType: "text/html; charset=utf-8") }
        if method == "GET", let answer = download(request, path: path) { return answer }
        guard request.header("Authorization") == "Bearer \(token)" else {
            var body: [String: Any] = ["message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"]
            if echoAuthorizationInErrors { body["message"] = "Bad credentials: \(request.header("Authorization") ?? "")" }
            return Reply.json(401, body)
        }
        let parts = path.split(separator: "/").map(String.init)
        let isUpload = parts.first == "uploads"
        let apiParts = isUpload ? Array(parts.dropFirst()) : parts
        guard apiParts.count >= 3, apiParts[0] == "repos", apiParts[1] == owner, apiParts[2] == repo else {
            return Reply.json(404, ["message": "Not Found", "documentation_url": "https://docs.github.com/rest"])
        }
        let rest = Array(apiParts.dropFirst(3))
        switch (method, rest.count, isUpload) {
        case ("GET", 0, false):
            if let missingPermission {
                return Reply.json(403, ["message": "Resource not accessible by personal access token"],
                                  headers: ["x-accepted-github-permissions": missingPermission])
            }
            return Reply.json(200, ["id": 42, "full_name": "\(owner)/\(repo)", "name": repo])
        case ("GET", 2, false) where rest[0] == "commits":
            // GET /repos/{owner}/{repo}/commits/{ref}: the commit a tag (or branch) names.
            let ref = rest[1].removingPercentEncoding ?? rest[1]
            guard let sha = lock.withLock({ refCommits[ref] }) else {
                return Reply.json(422, ["message": "No commit found for SHA: \(ref)", "documentation_url": "https://docs.github.com/rest/commits/commits#get-a-commit"])
            }
            return Reply.json(200, ["sha": sha, "url": "\(baseURL)/repos/\(owner)/\(repo)/commits/\(sha)", "commit": ["message": "release"]])
        case ("GET", 3, false) where rest[0] == "releases" && rest[1] == "tags":
            let tag = rest[2].removingPercentEncoding ?? rest[2]
            guard let found = lock.withLock({ releases.values.first { $0.tag == tag && !$0.draft } }) else {
                return Reply.json(404, ["message": "Not Found"])
            }
            return Reply.json(200, releaseJSON(found))
        case ("GET", 1, false) where rest[0] == "releases":
            let all = lock.withLock { releases.values.sorted { $0.id > $1.id } }
            return page(all.map(releaseJSON), query: query, path: path)
        case ("POST", 1, false) where rest[0] == "releases":
            let (bytes, _) = try await request.readBody()
            guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                  let tag = payload["tag_name"] as? String else {
                return Reply.json(400, ["message": "Problems parsing JSON"])
            }
            let created: Release? = lock.withLock {
                if releases.values.contains(where: { $0.tag == tag }) { return nil }
                let id = nextID
                nextID += 1
                let release = Release(id: id, tag: tag, name: payload["name"] as? String ?? tag, body: payload["body"] as? String ?? "",
                                      draft: payload["draft"] as? Bool ?? false, prerelease: payload["prerelease"] as? Bool ?? false)
                releases[id] = release
                return release
            }
            guard let created else {
                return Reply.json(422, ["message": "Validation Failed",
                                        "errors": [["resource": "Release", "code": "already_exists", "field": "tag_name"]]])
            }
            return Reply.json(201, releaseJSON(created))
        case ("PATCH", 2, false) where rest[0] == "releases":
            let (bytes, _) = try await request.readBody()
            let payload = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
            let updated: Release? = lock.withLock {
                guard let id = Int(rest[1]), var release = releases[id] else { return nil }
                if let draft = payload["draft"] as? Bool { release.draft = draft }
                if let name = payload["name"] as? String { release.name = name }
                if let body = payload["body"] as? String { release.body = body }
                if let prerelease = payload["prerelease"] as? Bool { release.prerelease = prerelease }
                releases[id] = release
                return release
            }
            guard let updated else { return Reply.json(404, ["message": "Not Found"]) }
            return Reply.json(200, releaseJSON(updated))
        case ("DELETE", 2, false) where rest[0] == "releases":
            let removed = lock.withLock { Int(rest[1]).flatMap { releases.removeValue(forKey: $0) } != nil }
            return removed ? Reply.empty(204) : Reply.json(404, ["message": "Not Found"])
        case ("GET", 3, false) where rest[0] == "releases" && rest[2] == "assets":
            let list = lock.withLock { assets.values.filter { $0.releaseID == Int(rest[1]) }.sorted { $0.id < $1.id } }
            return page(list.map(assetJSON), query: query, path: path)
        case ("POST", 3, true) where rest[0] == "releases" && rest[2] == "assets":
            return try await upload(request, releaseID: Int(rest[1]) ?? 0, query: query)
        case ("PATCH", 3, false) where rest[0] == "releases" && rest[1] == "assets":
            let (bytes, _) = try await request.readBody()
            let payload = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
            enum Rename { case renamed(Asset), missing, taken }
            let result: Rename = lock.withLock {
                guard let id = Int(rest[2]), var asset = assets[id] else { return .missing }
                if let name = payload["name"] as? String {
                    if assets.values.contains(where: { $0.releaseID == asset.releaseID && $0.name == name && $0.id != id }) { return .taken }
                    asset.name = name
                }
                assets[id] = asset
                return .renamed(asset)
            }
            switch result {
            case .renamed(let asset): return Reply.json(200, assetJSON(asset))
            case .taken:
                return Reply.json(422, ["message": "Validation Failed", "errors": [["resource": "ReleaseAsset", "code": "already_exists", "field": "name"]]])
            case .missing: return Reply.json(404, ["message": "Not Found"])
            }
        case ("DELETE", 3, false) where rest[0] == "releases" && rest[1] == "assets":
            let removed = lock.withLock { Int(rest[2]).flatMap { assets.removeValue(forKey: $0) } != nil }
            return removed ? Reply.empty(204) : Reply.json(404, ["message": "Not Found"])
        default:
            return Reply.json(404, ["message": "Not Found"])
        }
    }

    private func upload(_ request: Request, releaseID: Int, query: [String: String]) async throws -> Response {
        guard let name = query["name"], !name.isEmpty else {
            return Reply.json(422, ["message": "Validation Failed", "errors": [["resource": "ReleaseAsset", "code": "missing_field", "field": "name"]]])
        }
        let declared = request.header("Content-Length").flatMap { Int($0) }
        let (bytes, count) = try await request.readBody()
        lock.withLock { uploadByteCounts[name] = count }
        guard let declared, declared == count else {
            return Reply.json(400, ["message": "Content-Length \(String(describing: declared)) does not match \(count) bytes received"])
        }
        let asset: Asset? = lock.withLock {
            guard releases[releaseID] != nil,
                  !assets.values.contains(where: { $0.releaseID == releaseID && $0.name == name }) else { return nil }
            let id = nextID
            nextID += 1
            let asset = Asset(id: id, releaseID: releaseID, name: name, size: count,
                              contentType: request.header("Content-Type") ?? "", bytes: bytes)
            assets[id] = asset
            return asset
        }
        guard let asset else {
            return Reply.json(422, ["message": "Validation Failed", "errors": [["resource": "ReleaseAsset", "code": "already_exists", "field": "name"]]])
        }
        return Reply.json(201, assetJSON(asset))
    }

    private func page(_ items: [[String: Any]], query: [String: String], path: String) -> Response {
        let perPage = min(pageSize, Int(query["per_page"] ?? "30") ?? 30)
        let pageNumber = max(1, Int(query["page"] ?? "1") ?? 1)
        let start = (pageNumber - 1) * perPage
        let slice = start < items.count ? Array(items[start..<min(items.count, start + perPage)]) : []
        var headers: [String: String] = [:]
        if start + perPage < items.count {
            let lastPage = (items.count + perPage - 1) / perPage
            headers["Link"] = "<\(baseURL)\(path)?per_page=\(perPage)&page=\(pageNumber + 1)>; rel=\"next\", <\(baseURL)\(path)?per_page=\(perPage)&page=\(lastPage)>; rel=\"last\""
        }
        return Reply.json(200, slice, headers: headers)
    }

    private func releaseJSON(_ release: Release) -> [String: Any] {
        let releaseAssets = lock.withLock { assets.values.filter { $0.releaseID == release.id }.sorted { $0.id < $1.id } }
        return [
            "id": release.id, "tag_name": release.tag, "name": release.name, "body": release.body,
            "draft": release.draft, "prerelease": release.prerelease,
            "html_url": "https://github.com/\(owner)/\(repo)/releases/tag/\(release.tag)",
            "upload_url": "\(baseURL)/uploads/repos/\(owner)/\(repo)/releases/\(release.id)/assets{?name,label}",
            "assets": releaseAssets.map(assetJSON),
        ]
    }

    /// An asset as the API describes it; its `browser_download_url` is this server's download
    /// route (`/OWNER/REPO/releases/download/asset-ID/NAME`, GitHub's shape with the asset's id in
    /// place of the tag, which redirects to the storage as github.com does).
    private func assetJSON(_ asset: Asset) -> [String: Any] {
        ["id": asset.id, "name": asset.name, "size": asset.size, "state": asset.state, "content_type": asset.contentType,
         "digest": "sha256:" + SHA256.hex(of: asset.bytes),
         "browser_download_url": "\(baseURL)/\(owner)/\(repo)/releases/download/asset-\(asset.id)/\(asset.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? asset.name)"]
    }

    /// The web downloads, outside the API and without its token: `GET
    /// /OWNER/REPO/releases/download/asset-ID/NAME` answers `302 Found` to the storage
    /// (`/storage/ID`), which answers the bytes and, like a pre-signed storage URL, refuses a
    /// request that carries an `Authorization` header (400).
    private func download(_ request: Request, path: String) -> Response? {
        let parts = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        if parts.count == 6, parts[0] == owner, parts[1] == repo, parts[2] == "releases", parts[3] == "download", parts[4].hasPrefix("asset-") {
            guard let id = Int(parts[4].dropFirst("asset-".count)), let asset = lock.withLock({ assets[id] }), asset.name == parts[5] else {
                return Reply.text(404, "Not Found")
            }
            return Reply.empty(302, headers: ["Location": "\(baseURL)/storage/\(asset.id)"])
        }
        if parts.count == 2, parts[0] == "storage" {
            guard request.header("Authorization") == nil else {
                return Reply.text(400, "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified")
            }
            guard let id = Int(parts[1]), let asset = lock.withLock({ assets[id] }) else { return Reply.text(404, "Not Found") }
            return Reply.raw(200, asset.bytes, contentType: "application/octet-stream", headers: [:])
        }
        return nil
    }
}

