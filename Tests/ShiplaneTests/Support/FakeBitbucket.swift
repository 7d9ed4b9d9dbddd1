import Foundation
import Hummingbird
import NIOCore

/// An in-process Bitbucket Cloud REST API 2.0, the parts a release uses, written from Atlassian's
/// published reference (developer.atlassian.com/cloud/bitbucket/rest: "Repositories", "Refs",
/// "Downloads") and strict about it:
///
/// - `GET /2.0/repositories/{workspace}/{repo_slug}`; `GET …/refs/tags/{name}` (the tags of a real
///   bare repository when `originGitDir` is set — git as the oracle —, else `addTag`'s);
/// - `GET …/downloads` (paginated: `pagelen` 1–100, `page`; `values`, `size`, `page`, `pagelen`,
///   `next`), `POST …/downloads` (`multipart/form-data` whose every part is a `files` field with a
///   file name; "When a file is uploaded with the same name as an existing artifact, then the
///   existing file will be replaced"; 201), `GET …/downloads/{filename}` (a redirect to the
///   file's contents, which are served without credentials, as a signed URL is), `DELETE
///   …/downloads/{filename}` (204).
///
/// Credentials must come as `Authorization: Bearer <token>`, else 401. Anything else — another
/// path or method, an unknown query parameter, a body the operation does not take, a form field
/// other than `files` — is refused (Bitbucket's `{"type": "error", "error": {"message"}}` shape)
/// and recorded in `violations`. Faults as `FakeGitHub`'s.
final class FakeBitbucket: @unchecked Sendable {
    struct Download: Equatable { var name: String; var bytes: [UInt8]; var createdOn: String; var id: String }

    let workspace = "acme"
    let slug: String
    let token: String
    /// The pull requests, when a test serves them (a Homebrew tap's pull request).
    var pulls: FakeBitbucketPulls?
    /// A bare repository whose tags are Bitbucket's (the origin the lane pushes to).
    var originGitDir: String?

    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var downloads: [Download] = []
    private var tags: Set<String> = []
    private var clock = 0
    private var requestLog: [String] = []
    private var violationLog: [String] = []
    private var refusal: (after: Int, status: Int, body: String)?
    private var uploads = 0
    let faults = StandInFaults()

    private(set) var server: TestServer?
    /// The API base, as `BITBUCKET_API_URL`.
    var apiURL: String { (server?.baseURL ?? "") + "/2.0" }

    init(token: String = "ATCTT3xFfGN0bitbucketAccessToken0123456789", slug: String = "rocket") {
        self.token = token
        self.slug = slug
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }

    var log: [String] { lock.withLock { requestLog } }
    var violations: [String] { lock.withLock { violationLog } + (pulls?.violations ?? []) }
    var allDownloads: [Download] { lock.withLock { downloads } }
    func addTag(_ tag: String) { lock.withLock { _ = tags.insert(tag) } }
    func inject(_ fault: FakeGitHub.Fault) { faults.inject(fault) }
    /// Answers every upload after the first `count` with `status` and `body` (Bitbucket's error JSON).
    func refuseUploads(after count: Int, status: Int, body: String) { lock.withLock { refusal = (count, status, body) } }

    /// Puts a download there, as another uploader would.
    @discardableResult
    func addDownload(_ name: String, _ bytes: [UInt8]) -> Download {
        lock.withLock { store(name, bytes) }
    }

    /// Stores (or replaces) a download; call under `lock`.
    private func store(_ name: String, _ bytes: [UInt8]) -> Download {
        clock += 1
        let download = Download(name: name, bytes: bytes, createdOn: String(format: "2026-11-28T12:%02ld:%02ld.%06ld+00:00", clock / 60 % 60, clock % 60, clock * 1013 % 1_000_000),
                                id: UUID().uuidString.lowercased())
        downloads.removeAll { $0.name == name }
        downloads.append(download)
        return download
    }

    private func violation(_ text: String) { lock.withLock { violationLog.append(text) } }

    private func error(_ status: Int, _ message: String) -> Response {
        Reply.json(status, ["type": "error", "error": ["message": message]])
    }

