import Foundation
import Hummingbird
@testable import Shiplane

/// An in-process Swift package registry on 127.0.0.1, written from SwiftPM's published service
/// specification (`Documentation/PackageRegistry/Registry.md` and `registry.openapi.yaml`),
/// serving what was published to it — enough for SwiftPM itself to resolve and build a consumer.
///
/// Checked strictly, as the specification says: `Accept` must be `application/vnd.swift.registry`
/// with an optional `.v1` and `+json`/`+zip`/`+swift` (another version is 415, a malformed one 400,
/// 3.5); every answer carries `Content-Version: 1`; errors are problem details (RFC 7807,
/// `application/problem+json`). Endpoints (4): `GET /{scope}/{name}` (releases, `latest-version`
/// link), `GET /{scope}/{name}/{version}` (id, version, the `source-archive` resource with its
/// SHA-256 checksum, metadata, publishedAt), `GET …/{version}/Package.swift{?swift-version}`
/// (`text/x-swift`, an `alternate` link for each `Package@swift-*.swift`, 303 to the unqualified
/// manifest when the asked one is missing), `GET …/{version}.zip` (`application/zip`,
/// `Content-Disposition`, `Digest`), `GET /identifiers?url=` (from `repositoryURLs`; 400 without
/// `url`), and `PUT /{scope}/{name}/{version}` (4.6): `multipart/form-data` with a boundary; only
/// the parts `source-archive` (required), `source-archive-signature`, `metadata`,
/// `metadata-signature`; a signature needs `X-Swift-Package-Signature-Format`; the metadata must
/// follow Appendix B's schema (unknown members refused, 422); the archive must be a zip whose
/// entries sit under one top-level folder holding `Package.swift` (422 otherwise); an existing
/// version is 409. Scopes and names are case-insensitive (3.6). A request the specification
/// refuses is also kept in `violations`, so a test fails on it.
final class FakeSwiftRegistry: @unchecked Sendable {
    struct Release {
        var id: String
        var version: String
        var archive: Data
        var checksum: String
        var metadata: [String: Any]
        var signature: Data?
        var signatureFormat: String?
        var manifests: [String: Data]
        var folder: String
    }

    private let lock = NSLock()
    private var releases: [String: [String: Release]] = [:]
    private var requests: [String] = []
    private var problems: [String] = []
    private var submissions: [String: (key: String, version: String, polls: Int)] = [:]
    private(set) var server: TestServer?
    private let folder = NSTemporaryDirectory() + "shiplane-fake-registry-\(UUID().uuidString)"
    /// A Bearer token PUT must carry; nil: no authentication.
    let token: String?
    /// `login:password` a PUT must carry as HTTP Basic authentication; nil: none asked.
    var basicLogin: String?
    /// Answer a publication with 202 and a status location to poll (4.6.3.2).
    var asynchronous = false
    /// Seconds a publication waits, after the release is stored, before it is answered.
    var answerDelay: Double = 0

    /// The largest request body kept (a larger one is cut there, and its multipart refused).
    let bodyLimit: Int

    init(token: String? = nil, bodyLimit: Int = 64 << 20) {
        self.token = token
        self.bodyLimit = bodyLimit
    }

    var baseURL: String { server?.baseURL ?? "" }
    /// Every request as "METHOD path", in order.
    var log: [String] { lock.withLock { requests } }
    /// Requests the specification refuses.
    var violations: [String] { lock.withLock { problems } }
    var puts: Int { log.filter { $0.hasPrefix("PUT ") }.count }
    func release(_ id: String, _ version: String) -> Release? { lock.withLock { releases[id.lowercased()]?[version] } }
    /// Replaces a stored release's archive (and its checksum), keeping its signature: a tampered release.
    func tamper(_ id: String, _ version: String, archive: Data) {
        lock.withLock {
            releases[id.lowercased()]?[version]?.archive = archive
            releases[id.lowercased()]?[version]?.checksum = SHA256.hex(of: archive)
        }
    }
    /// The parts of the last publication, by name.
    private(set) var lastParts: [String] = []

    func start() async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    // MARK: - Answers

    private func problem(_ status: Int, _ detail: String, headers: [String: String] = [:], violation: Bool = false) -> Response {
        if violation { lock.withLock { problems.append("\(status): \(detail)") } }
        return Reply.raw(status, Array((try? JSONSerialization.data(withJSONObject: ["detail": detail])) ?? Data()),
                         contentType: "application/problem+json", headers: ["Content-Version": "1", "Content-Language": "en"].merging(headers) { $1 })
    }

