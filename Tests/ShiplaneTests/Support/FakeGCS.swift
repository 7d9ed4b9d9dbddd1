import Crypto
import Foundation
import Hummingbird
import Testing
import _CryptoExtras

/// An in-process Google Cloud Storage JSON API (v1) and OAuth token endpoint, written from
/// Google's published description of the methods a match store uses — not from Shiplane's client:
///
/// - `buckets.get` `GET /storage/v1/b/{bucket}`;
/// - `objects.list` `GET /storage/v1/b/{bucket}/o` (`prefix`, `maxResults`, `pageToken`; items in
///   lexicographic order, `nextPageToken` while more remain);
/// - `objects.get` `GET /storage/v1/b/{bucket}/o/{object}` (`alt=media` for the bytes,
///   `generation`, `ifGenerationMatch`);
/// - `objects.insert` media upload `POST /upload/storage/v1/b/{bucket}/o?uploadType=media&name=`
///   (`ifGenerationMatch`, 0 meaning "only when no live object exists");
/// - `objects.delete` `DELETE /storage/v1/b/{bucket}/o/{object}` (`ifGenerationMatch`; 204, no body).
///
/// A precondition that fails answers 412 with reason `conditionNotMet`; object names in the path
/// must be percent-encoded (a raw `/` in the name's segment is a violation); generations are
/// int64 written as JSON strings, as the object resource describes them. Every API request needs a
/// bearer token this stand-in issued at `/token` for an RS256 assertion signed by the test service
/// account (scope `devstorage.read_write`, `aud` the token URL). Unknown query parameters and
/// methods the description does not have are violations, and `stop()` fails the test for each.
final class FakeGCS: @unchecked Sendable {
    struct StoredObject { var bytes: Data; var generation: Int64 }

    let lock = NSLock()
    let bucket: String
    var objects: [String: StoredObject] = [:]
    var nextGeneration: Int64 = 1_700_000_000_000_001
    var issuedTokens: Set<String> = []
    var requestLog: [String] = []
    var violations: [String] = []
    /// Before the first upload of an object whose name ends with the key, another writer runs (a second machine).
    var interference: [String: () -> Void] = [:]
    private(set) var server: TestServer?

    var baseURL: String { server?.baseURL ?? "" }
    var tokenURL: String { baseURL + "/token" }
    var log: [String] { lock.withLock { requestLog } }

    init(bucket: String = "acme-signing") { self.bucket = bucket }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() {
        server?.stop()
        for problem in lock.withLock({ violations }) { Issue.record("the Cloud Storage stand-in saw a request Google's description refuses: \(problem)") }
    }

    /// Writes an object as another client would (a new generation).
    @discardableResult
    func write(_ name: String, _ bytes: Data) -> Int64 {
        lock.withLock { writeLocked(name, bytes) }
    }

    private func writeLocked(_ name: String, _ bytes: Data) -> Int64 {
        let generation = nextGeneration
        nextGeneration += 1
        objects[name] = StoredObject(bytes: bytes, generation: generation)
        return generation
    }

    /// The environment that points Shiplane at this server with the test service account's key file at `keysFile`.
    func environment(keysFile: String) throws -> [String: String] {
        try Data(StoreFixtures.serviceAccountJSON(tokenURL: tokenURL).utf8).write(to: URL(fileURLWithPath: keysFile))
        return ["STORAGE_EMULATOR_HOST": baseURL, "MATCH_GOOGLE_CLOUD_KEYS_FILE": keysFile]
    }

    // MARK: - Answers

    static func error(_ status: Int, _ reason: String, _ message: String) -> Response {
        Reply.json(status, ["error": ["code": status, "message": message, "errors": [["domain": "global", "reason": reason, "message": message]]]])
    }

    func resource(_ name: String, _ object: StoredObject) -> [String: Any] {
        let md5 = Data(Insecure.MD5.hash(data: object.bytes)).base64EncodedString()
        return ["kind": "storage#object", "id": "\(bucket)/\(name)/\(object.generation)", "name": name, "bucket": bucket,
                "generation": String(object.generation), "metageneration": "1", "size": String(object.bytes.count),
                "contentType": "application/octet-stream", "md5Hash": md5, "storageClass": "STANDARD"]
    }

