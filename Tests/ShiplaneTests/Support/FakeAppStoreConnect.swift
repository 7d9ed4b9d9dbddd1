import Crypto
import Foundation
import Hummingbird
import NIOCore
import Testing

/// An in-process model of App Store Connect's build-upload and TestFlight API, strict like the real one.
///
/// Verifies every token's ES256 signature with the test key's public key and its header and
/// claims (kid, typ, iss, aud, iat, exp at most 20 minutes after iat); rejects JSON:API bodies
/// with missing or extra members and unknown query parameters; hands out upload operations in
/// several parts, each with its own required headers and an expiring URL; checks that a part
/// comes without the token, with the headers asked for and exactly its bytes (written to disk at
/// their offset); checks the committed SHA-256 against the bytes received; moves the build upload
/// through AWAITING_UPLOAD → PROCESSING → COMPLETE (or FAILED with Apple-style errors); and
/// injects faults.
final class FakeAppStoreConnect: @unchecked Sendable {
    struct Fault {
        var method: String?
        var pathContains: String
        var remaining: Int
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct BuildUpload { var appID: String; var version: String; var build: String; var platform: String; var state: String; var polls = 0; var buildID: String?; var fileIDs: [String] = [] }
    struct UploadFile { var uploadID: String; var name: String; var size: Int64; var parts: [(offset: Int64, length: Int64, token: String)]; var received: Set<Int> = []; var storage: String; var committed = false }
    struct Build { var appID: String; var version: String; var shortVersion: String; var processingState: String; var polls = 0; var encryption: Bool?; var groups: [String] = []; var whatsNew: [String: String] = [:]; var platform = "IOS"; var betaReview: (id: String, state: String)? }

    struct MediaSet { var resource: String; var localizationID: String; var type: String; var items: [String] = [] }
    struct MediaItem {
        var resource: String; var setID: String; var fileName: String; var size: Int64; var checksum: String?; var state: String
        /// An app preview's `mimeType` and `previewFrameTimeCode`, as sent.
        var mimeType: String? = nil; var previewFrameTimeCode: String? = nil
    }

    let lock = NSLock()
    var apps: [String: (bundleID: String, name: String)] = ["app-1": ("com.acme.rocket", "Rocket")]
    var groups: [String: (appID: String, name: String)] = ["group-qa": ("app-1", "QA"), "group-ext": ("app-1", "Friends")]
    var uploads: [String: BuildUpload] = [:]
    var files: [String: UploadFile] = [:]
    var builds: [String: Build] = [:]
    var localizations: [String: (buildID: String, locale: String, whatsNew: String)] = [:]
    var faults: [Fault] = []
    /// App Store versions: app, version string, platform, state.
    var storeVersions: [String: (appID: String, version: String, platform: String, state: String)] = [:]
    /// App infos of app-1 (the one being prepared).
    var appInfos: [String: (appID: String, state: String)] = ["info-1": ("app-1", "PREPARE_FOR_SUBMISSION")]
    /// Listing localizations by resource type (`appStoreVersionLocalizations`, `appInfoLocalizations`): parent, locale, attributes.
    var listing: [String: [String: (parentID: String, locale: String, attributes: [String: String])]] = [:]
    /// Screenshot and app preview sets (`resource`: appScreenshotSets or appPreviewSets), their items in order.
    var mediaSets: [String: MediaSet] = [:]
    /// Screenshots and app previews by id.
    var mediaItems: [String: MediaItem] = [:]
    /// App previews whose still frame alone was changed (a PATCH with only `previewFrameTimeCode`).
    var timeCodeChanges = 0
    /// Requests handled as usual whose answer is held back (a response lost on the way).
    var lateAnswers: [(method: String, pathContains: String, remaining: Int, seconds: Double)] = []
    /// App Review's state (see `FakeAppStoreConnect+Review.swift`).
    var review = FakeReviewState()
    /// Certificates, bundle IDs, devices and profiles (see `FakeAppStoreConnect+Signing.swift`).
    var signing = FakeSigningState()
    var requestLog: [String] = []
    /// Called with each write request ("METHOD path") as it arrives, before it is handled (outside the lock).
    var writeHook: (@Sendable (String) -> Void)?
    var partRequests: [(path: String, headers: [String: String])] = []
    var nextID = 1
    let storageFolder: String