    private func json(_ object: Any, headers: [String: String] = [:]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Reply.raw(200, Array(data), contentType: "application/json", headers: ["Content-Version": "1"].merging(headers) { $1 })
    }

    /// 3.5: `application/vnd.swift.registry[.v1][+json|+zip|+swift]`.
    private func acceptProblem(_ accept: String?, media: String) -> Response? {
        guard let accept else { return nil }  // a server MAY process a request without Accept
        let value = accept.split(separator: ",").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        guard let match = value.wholeMatch(of: /application\/vnd\.swift\.registry(?:\.v(\w+))?(?:\+(\w+))?/) else {
            return problem(400, "invalid Accept header \(value)", violation: true)
        }
        if let version = match.1, version != "1" { return problem(version.allSatisfy(\.isNumber) ? 415 : 400, "unsupported API version", violation: true) }
        if let given = match.2, given != media { return problem(400, "this endpoint serves +\(media), not +\(given)", violation: true) }
        return nil
    }

    private func handle(_ request: Request) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let (bytes, _) = try await request.readBody(keeping: bodyLimit)
        lock.withLock { requests.append("\(request.method) \(path)") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { String($0).removingPercentEncoding ?? String($0) }

        if request.method == .get, parts == ["identifiers"] {
            if let bad = acceptProblem(request.header("Accept"), media: "json") { return bad }
            guard let url = query["url"], !url.isEmpty else { return problem(400, "missing url parameter") }
            let ids = lock.withLock {
                releases.values.flatMap { $0.values }.filter { (($0.metadata["repositoryURLs"] as? [String]) ?? []).contains(url) }.map(\.id)
            }
            return ids.isEmpty ? problem(404, "no package identifiers for \(url)") : json(["identifiers": Array(Set(ids)).sorted()])
        }
        if request.method == .get, parts.count == 2, parts[0] == "submissions" {
            return submissionStatus(parts[1])
        }
        guard parts.count >= 2, parts.count <= 4 else { return problem(404, "not found") }
        let scope = parts[0], name = parts[1]
        guard SwiftRegistryPackage.parse(id: "\(scope).\(name.replacingOccurrences(of: ".json", with: ""))", registry: "http://x") != nil else {
            return problem(404, "invalid package identifier \(scope).\(name)")
        }
        let key = "\(scope).\(name)".lowercased()

        switch (request.method, parts.count) {
        case (.get, 2):
            if let bad = acceptProblem(request.header("Accept"), media: "json") { return bad }
            let packageKey = key.hasSuffix(".json") ? String(key.dropLast(5)) : key
            let list = lock.withLock { releases[packageKey] ?? [:] }
            guard !list.isEmpty else { return problem(404, "package not found") }
            let base = "\(baseURL)/\(scope)/\(name)"
            var entries: [String: Any] = [:]
            for version in list.keys { entries[version] = ["url": "\(base)/\(version)"] }
            let latest = list.keys.compactMap { SemanticVersion($0) }.max().map { "\($0)" } ?? ""
            return json(["releases": entries], headers: ["Link": "<\(base)/\(latest)>; rel=\"latest-version\""])
        case (.get, 3):
            let last = parts[2]
            if last.hasSuffix(".zip") {
                if let bad = acceptProblem(request.header("Accept"), media: "zip") { return bad }
                guard let release = release(key, String(last.dropLast(4))) else { return problem(404, "release not found") }
                var headers = ["Content-Version": "1", "Cache-Control": "public, immutable",
                               "Content-Disposition": "attachment; filename=\"\(name)-\(release.version).zip\"",
                               "Digest": "sha-256=" + Data(hexChecksum: release.checksum).base64EncodedString()]
                if let signature = release.signature, let format = release.signatureFormat {
                    headers["X-Swift-Package-Signature-Format"] = format
                    headers["X-Swift-Package-Signature"] = signature.base64EncodedString()
                }
                return Reply.raw(200, Array(release.archive), contentType: "application/zip", headers: headers)
            }
            if let bad = acceptProblem(request.header("Accept"), media: "json") { return bad }
            let version = last.hasSuffix(".json") ? String(last.dropLast(5)) : last
            guard let release = release(key, version) else { return problem(404, "release not found") }
            var resource: [String: Any] = ["name": "source-archive", "type": "application/zip", "checksum": release.checksum]
            if let signature = release.signature, let format = release.signatureFormat {
                resource["signing"] = ["signatureBase64Encoded": signature.base64EncodedString(), "signatureFormat": format]
            }
            return json(["id": release.id, "version": release.version, "resources": [resource], "metadata": release.metadata,
                         "publishedAt": "2026-01-01T00:00:00.000Z"])
        case (.get, 4) where parts[3] == "Package.swift":
            if let bad = acceptProblem(request.header("Accept"), media: "swift") { return bad }
            guard let release = release(key, parts[2]) else { return problem(404, "release not found") }
            let base = "\(baseURL)/\(scope)/\(name)/\(release.version)/Package.swift"
            if let swiftVersion = query["swift-version"] {
                guard let manifest = release.manifests["Package@swift-\(swiftVersion).swift"] else {
                    return Reply.raw(303, [], contentType: nil, headers: ["Content-Version": "1", "Location": base])
                }
                return manifestReply(manifest, filename: "Package@swift-\(swiftVersion).swift", links: [])
            }
            let links = release.manifests.keys.sorted().filter { $0 != "Package.swift" }.map { file -> String in
                let version = String(file.dropFirst("Package@swift-".count).dropLast(".swift".count))
                let tools = Self.toolsVersion(release.manifests[file] ?? Data()) ?? version
                return "<\(base)?swift-version=\(version)>; rel=\"alternate\"; filename=\"\(file)\"; swift-tools-version=\"\(tools)\""
            }
            return manifestReply(release.manifests["Package.swift"] ?? Data(), filename: "Package.swift", links: links)
        case (.put, 3):
            return try await publish(request, bytes: bytes, scope: scope, name: name, key: key, version: parts[2])
        default:
            return problem(405, "\(request.method) is not allowed on \(path)")
        }
    }