    // MARK: - Requests

    func handle(_ request: Request) async throws -> Response {
        let raw = request.uri.description
        let rawPath = String(raw.prefix(while: { $0 != "?" }))
        let query = request.pathAndQuery.query
        let method = request.method.rawValue
        lock.withLock { requestLog.append("\(method) \(rawPath)" + (query["pageToken"].map { " pageToken=\($0)" } ?? "")) }
        if rawPath == "/token" && method == "POST" { return try await token(request) }
        guard let authorization = request.header("authorization"), authorization.hasPrefix("Bearer "),
              lock.withLock({ issuedTokens.contains(String(authorization.dropFirst(7))) }) else {
            _ = try await request.readBody(keeping: 0)
            return Self.error(401, "required", "Anonymous caller does not have storage.objects.list access.")
        }
        let bucketPath = "/storage/v1/b/\(bucket)"
        let uploadPath = "/upload/storage/v1/b/\(bucket)/o"
        if method == "POST", rawPath == uploadPath { return try await insert(request, query: query) }
        if method == "GET", rawPath == bucketPath { return check(query, allowed: ["projection", "userProject"]) ?? Reply.json(200, ["kind": "storage#bucket", "id": bucket, "name": bucket]) }
        if method == "GET", rawPath == bucketPath + "/o" { return list(query) }
        if rawPath.hasPrefix(bucketPath + "/o/") {
            let encoded = String(rawPath.dropFirst((bucketPath + "/o/").count))
            guard !encoded.contains("/"), let name = encoded.removingPercentEncoding else {
                violate("\(method) \(rawPath): the object name must be percent-encoded in the path (a / is %2F)")
                return Self.error(404, "notFound", "Not Found")
            }
            if method == "GET" { return get(name, query) }
            if method == "DELETE" { return delete(name, query) }
        }
        if rawPath.hasPrefix("/storage/v1/b/") || rawPath.hasPrefix("/upload/storage/v1/b/") {
            let other = rawPath.split(separator: "/").dropFirst(3).first.map(String.init) ?? ""
            if other != bucket { return Self.error(404, "notFound", "The specified bucket does not exist.") }
        }
        violate("\(method) \(rawPath): no such method in the JSON API description")
        return Self.error(404, "notFound", "Not Found")
    }

    func violate(_ problem: String) { lock.withLock { violations.append(problem) } }

    /// A 400 when `query` holds a parameter the method does not take.
    func check(_ query: [String: String], allowed: Set<String>) -> Response? {
        let unknown = Set(query.keys).subtracting(allowed.union(["alt", "fields", "prettyPrint", "quotaUser", "userIp"]))
        guard unknown.isEmpty else {
            violate("unknown query parameters \(unknown.sorted())")
            return Self.error(400, "invalid", "Invalid argument: \(unknown.sorted().joined(separator: ", "))")
        }
        return nil
    }