    /// Parts the file is split into, at most.
    var partCount = 3
    /// GETs of a build upload in PROCESSING before it completes.
    var processingPolls = 2
    /// GETs of a new build before it is VALID.
    var buildProcessingPolls = 1
    /// When set, processing ends FAILED with these (code, message) errors.
    var processingErrors: [(String, String)]?
    /// When set, every beta review submission is refused with this 409 (an entity error that is not "already submitted").
    var betaReviewRefusal: (code: String, detail: String)?
    /// Build uploads per page, at most (Apple's `limit`, with `links.next` to the rest).
    var buildUploadPageSize = 200
    /// Apple's published description, which every request and answer is checked against.
    let description = OpenAPIDescription.appStoreConnect
    /// Every way a request or an answer broke the description; a test fails when `stop()` finds any.
    var violationLog: [String] = []
    /// The `links.next` URLs handed out (their `cursor` is Apple's, not a declared parameter).
    var nextLinks: Set<String> = []
    /// The answer `route` made last: its status and JSON body (nil: none), for the description check.
    var lastReply: (status: Int, body: Any?)?
    /// The path of the request being answered (for `links.self`).
    var currentPath = ""
    /// Seconds until upload URLs expire (negative: already expired).
    var uploadURLLifetime: Double = 3600
    /// When true, the operations handed out miss the file's last byte.
    var leaveGap = false
    /// When true, every token is refused as Apple refuses a revoked key.
    var revoked = false
    let publicKey: P256.Signing.PublicKey
    let keyID: String
    let issuerID: String

    private(set) var server: TestServer?
    var baseURL: String { server?.baseURL ?? "" }

