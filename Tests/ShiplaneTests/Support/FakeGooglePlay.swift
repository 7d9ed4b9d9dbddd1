import Crypto
import Foundation
import Hummingbird
import NIOCore
import Testing
import _CryptoExtras

/// An in-process model of Google's token endpoint and the Android Publisher API's edits, strict like the real ones.
///
/// The token endpoint verifies the assertion's RS256 signature with the service account's public
/// key and its claims (iss, scope, aud = the token URL, iat, exp at most an hour later). The API
/// accepts only tokens it issued; edits hold uploaded bundles (simple or resumable, bytes checked
/// against the Content-Range and stored on disk) and track releases until committed; track
/// updates with unknown members, unknown version codes or a fraction without a staged status are
/// refused; faults can be injected.
///
/// Every request is checked against Google's published description (`PlayAPIDescription`):
/// a request it would refuse is answered 400 (404 for a path that is no method) and recorded,
/// and every successful answer is checked against the method's response schema. `stop()` fails
/// the running test for each problem recorded that the test did not take with `takeViolations()`.
final class FakeGooglePlay: @unchecked Sendable {
    struct Image { var id: String; var sha1: String; var sha256: String }
    struct Edit {
        /// When the edit expires, as Google gives it (seconds since 1970): set once, when it is opened.
        var expiryTimeSeconds = String(Int(Date().timeIntervalSince1970) + 7 * 86400)
        var bundles: [(versionCode: Int64, sha256: String)] = []
        var tracks: [String: [String: Any]] = [:]
        /// The store listing as this edit has it: language → Listing members; language → image type → images.
        var listings: [String: [String: String]] = [:]
        var images: [String: [String: [Image]]] = [:]
    }
    struct Session { var editID: String; var total: Int64; var received: Int64; var storage: String }
    struct Fault { var method: String?; var pathContains: String; var remaining: Int; var status: Int; var body: String; var delay: Double? = nil }

