import Foundation

/// A client for the Android Publisher API (v3) for one service account and one package.
///
/// The access token comes from exchanging a signed assertion at the key's `token_uri`; it is
/// added to the redactor and sent only to the API's own host.
package struct GooglePlayClient: Sendable {
    static let service = "Google Play"
    /// The API base, without a trailing slash.
    package let apiBaseURL: String
    /// The app's package name.
    package let packageName: String
    let account: GooglePlayServiceAccount
    let transport: HTTPTransport
    let tokens: TokenCache
    /// What this client already read in the step (the version codes on the tracks).
    let memo = StoreReadMemo()
    let now: @Sendable () -> Date

    /// Creates a client for `packageName`; the API base comes from `GOOGLE_PLAY_API_URL` when set.
    package init(account: GooglePlayServiceAccount, packageName: String, environment: [String: String], transport: HTTPTransport,
                now: @escaping @Sendable () -> Date = { Date() }) {
        var base = environment[GooglePlayServiceAccount.apiURLVariable]?.trimmingCharacters(in: .whitespaces) ?? ""
        if base.isEmpty { base = GooglePlayServiceAccount.defaultAPIURL }
        while base.hasSuffix("/") { base.removeLast() }
        apiBaseURL = base
        self.packageName = packageName
        self.account = account
        var transport = transport
        transport.redactor = transport.redactor.adding(account.secretTexts)
        self.transport = transport
        tokens = TokenCache()
        self.now = now
    }

    var redactor: SecretRedactor { transport.redactor.adding(tokens.all) }

    /// The memo's key for the version codes on the tracks, as a new edit sees them.
    static let trackCodesMemo = "version codes on the tracks"

    /// A client for another app of the same service account and API.
    func forPackage(_ name: String) -> GooglePlayClient {
        GooglePlayClient(account: account, packageName: name, environment: [GooglePlayServiceAccount.apiURLVariable: apiBaseURL],
                         transport: transport, now: now)
    }

    var editsPath: String { "/androidpublisher/v3/applications/\(packageName)/edits" }

    // MARK: - Access token

    /// An access token, exchanged anew when the last one is within five minutes of expiring.
    /// - Throws: `StoreAPIError` with Google's `error_description` when the exchange is refused.
    func accessToken() async throws -> String {
        if let token = tokens.valid(at: now()) { return token }
        let assertion = try account.assertion(now: now())
        let form = "grant_type=" + AppStoreConnectClient.encodeQuery("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + AppStoreConnectClient.encodeQuery(assertion)
        var transport = self.transport
        transport.redactor = redactor.adding([assertion])
        let response = try await transport.send(HTTPRequest(
            method: .post, url: account.tokenURI,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: .bytes(Array(form.utf8))))
        struct Answer: Decodable { var access_token: String?; var expires_in: Double?; var error: String?; var error_description: String? }
        let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body))
        guard response.isSuccess, let token = answer?.access_token, !token.isEmpty else {
            let reason = [answer?.error, answer?.error_description].compactMap { $0 }.joined(separator: ": ")
            throw StoreAPIError(service: "Google's token service", operation: "exchange the service account key for an access token",
                                status: response.status, details: reason.isEmpty ? [redactor.redact(response.bodySnippet())] : [redactor.redact(reason)],
                                suggestion: "the key may be deleted or disabled: create a new JSON key for \(account.clientEmail)")
        }
        tokens.store(token, expires: now().addingTimeInterval(answer?.expires_in ?? 3600))
        return token
    }

    // MARK: - Requests

    func request(_ method: HTTPRequestMethod, _ url: String, json: [String: Any]? = nil, body: HTTPRequestBody = .none,
                 headers extra: [(name: String, value: String)] = [], timeout: Double = 30,
                 operation: String, accepting: Set<Int> = []) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if Self.sameOrigin(url, apiBaseURL) { headers.append(("Authorization", "Bearer \(try await accessToken())")) }
        var payload = body
        if let json {
            headers.append(("Content-Type", "application/json"))
            payload = .bytes(try JSONBody.encode(json))
        }
        var transport = self.transport
        transport.redactor = redactor
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers + extra, body: payload, timeout: timeout))
        guard response.isSuccess || accepting.contains(response.status) else { throw failure(response, operation: operation) }
        return response
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw StoreAPIError(service: Self.service, operation: operation, status: response.status,
                                details: ["the answer could not be read: " + redactor.redact(response.bodySnippet())])
        }
    }

    /// Maps an error response to a `StoreAPIError` with Google's message and what to do.
    func failure(_ response: HTTPResponse, operation: String) -> StoreAPIError {
        struct Body: Decodable {
            struct Failure: Decodable { var code: Int?; var message: String?; var status: String? }
            var error: Failure?
        }
        let message = (try? JSONDecoder().decode(Body.self, from: Data(response.body)))?.error?.message
        let details = [message ?? (response.body.isEmpty ? nil : response.bodySnippet())].compactMap { $0 }.map { redactor.redact($0) }
        let suggestion: String? = switch response.status {
        case 401: "the access token was refused: check that the service account key is current"
        case 403: "give \(account.clientEmail) access to \(packageName) in Play Console → Users and permissions (Release to testing tracks / production)"
        case 404: "Play Console has no app \(packageName) this account can see; the first upload of a new app must be made in Play Console"
        default: nil
        }
        return StoreAPIError(service: Self.service, operation: operation, status: response.status, details: details, suggestion: suggestion)
    }

    /// True when both URLs have the same scheme, host and port: only then does the token go along.
    static func sameOrigin(_ one: String, _ two: String) -> Bool {
        guard let a = URLComponents(string: one), let b = URLComponents(string: two) else { return false }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}

/// The current access token and every token handed out (for redaction).
final class TokenCache: @unchecked Sendable {
    // @unchecked: the fields are only touched under `lock`.
    private let lock = NSLock()
    private var current: (token: String, expires: Date)?
    private var handedOut: [String] = []

    func valid(at now: Date) -> String? {
        lock.withLock { current.flatMap { $0.expires.timeIntervalSince(now) > 300 ? $0.token : nil } }
    }

    func store(_ token: String, expires: Date) {
        lock.withLock {
            current = (token, expires)
            handedOut.append(token)
        }
    }

    var all: [String] { lock.withLock { handedOut } }
}