    init(publicKey: P256.Signing.PublicKey = StoreFixtures.appleKey.publicKey, keyID: String = StoreFixtures.appleKeyID,
         issuerID: String = StoreFixtures.appleIssuerID) throws {
        self.publicKey = publicKey
        self.keyID = keyID
        self.issuerID = issuerID
        storageFolder = NSTemporaryDirectory() + "fake-asc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: storageFolder, withIntermediateDirectories: true)
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop(sourceLocation: SourceLocation = #_sourceLocation) {
        server?.stop()
        if description == nil { Issue.record("the App Store Connect API description fixture cannot be read", sourceLocation: sourceLocation) }
        for violation in violations { Issue.record("App Store Connect stand-in: \(violation)", sourceLocation: sourceLocation) }
        try? FileManager.default.removeItem(atPath: storageFolder)
    }

    // MARK: - Test controls and inspection

    func fail(_ count: Int, method: String? = nil, path: String, status: Int = 503, headers: [String: String] = [:], body: String = "") {
        lock.withLock { faults.append(Fault(method: method, pathContains: path, remaining: count, status: status, headers: headers, body: body)) }
    }

    /// The next `count` requests matching `method` and `path` are handled, then answered only
    /// after `seconds`: a client killed meanwhile never learns what it made.
    func answerLate(_ count: Int = 1, method: String, path: String, seconds: Double) {
        lock.withLock { lateAnswers.append((method, path, count, seconds)) }
    }

    var log: [String] { lock.withLock { requestLog } }
    var violations: [String] { lock.withLock { violationLog } }
    /// The violations so far, forgotten (for a test that sends a request the description refuses on purpose).
    func takeViolations() -> [String] { lock.withLock { defer { violationLog = [] }; return violationLog } }
    var allUploads: [String: BuildUpload] { lock.withLock { uploads } }
    var allBuilds: [String: Build] { lock.withLock { builds } }
    var parts: [(path: String, headers: [String: String])] { lock.withLock { partRequests } }

    /// Adds a build as if an earlier upload had completed.
    func addBuild(version: String, build: String, state: String = "VALID", platform: String = "IOS", encryption: Bool? = nil,
                  betaReviewState: String? = nil) -> String {
        lock.withLock {
            let id = "build-\(nextID)"; nextID += 1
            builds[id] = Build(appID: "app-1", version: build, shortVersion: version, processingState: state, encryption: encryption, platform: platform,
                               betaReview: betaReviewState.map { ("review-\(id)", $0) })
            return id
        }
    }

    func addUpload(version: String, build: String, state: String, platform: String = "IOS") -> String {
        lock.withLock {
            let id = "upload-\(nextID)"; nextID += 1
            uploads[id] = BuildUpload(appID: "app-1", version: version, build: build, platform: platform, state: state)
            return id
        }
    }

    /// Adds an App Store version as if made in App Store Connect.
    func addStoreVersion(_ version: String, platform: String = "IOS", state: String = "PREPARE_FOR_SUBMISSION") -> String {
        lock.withLock {
            let id = "asv-\(nextID)"; nextID += 1
            storeVersions[id] = ("app-1", version, platform, state)
            return id
        }
    }

    /// Adds a listing localization (`resource`: appStoreVersionLocalizations or appInfoLocalizations).
    func addLocalization(_ resource: String, parentID: String, locale: String, _ attributes: [String: String]) -> String {
        lock.withLock {
            let id = "loc-\(nextID)"; nextID += 1
            listing[resource, default: [:]][id] = (parentID, locale, attributes)
            return id
        }
    }

    /// The listing's localizations of `resource`, by locale.
    func localizations(_ resource: String) -> [String: [String: String]] {
        lock.withLock { Dictionary(listing[resource, default: [:]].values.map { ($0.locale, $0.attributes) }, uniquingKeysWith: { a, _ in a }) }
    }

    func newID(_ prefix: String) -> String {
        defer { nextID += 1 }
        return "\(prefix)-\(nextID)"
    }

    // MARK: - Dispatch

    func handle(_ request: Request) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let method = request.method.rawValue
        if method != "GET", !path.hasPrefix("/upload/"), let hook = lock.withLock({ writeHook }) { hook("\(method) \(path)") }
        let fault: Fault? = lock.withLock {
            requestLog.append("\(method) \(path)")
            guard let index = faults.firstIndex(where: { ($0.method == nil || $0.method == method) && path.contains($0.pathContains) && $0.remaining > 0 }) else { return nil }
            faults[index].remaining -= 1
            return faults[index]
        }
        if let fault { return Reply.text(fault.status, fault.body, contentType: "application/json", headers: fault.headers) }
        if path.hasPrefix("/upload/") { return try await receivePart(request, path: path, query: query) }
        let body = try await request.readBody(keeping: 1 << 20).bytes
        let (response, delay): (Response, Double?) = lock.withLock {
            // The description's check: a request it would refuse is recorded (the test fails) and refused as Apple does.
            var checked = query
            if checked["cursor"] != nil, nextLinks.contains(request.uri.description) || nextLinks.contains(baseURL + request.uri.description) {
                checked["cursor"] = nil
            }
            let (operation, problems) = description?.check(method: method, path: path, query: checked, body: body) ?? (nil, [])
            violationLog += problems
            lastReply = nil
            currentPath = path
            let response: Response
            if let refusal = checkToken(request.header("authorization")) {
                response = refusal
            } else if operation != nil, let problem = problems.first {
                response = problem.hasPrefix("\(operation?.method ?? "") \(operation?.template ?? ""): query")
                    ? error(400, "PARAMETER_ERROR.INVALID", "A parameter has an invalid value", problem)
                    : error(409, "ENTITY_ERROR", "The request entity is invalid", problem)
            } else {
                response = route(method, path, query, body)
            }
            if let operation, let answer = lastReply {
                violationLog += description?.check(answer: answer.status, body: answer.body, to: operation) ?? []
            }
            // A path ending in "$" matches only itself ("/v1/appScreenshots$" is not "/v1/appScreenshotSets").
            guard let index = lateAnswers.firstIndex(where: { late in
                late.method == method && late.remaining > 0
                    && (late.pathContains.hasSuffix("$") ? path == String(late.pathContains.dropLast()) : path.contains(late.pathContains))
            }) else {
                return (response, nil)
            }
            lateAnswers[index].remaining -= 1
            return (response, lateAnswers[index].seconds)
        }
        if let delay { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
        return response
    }

    /// Apple's error document.
    func error(_ status: Int, _ code: String, _ title: String, _ detail: String) -> Response {
        reply(status, ["errors": [["status": String(status), "code": code, "title": title, "detail": detail]]])
    }

    /// A JSON answer, kept for the description's check; a document with `data` gets Apple's `links.self`.
    func reply(_ status: Int, _ object: [String: Any]) -> Response {
        var object = object
        if object["data"] != nil, object["links"] == nil { object["links"] = ["self": baseURL + currentPath] }
        if let next = (object["links"] as? [String: Any])?["next"] as? String { nextLinks.insert(next) }
        lastReply = (status, object)
        return Reply.json(status, object)
    }

    /// An answer without a body, kept for the description's check.
    func replyEmpty(_ status: Int) -> Response {
        lastReply = (status, nil)
        return Reply.empty(status)
    }

    // MARK: - Token

    func checkToken(_ authorization: String?) -> Response? {
        let unauthorized = error(401, "NOT_AUTHORIZED", "Authentication credentials are missing or invalid.",
                                      "Provide a properly configured and signed bearer token, and make sure that it has not expired.")
        guard !revoked, let authorization, authorization.hasPrefix("Bearer ") else { return unauthorized }
        let token = String(authorization.dropFirst("Bearer ".count))
        let verified = VerifiedJWT.verify(token) { input, signature in
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(signature, for: input)
        }
        guard case .success(let jwt) = verified else { return unauthorized }
        let now = Int(Date().timeIntervalSince1970)
        guard jwt.header["alg"] as? String == "ES256", jwt.header["kid"] as? String == keyID, jwt.header["typ"] as? String == "JWT",
              Set(jwt.header.keys) == ["alg", "kid", "typ"],
              jwt.claims["iss"] as? String == issuerID, jwt.claims["aud"] as? String == "appstoreconnect-v1",
              Set(jwt.claims.keys) == ["iss", "iat", "exp", "aud"],
              let iat = jwt.claims["iat"] as? Int, let exp = jwt.claims["exp"] as? Int,
              iat <= now + 60, exp > now, exp - iat <= 1200 else { return unauthorized }
        return nil
    }
}