    private func tagExists(_ name: String) -> Bool {
        if lock.withLock({ tags.contains(name) }) { return true }
        guard let originGitDir else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["--git-dir=" + originGitDir, "rev-parse", "--verify", "--quiet", "refs/tags/" + name]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    // MARK: - Handling

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let method = request.method.rawValue
        let (path, query) = request.pathAndQuery
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { String($0).removingPercentEncoding ?? String($0) }
        lock.withLock { requestLog.append("\(method) \(path)") }
        return try await faults.apply(request, context, method: method, target: path) {
            // The redirect's target: a signed URL on another service in Bitbucket, no credentials.
            if method == "GET", segments.count == 3, segments[0] == "files" {
                guard let found = lock.withLock({ downloads.first { $0.id == segments[1] } }) else { return error(404, "No such file") }
                return Reply.raw(200, found.bytes, contentType: "application/octet-stream", headers: [:])
            }
            return try await api(request, method: method, segments: segments, query: query)
        }
    }

    private func refuse(_ request: Request, _ text: String, status: Int = 404) async throws -> Response {
        violation(text)
        _ = try await request.readBody(keeping: 0)
        return error(status, text)
    }

    private func api(_ request: Request, method: String, segments: [String], query: [String: String]) async throws -> Response {
        guard segments.count >= 4, segments[0] == "2.0", segments[1] == "repositories" else {
            return try await refuse(request, "\(method) /\(segments.joined(separator: "/")) is not an operation of the API")
        }
        guard request.header("Authorization") == "Bearer \(token)" else {
            _ = try await request.readBody(keeping: 0)
            return error(401, "Access token expired or invalid")
        }
        guard segments[2] == workspace, segments[3] == slug else {
            _ = try await request.readBody(keeping: 0)
            return error(404, "Repository \(segments[2])/\(segments[3]) not found")
        }
        let rest = Array(segments.dropFirst(4))
        if let pulls, ["pullrequests", "commit"].contains(rest.first ?? "") {
            let (body, _) = try await request.readBody(keeping: 1 << 20)
            guard let routed = pulls.route(method: method, rest: rest, query: query, body: body, apiURL: apiURL, repository: "\(workspace)/\(slug)") else {
                return try await refuse(request, "\(method) /\(segments.joined(separator: "/")) is not an operation of the API")
            }
            let (status, answer) = routed
            if let message = answer as? String { return error(status, message) }
            return Reply.json(status, answer)
        }
        let allowedQuery: Set<String> = rest == ["downloads"] && method == "GET" ? ["page", "pagelen"] : []
        if let unknown = query.keys.sorted().first(where: { !allowedQuery.contains($0) }) {
            return try await refuse(request, "\(method) /\(segments.joined(separator: "/")): query parameter \(unknown) is not described", status: 400)
        }
        if method != "POST", request.header("Content-Length").flatMap(Int.init).map({ $0 > 0 }) == true {
            return try await refuse(request, "\(method) /\(segments.joined(separator: "/")) takes no body", status: 400)
        }
        switch (method, rest.count, rest.first) {
        case ("GET", 0, _):
            return Reply.json(200, ["type": "repository", "full_name": "\(workspace)/\(slug)", "slug": slug, "name": slug,
                                    "links": ["html": ["href": "https://bitbucket.org/\(workspace)/\(slug)"]]])
        case ("GET", 3, "refs") where rest[1] == "tags":
            guard tagExists(rest[2]) else { return error(404, "Tag \"\(rest[2])\" does not exist") }
            return Reply.json(200, ["type": "tag", "name": rest[2], "target": ["type": "commit", "hash": String(repeating: "a", count: 40)],
                                    "links": ["html": ["href": "https://bitbucket.org/\(workspace)/\(slug)/commits/tag/\(rest[2])"]]])
        case ("GET", 1, "downloads"):
            return list(query: query)
        case ("POST", 1, "downloads"):
            return try await upload(request)
        case ("GET", 2, "downloads"):
            guard let found = lock.withLock({ downloads.first { $0.name == rest[1] } }) else { return error(404, "No such file") }
            return Reply.empty(302, headers: ["Location": (server?.baseURL ?? "") + "/files/\(found.id)/\(found.name)"])
        case ("DELETE", 2, "downloads"):
            let removed = lock.withLock { () -> Bool in
                let before = downloads.count
                downloads.removeAll { $0.name == rest[1] }
                return downloads.count < before
            }
            return removed ? Reply.empty(204) : error(404, "No such file")
        default:
            return try await refuse(request, "\(method) /\(segments.joined(separator: "/")) is not an operation of the API")
        }
    }