    /// Checks `ifGenerationMatch` (0: no live object may exist) against the object as it is.
    func precondition(_ query: [String: String], _ current: StoredObject?) -> Response? {
        guard let value = query["ifGenerationMatch"] else { return nil }
        guard let wanted = Int64(value) else { return Self.error(400, "invalid", "Invalid value for ifGenerationMatch: \(value)") }
        let holds = wanted == 0 ? current == nil : current?.generation == wanted
        return holds ? nil : Self.error(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.")
    }

    func list(_ query: [String: String]) -> Response {
        if let refused = check(query, allowed: ["prefix", "maxResults", "pageToken", "delimiter", "startOffset", "endOffset", "versions", "projection",
                                                "includeTrailingDelimiter", "matchGlob", "softDeleted", "includeFoldersAsPrefixes", "userProject"]) { return refused }
        let prefix = query["prefix"] ?? ""
        let size = min(Int(query["maxResults"] ?? "") ?? 1000, 1000)
        guard size > 0 else { return Self.error(400, "invalid", "Invalid value for maxResults") }
        return lock.withLock {
            let names = objects.keys.filter { $0.hasPrefix(prefix) }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            // The page token is opaque to clients: here, the last name of the previous page, base64.
            let after = query["pageToken"].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
            if query["pageToken"] != nil && after == nil { return Self.error(400, "invalid", "Invalid page token") }
            let remaining = after.map { last in names.filter { Array(last.utf8).lexicographicallyPrecedes(Array($0.utf8)) } } ?? names
            let page = Array(remaining.prefix(size))
            var answer: [String: Any] = ["kind": "storage#objects"]
            if !page.isEmpty { answer["items"] = page.compactMap { name in objects[name].map { resource(name, $0) } } }
            if remaining.count > page.count, let last = page.last { answer["nextPageToken"] = Data(last.utf8).base64EncodedString() }
            return Reply.json(200, answer)
        }
    }

    func get(_ name: String, _ query: [String: String]) -> Response {
        if let refused = check(query, allowed: ["generation", "ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch",
                                                "ifMetagenerationNotMatch", "projection", "softDeleted", "userProject"]) { return refused }
        return lock.withLock {
            guard let object = objects[name], query["generation"].map({ $0 == String(object.generation) }) ?? true else {
                return Self.error(404, "notFound", "No such object: \(bucket)/\(name)")
            }
            if let failed = precondition(query, object) { return failed }
            if query["alt"] == "media" {
                return Reply.raw(200, Array(object.bytes), contentType: "application/octet-stream", headers: ["x-goog-generation": String(object.generation)])
            }
            return Reply.json(200, resource(name, object))
        }
    }

    func delete(_ name: String, _ query: [String: String]) -> Response {
        if let refused = check(query, allowed: ["generation", "ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch",
                                                "ifMetagenerationNotMatch", "userProject"]) { return refused }
        return lock.withLock {
            guard let object = objects[name] else { return Self.error(404, "notFound", "No such object: \(bucket)/\(name)") }
            if let failed = precondition(query, object) { return failed }
            objects[name] = nil
            return Reply.empty(204)
        }
    }

    func insert(_ request: Request, query: [String: String]) async throws -> Response {
        let body = try await request.readBody().bytes
        if let refused = check(query, allowed: ["uploadType", "name", "ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch",
                                                "ifMetagenerationNotMatch", "contentEncoding", "kmsKeyName", "predefinedAcl", "projection", "userProject"]) { return refused }
        guard query["uploadType"] == "media", let name = query["name"], !name.isEmpty else {
            violate("POST upload without uploadType=media and a name (\(query))")
            return Self.error(400, "required", "Required parameter: name")
        }
        let interfering: (() -> Void)? = lock.withLock {
            guard let key = interference.keys.first(where: { name.hasSuffix($0) }) else { return nil }
            return interference.removeValue(forKey: key)
        }
        interfering?()
        return lock.withLock {
            if let failed = precondition(query, objects[name]) { return failed }
            let generation = writeLocked(name, Data(body))
            return Reply.json(200, resource(name, StoredObject(bytes: Data(body), generation: generation)))
        }
    }

    // MARK: - Token

    /// A token this stand-in accepts, as one another issuer (the metadata server) hands out.
    func issueToken() -> String {
        let token = "ya29.metadata-" + UUID().uuidString
        lock.withLock { _ = issuedTokens.insert(token) }
        return token
    }

    func token(_ request: Request) async throws -> Response {
        let form = String(decoding: try await request.readBody().bytes, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        let refused = Reply.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])
        guard request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true,
              fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"],
              let publicKey = StoreFixtures.googleKey?.publicKey else { return refused }
        let verified = VerifiedJWT.verify(assertion) { input, signature in
            publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        }
        guard case .success(let jwt) = verified else { return refused }
        let now = Int(Date().timeIntervalSince1970)
        guard jwt.header["alg"] as? String == "RS256", jwt.claims["iss"] as? String == StoreFixtures.googleEmail,
              jwt.claims["scope"] as? String == "https://www.googleapis.com/auth/devstorage.read_write", jwt.claims["aud"] as? String == tokenURL,
              let iat = jwt.claims["iat"] as? Int, let exp = jwt.claims["exp"] as? Int, iat <= now + 60, exp > now, exp - iat <= 3600 else {
            return Reply.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT: claims rejected."])
        }
        let token = "ya29.gcs-" + UUID().uuidString
        lock.withLock { _ = issuedTokens.insert(token) }
        return Reply.json(200, ["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }
}