    let lock = NSLock()
    let packageName: String
    var publicKey: _RSA.Signing.PublicKey?
    var edits: [String: Edit] = [:]
    var sessions: [String: Session] = [:]
    var committedTracks: [String: [String: Any]] = [:]
    var committedListings: [String: [String: String]] = [:]
    var committedImages: [String: [String: [Image]]] = [:]
    /// Every image upload that arrived, as "language/type".
    var imageUploads: [String] = []
    var usedVersionCodes: Set<Int64> = []
    /// The app's bundles from committed edits: edits.bundles.list "Lists all current Android App
    /// Bundles of the app and edit" (Google's description), so every edit lists these too.
    var appBundles: [(versionCode: Int64, sha256: String)] = []
    var issuedTokens: Set<String> = []
    var faults: [Fault] = []
    var requestLog: [String] = []
    /// Called with each write request to the API ("METHOD path") as it arrives, before it is handled (outside the lock).
    var writeHook: (@Sendable (String) -> Void)?
    let violationLock = NSLock()
    var violationLog: [String] = []
    /// The id of the described method being answered (task-local, so routes under `lock` can check their answers).
    @TaskLocal static var answering: String?
    static let uploadMethodID = "androidpublisher.edits.bundles.upload"
    var authorizationOnSession: [String?] = []
    var nextID = 1
    /// Google asks for `changesNotSentForReview=true` (an app whose changes it will not send for review automatically).
    var requiresChangesNotSentForReview = false
    /// Changes are in review (a commit without ERROR_IF_IN_REVIEW cancels that review, as the description says).
    var changesInReview = false
    var cancelledReviews = 0
    /// The query of every commit that went through.
    var commitQueries: [[String: String]] = []
    /// The version code the next uploaded bundle gets.
    var nextVersionCode: Int64 = 42
    let storageFolder: String

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }
    var tokenURL: String { baseURL + "/token" }

    init(packageName: String = "com.acme.rocket", publicKey: _RSA.Signing.PublicKey? = StoreFixtures.googleKey?.publicKey) throws {
        self.packageName = packageName
        self.publicKey = publicKey
        storageFolder = NSTemporaryDirectory() + "fake-play-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: storageFolder, withIntermediateDirectories: true)
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() {
        server?.stop()
        for problem in takeViolations() { Issue.record("the Play stand-in saw a request or gave an answer Google's description refuses: \(problem)") }
        try? FileManager.default.removeItem(atPath: storageFolder)
    }

    func fail(_ count: Int, method: String? = nil, path: String, status: Int = 503, body: String = "") {
        lock.withLock { faults.append(Fault(method: method, pathContains: path, remaining: count, status: status, body: body)) }
    }

    /// The next `count` matching requests hang for `seconds`, then get `status` (a call that never lands).
    func hang(_ count: Int, method: String? = nil, path: String, seconds: Double, status: Int = 503) {
        lock.withLock { faults.append(Fault(method: method, pathContains: path, remaining: count, status: status, body: "", delay: seconds)) }
    }

    var log: [String] { lock.withLock { requestLog } }

    /// The problems recorded so far, which `stop()` then no longer reports.
    func takeViolations() -> [String] {
        violationLock.withLock {
            defer { violationLog = [] }
            return violationLog
        }
    }

    func violation(_ problems: [String]) {
        violationLock.withLock { violationLog += problems }
    }

    /// A JSON answer, checked against the response schema of the method being answered when it is a success.
    func answer(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> Response {
        if (200..<300).contains(status), let id = Self.answering, let method = PlayAPIDescription.shared.method(id) {
            violation(PlayAPIDescription.shared.problems(answer: object, for: method))
        }
        return Reply.json(status, object, headers: headers)
    }

    /// An empty answer, which only a method without a response schema may give.
    func answerEmpty(_ status: Int, headers: [String: String] = [:]) -> Response {
        if (200..<300).contains(status), let id = Self.answering, let method = PlayAPIDescription.shared.method(id) {
            violation(PlayAPIDescription.shared.problems(answer: nil, for: method))
        }
        return Reply.empty(status, headers: headers)
    }
    var openEdits: [String: Edit] { lock.withLock { edits } }
    var tracks: [String: [String: Any]] { lock.withLock { committedTracks } }

    /// Sets a committed track's one completed release, as if earlier uploads had made it.
    func setTrack(_ name: String, versionCodes: [Int]) {
        lock.withLock {
            committedTracks[name] = ["track": name, "releases": [["status": "completed", "versionCodes": versionCodes.map(String.init)]]]
        }
    }

    static func error(_ status: Int, _ message: String, _ state: String) -> Response {
        Reply.json(status, ["error": ["code": status, "message": message, "status": state]])
    }

    func handle(_ request: Request) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let method = request.method.rawValue
        if method != "GET", path != "/token", let hook = lock.withLock({ writeHook }) { hook("\(method) \(path)") }
        // The token endpoint is OAuth's; a session URI is the upload protocol's (opaque to the description).
        if path == "/token" { return try await serve(request, body: nil) }
        if path.hasPrefix("/upload/session/") {
            return try await Self.$answering.withValue(Self.uploadMethodID) { try await serve(request, body: nil) }
        }
        let isUpload = path.hasPrefix("/upload/") || path.hasPrefix("/resumable/upload/")
        let body = isUpload ? nil : try await request.readBody().bytes
        let (described, problems) = PlayAPIDescription.shared.problems(method: method, path: path, query: query, body: body) { request.header($0) }
        guard problems.isEmpty, let described else {
            violation(problems)
            lock.withLock { requestLog.append("\(method) \(path) (refused: not valid by the description)") }
            if isUpload { _ = try await request.readBody(keeping: 0) }
            return described == nil ? Self.error(404, "Not found", "NOT_FOUND") : Self.error(400, problems.joined(separator: "; "), "INVALID_ARGUMENT")
        }
        return try await Self.$answering.withValue(described.id) { try await serve(request, body: body) }
    }

    func serve(_ request: Request, body: [UInt8]?) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let method = request.method.rawValue
        let fault: Fault? = lock.withLock {
            requestLog.append("\(method) \(path)" + (query["uploadType"].map { "?uploadType=\($0)" } ?? ""))
            guard let index = faults.firstIndex(where: { ($0.method == nil || $0.method == method) && path.contains($0.pathContains) && $0.remaining > 0 }) else { return nil }
            faults[index].remaining -= 1
            return faults[index]
        }
        if let fault {
            if let delay = fault.delay { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
            return Reply.text(fault.status, fault.body, contentType: "application/json")
        }
        if path == "/token" { return try await token(request) }
        if path.hasPrefix("/upload/session/") { return try await resumableChunk(request, id: String(path.dropFirst("/upload/session/".count))) }
        guard let authorization = request.header("authorization"), authorization.hasPrefix("Bearer "),
              lock.withLock({ issuedTokens.contains(String(authorization.dropFirst(7))) }) else {
            return Self.error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        }
        let prefix = "/androidpublisher/v3/applications/"
        let uploadPrefix = "/upload" + prefix
        if path.hasPrefix(uploadPrefix) { return try await uploadBundle(request, path: String(path.dropFirst(uploadPrefix.count)), query: query) }
        guard path.hasPrefix(prefix) else { return Self.error(404, "Not found", "NOT_FOUND") }
        let rest = path.dropFirst(prefix.count).split(separator: "/").map(String.init)
        guard rest.first == packageName else { return Self.error(404, "Package not found: \(rest.first ?? "").", "NOT_FOUND") }
        return lock.withLock { route(method, Array(rest.dropFirst()), body ?? [], query: query) }
    }

    // MARK: - Token

    func token(_ request: Request) async throws -> Response {
        let form = String(decoding: try await request.readBody().bytes, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        let refused = Reply.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])
        guard request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true,
              fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"], let publicKey else { return refused }
        let verified = VerifiedJWT.verify(assertion) { input, signature in
            publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        }
        guard case .success(let jwt) = verified else { return refused }
        let now = Int(Date().timeIntervalSince1970)
        guard jwt.header["alg"] as? String == "RS256", jwt.claims["iss"] as? String == StoreFixtures.googleEmail,
              jwt.claims["scope"] as? String == "https://www.googleapis.com/auth/androidpublisher", jwt.claims["aud"] as? String == tokenURL,
              let iat = jwt.claims["iat"] as? Int, let exp = jwt.claims["exp"] as? Int, iat <= now + 60, exp > now, exp - iat <= 3600 else {
            return Reply.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT: claims rejected."])
        }
        let token = "ya29.test-" + UUID().uuidString
        lock.withLock { _ = issuedTokens.insert(token) }
        return Reply.json(200, ["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }
}