    private func manifestReply(_ manifest: Data, filename: String, links: [String]) -> Response {
        var headers = ["Content-Version": "1", "Cache-Control": "public, immutable", "Content-Disposition": "attachment; filename=\"\(filename)\""]
        if !links.isEmpty { headers["Link"] = links.joined(separator: ", ") }
        return Reply.raw(200, Array(manifest), contentType: "text/x-swift", headers: headers)
    }

    static func toolsVersion(_ manifest: Data) -> String? {
        let first = String(decoding: manifest.prefix(200), as: UTF8.self).split(separator: "\n").first ?? ""
        return first.firstMatch(of: /swift-tools-version:\s*([0-9.]+)/).map { String($0.1) }
    }

    // MARK: - Publication (4.6)

    private func publish(_ request: Request, bytes: [UInt8], scope: String, name: String, key: String, version: String) async throws -> Response {
        if let bad = acceptProblem(request.header("Accept"), media: "json") { return bad }
        if let token, request.header("Authorization") != "Bearer \(token)" { return problem(401, "authentication required") }
        if let basicLogin, request.header("Authorization") != "Basic " + Data(basicLogin.utf8).base64EncodedString() {
            return problem(401, "authentication required")
        }
        guard SemanticVersion(version) != nil else { return problem(400, "\(version) is not a semantic version", violation: true) }
        let contentType = request.header("Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundaryMatch = contentType.firstMatch(of: /boundary="?([^";]+)"?/) else {
            return problem(400, "Content-Type must be multipart/form-data with a boundary", violation: true)
        }
        guard let parts = Self.multipart(Data(bytes), boundary: String(boundaryMatch.1)) else {
            return problem(400, "the body is not multipart/form-data", violation: true)
        }
        lock.withLock { lastParts = parts.keys.sorted() }
        if parts["metadata-signature"] != nil, parts["metadata"] == nil { return problem(422, "a metadata signature without metadata", violation: true) }
        let allowed: Set = ["source-archive", "source-archive-signature", "metadata", "metadata-signature"]
        if let unknown = parts.keys.first(where: { !allowed.contains($0) }) { return problem(422, "unknown part \(unknown)", violation: true) }
        guard let archive = parts["source-archive"] else { return problem(422, "missing source-archive", violation: true) }
        let signature = parts["source-archive-signature"]
        let format = request.header("X-Swift-Package-Signature-Format")
        if signature != nil, format == nil { return problem(422, "a signed archive needs X-Swift-Package-Signature-Format", violation: true) }
        var metadata: [String: Any] = [:]
        if let data = parts["metadata"] {
            let found = PublishToSwiftRegistry.metadataProblems(data)
            guard found.isEmpty, let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                return problem(422, "invalid JSON provided for release metadata: \(found.joined(separator: "; "))", violation: true)
            }
            metadata = object
        }
        if lock.withLock({ releases[key]?[version] != nil }) { return problem(409, "a release with version \(version) already exists") }
        let file = folder + "/\(UUID().uuidString).zip"
        try archive.write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard let paths = try? ZipEntries.paths(in: file) else { return problem(422, "the source archive is not a zip archive", violation: true) }
        let tops = Set(paths.map { String($0.split(separator: "/").first ?? "") })
        guard tops.count == 1, let top = tops.first, paths.contains("\(top)/Package.swift") else {
            return problem(422, "package doesn't contain a valid manifest (Package.swift) file under one top-level folder: \(tops.sorted())", violation: true)
        }
        var manifests: [String: Data] = [:]
        for path in paths where path.hasPrefix(top + "/") && !path.dropFirst(top.count + 1).contains("/") {
            let file0 = String(path.dropFirst(top.count + 1))
            if SwiftSourceArchive.isManifest(file0) { manifests[file0] = try ZipEntries.contents(of: path, in: file) }
        }
        let release = Release(id: "\(scope).\(name)", version: version, archive: archive, checksum: SHA256.hex(of: archive),
                              metadata: metadata, signature: signature, signatureFormat: signature == nil ? nil : format,
                              manifests: manifests, folder: top)
        lock.withLock { releases[key, default: [:]][version] = release }
        if answerDelay > 0 { try await Task.sleep(nanoseconds: UInt64(answerDelay * 1_000_000_000)) }
        let location = "\(baseURL)/\(scope)/\(name)/\(version)"
        if asynchronous {
            let id = UUID().uuidString
            lock.withLock { submissions[id] = (key, version, 0) }
            return Reply.raw(202, [], contentType: nil, headers: ["Content-Version": "1", "Location": "\(baseURL)/submissions/\(id)", "Retry-After": "1"])
        }
        return Reply.raw(201, [], contentType: nil, headers: ["Content-Version": "1", "Location": location])
    }

    /// 4.6.3.2: 202 while processing (once), then 301 to the release.
    private func submissionStatus(_ id: String) -> Response {
        let state = lock.withLock { () -> (String, String, Int)? in
            guard var entry = submissions[id] else { return nil }
            entry.polls += 1
            submissions[id] = entry
            return (entry.key, entry.version, entry.polls)
        }
        guard let (key, version, polls) = state else { return problem(404, "no such submission") }
        if polls < 2 { return json(["status": "Processing (1/2 steps complete)"], headers: ["Retry-After": "1"]).withStatus(202) }
        let parts = key.split(separator: ".", maxSplits: 1)
        return Reply.raw(301, [], contentType: nil, headers: ["Content-Version": "1", "Location": "\(baseURL)/\(parts[0])/\(parts[1])/\(version)"])
    }

    /// The parts of a `multipart/form-data` body by name (RFC 7578), base64 parts decoded.
    static func multipart(_ body: Data, boundary: String) -> [String: Data]? {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [String: Data] = [:]
        var ranges: [Range<Data.Index>] = []
        var search = body.startIndex..<body.endIndex
        while let found = body.range(of: delimiter, in: search) {
            ranges.append(found)
            search = found.upperBound..<body.endIndex
        }
        guard ranges.count >= 2, let last = ranges.last, body[last.upperBound...].starts(with: Data("--".utf8)) else { return nil }
        for (start, end) in zip(ranges, ranges.dropFirst()) {
            var chunk = body[start.upperBound..<end.lowerBound]
            guard chunk.starts(with: Data("\r\n".utf8)) else { return nil }
            chunk = chunk.dropFirst(2)
            guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else { return nil }
            let headerText = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
            var content = Data(chunk[split.upperBound...])
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            var name: String?
            var encoding = "binary"
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:"), let match = line.firstMatch(of: /name="([^"]+)"/) { name = String(match.1) }
                if lower.hasPrefix("content-transfer-encoding:") { encoding = lower.dropFirst("content-transfer-encoding:".count).trimmingCharacters(in: .whitespaces) }
            }
            guard let name else { return nil }
            if encoding == "base64" {
                guard let decoded = Data(base64Encoded: content, options: .ignoreUnknownCharacters) else { return nil }
                content = decoded
            }
            parts[name] = content
        }
        return parts
    }
}

private extension Response {
    func withStatus(_ code: Int) -> Response {
        var copy = self
        copy.status = .init(code: code)
        return copy
    }
}

private extension Data {
    init(hexChecksum hexDigest: String) {
        var bytes: [UInt8] = []
        var index = hexDigest.startIndex
        while index < hexDigest.endIndex, let next = hexDigest.index(index, offsetBy: 2, limitedBy: hexDigest.endIndex) {
            bytes.append(UInt8(hexDigest[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}
