import Foundation
import Shiplane
#if canImport(Testing)
import Testing
#endif

/// An HTTP client for lane tests: records every request and answers from rules, with no network.
///
/// Give it to `TestLaneContext` (it has one as `http`) and assert on what a lane would have sent:
///
///     test.http.respondLikeGitHub(repository: "acme/rocket")
///     let result = try await test.run(Release.self)
///     #expect(test.http.githubReleases.map(\.tagName) == ["v1.2.3"])
///     #expect(test.http.requests.filter { $0.method == "POST" }.count == 3)   // the release and two assets
///
/// A request no rule answers fails the test: it is recorded in `unscriptedRequests`, reported as
/// an issue of the running Swift Testing test, and the lane's `send` throws
/// ``UnscriptedHTTPRequest`` naming it (as swift-dependencies' `unimplemented` does). A test that
/// expects a 404 scripts it, like any other answer.
public final class RecordingHTTPClient: HTTPSending, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.

    /// One request as the lane sent it; a file body is read when the request is sent.
    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first value of a header, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let lock = NSLock()
    private var recorded: [Request] = []
    private var unscripted: [Request] = []
    private var rules: [@Sendable (Request) -> HTTPResponse?] = []
    private var releases: [GitHubRelease] = []
    private var nextID = 1

    public init() {}

    /// Every request, in the order sent.
    public var requests: [Request] { lock.withLock { recorded } }

    /// The requests no rule answered, in the order sent; each one also failed the test.
    public var unscriptedRequests: [Request] { lock.withLock { unscripted } }

    /// Answers requests `handler` returns a response for; later rules are asked first.
    public func respond(with handler: @escaping @Sendable (Request) -> HTTPResponse?) {
        lock.withLock { rules.append(handler) }
    }

    /// Answers `method` requests whose URL starts with `urlPrefix` with `status` and a JSON `body`.
    public func respond(_ method: HTTPRequestMethod, _ urlPrefix: String, status: Int = 200, json body: String = "{}") {
        respond { request in
            guard request.method == method.rawValue, request.url.hasPrefix(urlPrefix) else { return nil }
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
    }

    public func send(_ request: HTTPRequest, maxResponseBytes: Int, onEvent: @escaping HTTPEventHandler) async throws -> HTTPResponse {
        var body: [UInt8] = []
        switch request.body {
        case .none: break
        case .bytes(let bytes): body = bytes
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ShiplaneError("the lane sent \(path), which cannot be read")
            }
            body = Array(data)
        case .fileSlice(let path, let offset, let length):
            guard let data = FileManager.default.contents(atPath: path), offset >= 0, offset + length <= Int64(data.count) else {
                throw ShiplaneError("the lane sent bytes \(offset)..<\(offset + length) of \(path), which cannot be read")
            }
            body = Array(data[Int(offset)..<Int(offset + length)])
        case let .wrappedFile(prefix, path, suffix):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ShiplaneError("the lane sent \(path), which cannot be read")
            }
            body = prefix + Array(data) + suffix
        }
        let sent = Request(method: request.method.rawValue, url: request.url, headers: request.headers, body: body)
        let handlers = lock.withLock {
            recorded.append(sent)
            return rules.reversed()
        }
        for handler in handlers {
            if let response = handler(sent) { return response }
        }
        lock.withLock { unscripted.append(sent) }
        let error = UnscriptedHTTPRequest(method: sent.method, url: sent.url)
        #if canImport(Testing)
        Issue.record(Comment(rawValue: error.description))
        #endif
        throw error
    }

    // MARK: - GitHub releases

    /// The releases the lane made through `respondLikeGitHub`, with their assets.
    public var githubReleases: [GitHubRelease] { lock.withLock { releases } }

    /// Answers as GitHub's REST API does for `repository` (`owner/name`): the repository exists
    /// and the token may write; releases are created, found by tag, published, deleted; assets
    /// upload to the release's `upload_url` and can be renamed and deleted. A route it models
    /// with an id or tag it does not know answers 404, as GitHub does; any other request is
    /// unscripted and fails the test.
    public func respondLikeGitHub(repository: String, apiURL: String = "https://api.github.com") {
        let repo = apiURL + "/repos/" + repository
        let uploads = apiURL + "/uploads/" + repository
        respond { [weak self] request in
            guard let self else { return nil }
            return self.lock.withLock { self.github(request, repo: repo, uploads: uploads, repository: repository) }
        }
    }

    private func github(_ request: Request, repo: String, uploads: String, repository: String) -> HTTPResponse? {
        let path = request.url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.url
        switch (request.method, path) {
        case ("GET", repo):
            return json(200, ["full_name": repository, "permissions": ["push": true]])
        case ("GET", let url) where url.hasPrefix(repo + "/releases/tags/"):
            let tag = String(url.dropFirst((repo + "/releases/tags/").count)).removingPercentEncoding ?? ""
            guard let release = releases.first(where: { $0.tagName == tag }) else { return notFound }
            return encoded(200, release)
        case ("GET", repo + "/releases"):
            return encoded(200, releases)
        case ("POST", repo + "/releases"):
            let fields = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            guard let tag = fields["tag_name"] as? String else { return json(422, ["message": "Validation Failed"]) }
            guard !releases.contains(where: { $0.tagName == tag }) else {
                return json(422, ["message": "Validation Failed", "errors": [["resource": "Release", "code": "already_exists", "field": "tag_name"]]])
            }
            let id = takeID()
            let release = GitHubRelease(
                id: id, tagName: tag, name: fields["name"] as? String, body: fields["body"] as? String,
                draft: fields["draft"] as? Bool ?? false, prerelease: fields["prerelease"] as? Bool ?? false,
                htmlURL: "https://github.com/\(repository)/releases/tag/\(tag)",
                uploadURL: "\(uploads)/releases/\(id)/assets{?name,label}", assets: []
            )
            releases.append(release)
            return encoded(201, release)
        case ("PATCH", let url) where url.hasPrefix(repo + "/releases/") && !url.contains("/assets"):
            guard let index = releases.firstIndex(where: { "\(repo)/releases/\($0.id)" == url }) else { return notFound }
            let fields = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            if let draft = fields["draft"] as? Bool { releases[index].draft = draft }
            if let name = fields["name"] as? String { releases[index].name = name }
            if let body = fields["body"] as? String { releases[index].body = body }
            if let prerelease = fields["prerelease"] as? Bool { releases[index].prerelease = prerelease }
            return encoded(200, releases[index])
        case ("DELETE", let url) where url.hasPrefix(repo + "/releases/assets/"):
            let id = Int(url.dropFirst((repo + "/releases/assets/").count))
            guard releases.contains(where: { $0.assets?.contains { $0.id == id } == true }) else { return notFound }
            for index in releases.indices { releases[index].assets?.removeAll { $0.id == id } }
            return HTTPResponse(status: 204)
        case ("DELETE", let url) where url.hasPrefix(repo + "/releases/"):
            let before = releases.count
            releases.removeAll { "\(repo)/releases/\($0.id)" == url }
            return releases.count < before ? HTTPResponse(status: 204) : notFound
        case ("GET", let url) where url.hasPrefix(repo + "/releases/") && url.hasSuffix("/assets"):
            let release = releases.first { "\(repo)/releases/\($0.id)/assets" == url }
            return release.map { encoded(200, $0.assets ?? []) } ?? notFound
        case ("POST", let url) where url.hasPrefix(uploads + "/releases/"):
            let query = URLComponents(string: request.url)?.queryItems ?? []
            guard let name = query.first(where: { $0.name == "name" })?.value else { return json(422, ["message": "Validation Failed"]) }
            guard let index = releases.firstIndex(where: { url == "\(uploads)/releases/\($0.id)/assets" }) else { return notFound }
            let asset = GitHubAsset(id: takeID(), name: name, size: Int64(request.body.count), contentType: request.header("content-type"))
            releases[index].assets = (releases[index].assets ?? []) + [asset]
            return encoded(201, asset)
        case ("PATCH", let url) where url.hasPrefix(repo + "/releases/assets/"):
            let id = Int(url.dropFirst((repo + "/releases/assets/").count))
            let fields = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            for index in releases.indices {
                guard let position = releases[index].assets?.firstIndex(where: { $0.id == id }) else { continue }
                if let name = fields["name"] as? String { releases[index].assets?[position].name = name }
                return releases[index].assets.map { encoded(200, $0[position]) }
            }
            return notFound
        default:
            // A route this stand-in does not model: unscripted, so the test fails naming it.
            return nil
        }
    }

    /// GitHub's answer for a route it has with an id or tag it does not know.
    private var notFound: HTTPResponse { json(404, ["message": "Not Found"]) }

    private func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private func json(_ status: Int, _ value: [String: Any]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(data))
    }

    private func encoded<Value: Encodable>(_ status: Int, _ value: Value) -> HTTPResponse {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(data))
    }
}

/// A request a ``RecordingHTTPClient`` was not told how to answer: the test fails, naming it.
public struct UnscriptedHTTPRequest: Error, CustomStringConvertible, Sendable {
    public var method: String
    public var url: String

    public var description: String {
        "RecordingHTTPClient: no rule answers \(method) \(url); script it with respond(...) or respondLikeGitHub(...)"
    }
}
