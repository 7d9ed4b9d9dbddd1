import Foundation
import Shiplane
import Hummingbird
import NIOCore
import Testing

/// An in-process model of GitHub's releases REST API with fault injection, checked against
/// GitHub's published description (`OpenAPIDescription.gitHub`, the operations it serves
/// transcribed from github/rest-api-description): every API request is matched to an operation
/// (method and path template; uploads to the one GitHub serves from its uploads host), its path
/// and query parameters and JSON body checked, and every answer checked against the schema
/// documented for its status. A violation is recorded and fails the test when the stand-in stops;
/// a request the description refuses is answered 422 `Validation Failed`. Not checked: refused
/// tokens (401), injected faults, the HTML page of a misconfigured proxy, and the web downloads.
///
/// Models: token check (401), repository visibility (404), missing permission (403 with
/// `x-accepted-github-permissions`), releases by tag (drafts hidden), paginated lists with `Link`
/// headers, 422 `already_exists`, uploads to the `upload_url` template on the same server (checking
/// Content-Length against the bytes received; a name already taken is the description's 422
/// without a body), asset rename and delete.
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
            /// Handle the request fully, then answer once `wait` returns (a job held at a
            /// chosen point while another does its work).
            case answerAfter(@Sendable () async -> Void)
        }
        var method: String?
        var pathContains: String
        var remaining: Int
        var action: Action
        /// When set, only a request to exactly this path (no query) matches.
        var exactPath: String? = nil
        /// When set, the fault matches only while this holds.
        var when: (@Sendable () -> Bool)? = nil
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

    /// The pulls API, when a test gives one (FakeGitHubPulls.swift); nil: `/pulls` is Not Found.
    var pulls: FakeGitHubPulls?
    /// The artifact attestations API (FakeGitHubAttestations.swift, issue 40); nil: `/attestations` is Not Found.
    var attestations: FakeGitHubAttestations?
    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }
    /// When true, the web download route answers 404 (a private repository's assets, without a
    /// browser session): the assets come only from their API address with the token.
    var privateRepository = false
    /// The asset storage downloads redirect to: another loopback server, as
    /// objects.githubusercontent.com is another host than the API's (faults apply there too).
    private(set) var storageServer: TestServer?
    private var storageBaseURL: String { storageServer?.baseURL ?? baseURL }
    private var storageAuthorizations: [String?] = []
    /// The `Authorization` header of every request the storage received (nil: none).
    var storageAuthorizationHeaders: [String?] { lock.withLock { storageAuthorizations } }

    /// GitHub's published description, which every API request and answer is checked against.
    let description = OpenAPIDescription.gitHub
    /// What the description check found; `stop()` fails the test on any violation.
    let ledger = DescriptionLedger()
    var violations: [String] { ledger.violations }
    /// The violations so far, forgotten (for a test that breaks the description on purpose).
    func takeViolations() -> [String] { ledger.take() }

    init(owner: String = "acme", repo: String = "rocket", token: String = "ghp_FakeTokenForTests1234567890abcd") {
        self.owner = owner
        self.repo = repo
        self.token = token
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in
            try await self.handle(request, context)
        }
        storageServer = try await TestServer.start { [self] request, context in
            let (method, path) = (request.method.rawValue, request.pathAndQuery.path)
            lock.withLock { requestLog.append("\(method) \(path)") }
            return try await faults.apply(request, context, method: method, target: path) {
                download(request, path: path) ?? Reply.text(404, "Not Found")
            }
        }
    }

    /// Stops the server; a violation of the description found meanwhile fails the running test.
    func stop() {
        server?.stop()
        storageServer?.stop()
        ledger.finish("GitHub", descriptionLoaded: description != nil)
    }

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
    func addRelease(tag: String, draft: Bool, name: String? = nil, body: String = "") -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            releases[id] = Release(id: id, tag: tag, name: name ?? tag, body: body, draft: draft, prerelease: false)
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

    /// Puts other bytes under the asset `id`, keeping its id and name (someone replaced the file
    /// behind the release's back); its size and digest follow the bytes, as GitHub computes them.
    func replaceAssetBytes(id: Int, with bytes: [UInt8]) {
        lock.withLock {
            assets[id]?.bytes = bytes
            assets[id]?.size = bytes.count
        }
    }

    /// Deletes the asset `id` behind the client's back (someone deleted it on github.com).
    func removeAsset(id: Int) { lock.withLock { _ = assets.removeValue(forKey: id) } }

    // MARK: - Handling

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let method = request.method.rawValue
        let (path, query) = request.pathAndQuery
        let target = path + (query["name"].map { "?name=\($0)" } ?? "")
        lock.withLock { requestLog.append("\(method) \(target)") }
        let recorded = RecordedAnswer()
        let response = try await RecordedAnswer.$current.withValue(recorded) {
            try await faults.apply(request, context, method: method, target: target) {
                try await route(request, method: method, path: path, query: query)
            }
        }
        if let operation = recorded.operation, let answer = recorded.answer {
            ledger.answer(problems: description?.check(answer: answer.status, body: answer.body, to: operation) ?? [])
        }
        return response
    }

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

    private static let documentation = "https://docs.github.com/rest"
    private func notFound() -> Response { json(404, ["message": "Not Found", "documentation_url": Self.documentation]) }

    /// GitHub's `Validation Failed` (the description's `validation-error`).
    private func validationFailed(_ resource: String, _ code: String, _ field: String) -> Response {
        json(422, ["message": "Validation Failed", "documentation_url": Self.documentation,
                   "errors": [["resource": resource, "code": code, "field": field]]])
    }

    /// Matches the request to the description's operation and checks it; a request it refuses is
    /// recorded and answered 422 as GitHub refuses one. Uploads come to `/uploads/…`, the API
    /// path on GitHub's uploads host.
    private func checkRequest(_ request: Request, method: String, isUpload: Bool, body: [UInt8]) -> Response? {
        let rawPath = String(request.uri.description.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/")
        let apiPath = isUpload ? String(rawPath.dropFirst("/uploads".count)) : rawPath
        let query = request.pathAndQuery.query
        guard let description else { return nil }
        var (operation, problems) = description.check(method: method, path: apiPath, query: query, body: body)
        if let operation {
            let servedFromUploads = operation.object["servers"] != nil
            if servedFromUploads != isUpload {
                problems.append("\(operation.method) \(operation.template) is served from \(servedFromUploads ? "the uploads host (upload_url)" : "the API host"), not \(isUpload ? "the uploads host" : "the API host")")
            }
        }
        ledger.request(operation.map { "\($0.method) \($0.template)" }, problems: problems)
        guard problems.isEmpty else { return Reply.json(422, ["message": "Validation Failed", "documentation_url": Self.documentation, "errors": [["code": "invalid", "message": problems.joined(separator: "; ")]]]) }
        RecordedAnswer.current?.operation = operation
        return nil
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
        // JSON bodies are read here, once, for the check; an upload's bytes are read by `upload`.
        let bytes = isUpload ? [] : try await request.readBody().bytes
        // The pulls API (issue 41, a protected Homebrew tap's pull request), whose four operations
        // the transcribed description holds: the request is checked like every other, then
        // FakeGitHubPulls answers with the description's pull-request schemas.
        if !isUpload, apiParts.count >= 4, apiParts[0] == "repos", apiParts[1] == owner, apiParts[2] == repo, apiParts[3] == "pulls", let pulls {
            if let refusal = checkRequest(request, method: method, isUpload: false, body: bytes) { return refusal }
            let context = FakeGitHubPulls.Context(owner: owner, repo: repo, baseURL: baseURL, user: userJSON(), repository: repositoryJSON(full: false))
            return try pulls.route(method: method, rest: Array(apiParts.dropFirst(4)), query: query, body: bytes, context: context)
        }
        // The attestations API (issue 40), whose two operations the transcribed description holds:
        // the request is checked like every other, then FakeGitHubAttestations answers.
        if !isUpload, apiParts.count >= 4, apiParts[0] == "repos", apiParts[1] == owner, apiParts[2] == repo, apiParts[3] == "attestations", let attestations {
            if let refusal = checkRequest(request, method: method, isUpload: false, body: bytes) { return refusal }
            return attestations.route(method: method, rest: Array(apiParts.dropFirst(4)), query: query, body: bytes, repositoryID: 42, baseURL: baseURL, owner: owner, repo: repo)
        }
        if let refusal = checkRequest(request, method: method, isUpload: isUpload, body: bytes) { return refusal }
        guard apiParts.count >= 3, apiParts[0] == "repos", apiParts[1] == owner, apiParts[2] == repo else {
            return notFound()
        }
        let rest = Array(apiParts.dropFirst(3))
        switch (method, rest.count, isUpload) {
        case ("GET", 0, false):
            if let missingPermission {
                return json(403, ["message": "Resource not accessible by personal access token", "documentation_url": Self.documentation],
                            headers: ["x-accepted-github-permissions": missingPermission])
            }
            return json(200, repositoryJSON())
        case ("GET", 2, false) where rest[0] == "commits":
            // GET /repos/{owner}/{repo}/commits/{ref}: the commit a tag (or branch) names.
            let ref = rest[1].removingPercentEncoding ?? rest[1]
            guard let sha = lock.withLock({ refCommits[ref] }) else {
                return json(422, ["message": "No commit found for SHA: \(ref)", "documentation_url": "https://docs.github.com/rest/commits/commits#get-a-commit"])
            }
            return json(200, commitJSON(sha))
        case ("GET", 3, false) where rest[0] == "releases" && rest[1] == "tags":
            let tag = rest[2].removingPercentEncoding ?? rest[2]
            guard let found = lock.withLock({ releases.values.first { $0.tag == tag && !$0.draft } }) else {
                return notFound()
            }
            return json(200, releaseJSON(found))
        case ("GET", 1, false) where rest[0] == "releases":
            let all = lock.withLock { releases.values.sorted { $0.id > $1.id } }
            return page(all.map(releaseJSON), query: query, path: path)
        case ("POST", 1, false) where rest[0] == "releases":
            guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                  let tag = payload["tag_name"] as? String else {
                return validationFailed("Release", "missing_field", "tag_name")
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
            guard let created else { return validationFailed("Release", "already_exists", "tag_name") }
            return json(201, releaseJSON(created))
        case ("PATCH", 2, false) where rest[0] == "releases":
            let payload = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
            let updated: Release? = lock.withLock {
                guard let id = Int(rest[1]), var release = releases[id] else { return nil }
                if let draft = payload["draft"] as? Bool { release.draft = draft }
                if let tag = payload["tag_name"] as? String { release.tag = tag }
                if let name = payload["name"] as? String { release.name = name }
                if let body = payload["body"] as? String { release.body = body }
                if let prerelease = payload["prerelease"] as? Bool { release.prerelease = prerelease }
                releases[id] = release
                return release
            }
            guard let updated else { return notFound() }
            return json(200, releaseJSON(updated))
        case ("DELETE", 2, false) where rest[0] == "releases":
            let removed = lock.withLock { Int(rest[1]).flatMap { releases.removeValue(forKey: $0) } != nil }
            return removed ? empty(204) : notFound()
        case ("GET", 3, false) where rest[0] == "releases" && rest[2] == "assets":
            let list = lock.withLock { assets.values.filter { $0.releaseID == Int(rest[1]) }.sorted { $0.id < $1.id } }
            return page(list.map(assetJSON), query: query, path: path)
        case ("POST", 3, true) where rest[0] == "releases" && rest[2] == "assets":
            return try await upload(request, releaseID: Int(rest[1]) ?? 0, query: query)
        case ("PATCH", 3, false) where rest[0] == "releases" && rest[1] == "assets":
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
            // The description documents only 200 here: a taken name or a missing asset is
            // answered as GitHub does and recorded as a violation when the check runs.
            switch result {
            case .renamed(let asset): return json(200, assetJSON(asset))
            case .taken: return validationFailed("ReleaseAsset", "already_exists", "name")
            case .missing: return notFound()
            }
        case ("GET", 3, false) where rest[0] == "releases" && rest[1] == "assets":
            // repos/get-release-asset: with `Accept: application/octet-stream` the asset's bytes,
            // by a `302 Found` to the storage; else its description.
            guard let asset = lock.withLock({ Int(rest[2]).flatMap { assets[$0] } }) else { return notFound() }
            guard request.header("Accept") == "application/octet-stream" else { return json(200, assetJSON(asset)) }
            RecordedAnswer.current?.record(302, nil)
            return Reply.empty(302, headers: ["Location": "\(storageBaseURL)/storage/\(asset.id)"])
        case ("DELETE", 3, false) where rest[0] == "releases" && rest[1] == "assets":
            let removed = lock.withLock { Int(rest[2]).flatMap { assets.removeValue(forKey: $0) } != nil }
            return removed ? empty(204) : notFound()
        default:
            return notFound()
        }
    }

    private func upload(_ request: Request, releaseID: Int, query: [String: String]) async throws -> Response {
        guard let name = query["name"], !name.isEmpty else {
            _ = try await request.readBody(keeping: 0)
            return empty(422)
        }
        let declared = request.header("Content-Length").flatMap { Int($0) }
        let (bytes, count) = try await request.readBody()
        lock.withLock { uploadByteCounts[name] = count }
        guard let declared, declared == count else {
            return json(400, ["message": "Content-Length \(String(describing: declared)) does not match \(count) bytes received", "documentation_url": Self.documentation])
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
        // "Response if you upload an asset with the same filename as another uploaded asset":
        // the description documents this 422 without a body.
        guard let asset else { return empty(422) }
        return json(201, assetJSON(asset))
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
        return json(200, slice, headers: headers)
    }

    private static let time = "2026-01-01T00:00:00Z"

    /// The account that owns the repository and uploads its assets (the description's `simple-user`).
    private func userJSON() -> [String: Any] {
        let api = "\(baseURL)/users/\(owner)"
        return ["login": owner, "id": 1, "node_id": "MDQ6VXNlcjE=", "avatar_url": "https://avatars.githubusercontent.com/u/1",
                "gravatar_id": "", "url": api, "html_url": "https://github.com/\(owner)", "followers_url": api + "/followers",
                "following_url": api + "/following{/other_user}", "gists_url": api + "/gists{/gist_id}",
                "starred_url": api + "/starred{/owner}{/repo}", "subscriptions_url": api + "/subscriptions",
                "organizations_url": api + "/orgs", "repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
                "received_events_url": api + "/received_events", "type": "User", "site_admin": false]
    }

    /// The repository as `GET /repos/{owner}/{repo}` gives it (the description's `full-repository`),
    /// or as a pull request's `head.repo` and `base.repo` give it (`repository`: no `network_count`
    /// or `subscribers_count`, and the required `has_downloads`).
    private func repositoryJSON(full: Bool = true) -> [String: Any] {
        let api = "\(baseURL)/repos/\(owner)/\(repo)"
        var json: [String: Any] = [
            "id": 42, "node_id": "R_kgDOAAAAKg", "name": repo, "full_name": "\(owner)/\(repo)", "owner": userJSON(), "private": false,
            "html_url": "https://github.com/\(owner)/\(repo)", "description": NSNull(), "fork": false, "url": api,
            "clone_url": "https://github.com/\(owner)/\(repo).git", "git_url": "git://github.com/\(owner)/\(repo).git",
            "ssh_url": "git@github.com:\(owner)/\(repo).git", "svn_url": "https://github.com/\(owner)/\(repo)", "mirror_url": NSNull(),
            "homepage": NSNull(), "language": "Swift", "forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0,
            "size": 108, "default_branch": "main", "open_issues": 0, "open_issues_count": 0, "is_template": false, "topics": [],
            "has_issues": true, "has_projects": true, "has_wiki": true, "has_pages": false, "has_discussions": false,
            "archived": false, "disabled": false, "visibility": "public", "license": NSNull(),
            "pushed_at": Self.time, "created_at": Self.time, "updated_at": Self.time,
            "permissions": ["admin": false, "maintain": false, "push": true, "triage": true, "pull": true],
            "network_count": 0, "subscribers_count": 0,
        ]
        for (key, suffix) in [("archive_url", "/{archive_format}{/ref}"), ("assignees_url", "/assignees{/user}"), ("blobs_url", "/git/blobs{/sha}"),
                              ("branches_url", "/branches{/branch}"), ("collaborators_url", "/collaborators{/collaborator}"),
                              ("comments_url", "/comments{/number}"), ("commits_url", "/commits{/sha}"), ("compare_url", "/compare/{base}...{head}"),
                              ("contents_url", "/contents/{+path}"), ("contributors_url", "/contributors"), ("deployments_url", "/deployments"),
                              ("downloads_url", "/downloads"), ("events_url", "/events"), ("forks_url", "/forks"),
                              ("git_commits_url", "/git/commits{/sha}"), ("git_refs_url", "/git/refs{/sha}"), ("git_tags_url", "/git/tags{/sha}"),
                              ("hooks_url", "/hooks"), ("issue_comment_url", "/issues/comments{/number}"), ("issue_events_url", "/issues/events{/number}"),
                              ("issues_url", "/issues{/number}"), ("keys_url", "/keys{/key_id}"), ("labels_url", "/labels{/name}"),
                              ("languages_url", "/languages"), ("merges_url", "/merges"), ("milestones_url", "/milestones{/number}"),
                              ("notifications_url", "/notifications{?since,all,participating}"), ("pulls_url", "/pulls{/number}"),
                              ("releases_url", "/releases{/id}"), ("stargazers_url", "/stargazers"), ("statuses_url", "/statuses/{sha}"),
                              ("subscribers_url", "/subscribers"), ("subscription_url", "/subscription"), ("tags_url", "/tags"),
                              ("teams_url", "/teams"), ("trees_url", "/git/trees{/sha}")] {
            json[key] = api + suffix
        }
        if !full {
            json["network_count"] = nil
            json["subscribers_count"] = nil
            json["has_downloads"] = true
        }
        return json
    }

    /// A commit as `GET /repos/{owner}/{repo}/commits/{ref}` gives it (the description's `commit`);
    /// its author and committer accounts are unknown (null).
    private func commitJSON(_ sha: String) -> [String: Any] {
        let api = "\(baseURL)/repos/\(owner)/\(repo)"
        let person: [String: Any] = ["name": "Release Bot", "email": "release@example.com", "date": Self.time]
        return ["url": "\(api)/commits/\(sha)", "sha": sha, "node_id": "C_\(sha.prefix(12))", "html_url": "https://github.com/\(owner)/\(repo)/commit/\(sha)",
                "comments_url": "\(api)/commits/\(sha)/comments",
                "commit": ["url": "\(api)/git/commits/\(sha)", "author": person, "committer": person, "message": "release", "comment_count": 0,
                           "tree": ["sha": String(repeating: "0", count: 40), "url": "\(api)/git/trees/\(String(repeating: "0", count: 40))"]],
                "author": NSNull(), "committer": NSNull(), "parents": []]
    }

    private func releaseJSON(_ release: Release) -> [String: Any] {
        let releaseAssets = lock.withLock { assets.values.filter { $0.releaseID == release.id }.sorted { $0.id < $1.id } }
        let api = "\(baseURL)/repos/\(owner)/\(repo)"
        return [
            "url": "\(api)/releases/\(release.id)", "assets_url": "\(api)/releases/\(release.id)/assets",
            "id": release.id, "node_id": "RE_\(release.id)", "tag_name": release.tag, "target_commitish": "main",
            "name": release.name, "body": release.body, "draft": release.draft, "prerelease": release.prerelease,
            "created_at": Self.time, "published_at": release.draft ? NSNull() as Any : Self.time as Any, "author": userJSON(),
            "tarball_url": "\(api)/tarball/\(release.tag)", "zipball_url": "\(api)/zipball/\(release.tag)",
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
         "url": "\(baseURL)/repos/\(owner)/\(repo)/releases/assets/\(asset.id)", "node_id": "RA_\(asset.id)", "label": NSNull(),
         "download_count": 0, "created_at": Self.time, "updated_at": Self.time, "uploader": userJSON(),
         "browser_download_url": "\(baseURL)/\(owner)/\(repo)/releases/download/asset-\(asset.id)/\(asset.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? asset.name)"]
    }

    /// The web downloads, outside the API and without its token: `GET
    /// /OWNER/REPO/releases/download/asset-ID/NAME` answers `302 Found` to the storage
    /// (`/storage/ID`), which answers the bytes and, like a pre-signed storage URL, refuses a
    /// request that carries an `Authorization` header (400).
    private func download(_ request: Request, path: String) -> Response? {
        let parts = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        if parts.count == 6, parts[0] == owner, parts[1] == repo, parts[2] == "releases", parts[3] == "download", parts[4].hasPrefix("asset-") {
            guard !privateRepository, let id = Int(parts[4].dropFirst("asset-".count)), let asset = lock.withLock({ assets[id] }), asset.name == parts[5] else {
                return Reply.text(404, "Not Found")
            }
            return Reply.empty(302, headers: ["Location": "\(storageBaseURL)/storage/\(asset.id)"])
        }
        if parts.count == 2, parts[0] == "storage" {
            lock.withLock { storageAuthorizations.append(request.header("Authorization")) }
            guard request.header("Authorization") == nil else {
                return Reply.text(400, "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified")
            }
            guard let id = Int(parts[1]), let asset = lock.withLock({ assets[id] }) else { return Reply.text(404, "Not Found") }
            return Reply.raw(200, asset.bytes, contentType: "application/octet-stream", headers: [:])
        }
        return nil
    }
}