    private func list(query: [String: String]) -> Response {
        let pagelen = query["pagelen"].flatMap(Int.init) ?? 10
        let page = query["page"].flatMap(Int.init) ?? 1
        guard (1...100).contains(pagelen), page >= 1 else {
            violation("GET downloads: pagelen \(pagelen) or page \(page) out of range")
            return error(400, "Invalid pagelen or page")
        }
        let all = lock.withLock { downloads }
        let slice = all.dropFirst((page - 1) * pagelen).prefix(pagelen)
        var body: [String: Any] = [
            "pagelen": pagelen, "page": page, "size": all.count,
            "values": slice.map { download -> [String: Any] in
                ["type": "download", "name": download.name, "size": download.bytes.count, "downloads": 0, "created_on": download.createdOn,
                 "links": ["self": ["href": "\(apiURL)/repositories/\(workspace)/\(slug)/downloads/\(download.name)"]],
                 "user": ["type": "user", "display_name": "Release Bot"]]
            },
        ]
        if page * pagelen < all.count {
            body["next"] = "\(apiURL)/repositories/\(workspace)/\(slug)/downloads?pagelen=\(pagelen)&page=\(page + 1)"
        }
        return Reply.json(200, body)
    }

    private func upload(_ request: Request) async throws -> Response {
        let (bytes, count) = try await request.readBody(keeping: 64 << 20)
        if let declared = request.header("Content-Length").flatMap(Int.init), declared != count {
            return error(400, "Content-Length \(declared) does not match \(count) bytes")
        }
        guard let parts = Self.multipart(bytes, contentType: request.header("Content-Type")), !parts.isEmpty else {
            violation("POST downloads: the body is not multipart/form-data")
            return error(400, "Expected a multipart/form-data body with files fields")
        }
        if let refused = lock.withLock({ () -> (Int, String)? in
            uploads += 1
            return refusal.flatMap { uploads > $0.after ? ($0.status, $0.body) : nil }
        }) {
            return Reply.text(refused.0, refused.1, contentType: "application/json")
        }
        for part in parts where part.name != "files" || (part.filename ?? "").isEmpty {
            violation("POST downloads: a part named \(part.name) with file name \(part.filename ?? "none"); only files fields with a file name are described")
            return error(400, "Unexpected form field \(part.name)")
        }
        lock.withLock { for part in parts { _ = store(part.filename ?? "", part.bytes) } }
        return Reply.empty(201)
    }

    /// Every part of a `multipart/form-data` body, in order; nil when it is not one.
    static func multipart(_ body: [UInt8], contentType: String?) -> [(name: String, filename: String?, bytes: [UInt8])]? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
              let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Array(("--" + contentType[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        var positions: [Int] = []
        var index = 0
        while index + boundary.count <= body.count {
            if Array(body[index..<index + boundary.count]) == boundary { positions.append(index); index += boundary.count } else { index += 1 }
        }
        guard positions.count >= 2, body[(positions.last ?? 0) + boundary.count..<min(body.count, (positions.last ?? 0) + boundary.count + 2)].elementsEqual("--".utf8) else {
            return nil
        }
        var parts: [(name: String, filename: String?, bytes: [UInt8])] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            var part = Array(body[(start + boundary.count)..<end])
            guard part.starts(with: [13, 10]) else { return nil }
            part.removeFirst(2)
            guard part.suffix(2) == [13, 10] else { return nil }
            part.removeLast(2)
            guard let split = (0..<max(0, part.count - 3)).first(where: { part[$0] == 13 && part[$0 + 1] == 10 && part[$0 + 2] == 13 && part[$0 + 3] == 10 }) else { return nil }
            let headers = String(decoding: part[..<split], as: UTF8.self)
            guard headers.lowercased().contains("content-disposition: form-data") else { return nil }
            func attribute(_ key: String) -> String? {
                guard let found = headers.range(of: "; \(key)=\"") else { return nil }
                let rest = headers[found.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
            guard let name = attribute("name") else { return nil }
            parts.append((name, attribute("filename"), Array(part[(split + 4)...])))
        }
        return parts
    }
}
