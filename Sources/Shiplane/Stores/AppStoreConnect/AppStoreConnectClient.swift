import Foundation

/// A client for the App Store Connect API's JSON:API resources, for one API key.
///
/// Every request carries a fresh-enough ES256 token (`Authorization: Bearer`); tokens are added to
/// the transport's redactor. Upload operations are not sent through here: they go to Apple's
/// storage URLs with only the headers Apple lists, never the token.
package struct AppStoreConnectClient: Sendable {
    static let service = "App Store Connect"
    /// The API base, without a trailing slash.
    package let apiBaseURL: String
    let transport: HTTPTransport
    let tokens: AppStoreConnectTokenSource
    let userAgent: String
    /// What this client already read in the step (the app of a bundle ID).
    let memo = StoreReadMemo()

    /// Creates a client; the API base comes from `APP_STORE_CONNECT_API_URL` when set.
    package init(credentials: AppStoreConnectCredentials, environment: [String: String], transport: HTTPTransport,
                now: @escaping @Sendable () -> Date = { Date() }, version: String = "dev") {
        var base = environment[AppStoreConnectCredentials.apiURLVariable]?.trimmingCharacters(in: .whitespaces) ?? ""
        if base.isEmpty { base = AppStoreConnectCredentials.defaultAPIURL }
        while base.hasSuffix("/") { base.removeLast() }
        apiBaseURL = base
        var transport = transport
        transport.redactor = transport.redactor.adding(credentials.secretTexts)
        self.transport = transport
        tokens = AppStoreConnectTokenSource(credentials: credentials, now: now, redactor: transport.redactor)
        userAgent = "shiplane/\(version)"
    }

    var redactor: SecretRedactor { tokens.redactor }

    // MARK: - Requests

    /// GETs `path` with `query` and decodes the document.
    func get<Value: Decodable>(_ path: String, query: [(String, String)] = [], as type: Value.Type, operation: String) async throws -> Value {
        let response = try await send(.get, path, query: query, body: nil, operation: operation)
        return try decode(type, response, operation: operation)
    }

    /// GETs every page of a list: `path` with `query`, then each `links.next` Apple hands back
    /// (on the same API base; the token never goes elsewhere), at most `maxPages` pages.
    /// - Throws: `StoreAPIError` for an error answer, or a `links.next` off the API base.
    func getAll<Item: Decodable>(_ path: String, query: [(String, String)] = [], as type: Item.Type, operation: String,
                                 maxPages: Int = 100) async throws -> [Item] {
        var items: [Item] = []
        var response = try await send(.get, path, query: query, body: nil, operation: operation)
        for _ in 0..<maxPages {
            let page = try decode(ASCPage<Item>.self, response, operation: operation)
            items += page.data
            guard let next = page.links?.next, !next.isEmpty else { return items }
            // Apple's next links are absolute on the API base, or relative to it.
            let url = next.hasPrefix("/") ? apiBaseURL + next : next
            guard url.hasPrefix(apiBaseURL + "/") else {
                throw StoreAPIError(service: Self.service, operation: operation, status: response.status,
                                    details: ["the next page is at \(redactor.redact(next)), not on \(apiBaseURL)"],
                                    suggestion: "check APP_STORE_CONNECT_API_URL")
            }
            response = try await send(.get, url: url, body: nil, operation: operation)
        }
        throw StoreAPIError(service: Self.service, operation: operation, status: response.status,
                            details: ["the list runs past \(maxPages) pages"], suggestion: "narrow it down in App Store Connect, then run again")
    }

    /// Sends a JSON:API body and decodes the answer.
    func send<Value: Decodable>(_ method: HTTPRequestMethod, _ path: String, body: [String: Any], as type: Value.Type, operation: String) async throws -> Value {
        let response = try await send(method, path, query: [], body: body, operation: operation)
        return try decode(type, response, operation: operation)
    }

    /// Sends a request whose answer carries nothing needed (204, or a document ignored).
    func perform(_ method: HTTPRequestMethod, _ path: String, body: [String: Any]? = nil, operation: String, accepting extra: Set<Int> = []) async throws -> Int {
        let response = try await send(method, path, query: [], body: body, operation: operation, accepting: extra)
        return response.status
    }

    private func send(_ method: HTTPRequestMethod, _ path: String, query: [(String, String)], body: [String: Any]?,
                      operation: String, accepting extra: Set<Int> = []) async throws -> HTTPResponse {
        var url = apiBaseURL + path
        if !query.isEmpty {
            url += "?" + query.map { Self.encodeQuery($0.0) + "=" + Self.encodeQuery($0.1) }.joined(separator: "&")
        }
        return try await send(method, url: url, body: body, operation: operation, accepting: extra)
    }

    private func send(_ method: HTTPRequestMethod, url: String, body: [String: Any]?,
                      operation: String, accepting extra: Set<Int> = []) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer \(try tokens.token())"), ("Accept", "application/json"), ("User-Agent", userAgent),
        ]
        var payload: HTTPRequestBody = .none
        if let body {
            headers.append(("Content-Type", "application/json"))
            payload = .bytes(try JSONBody.encode(body))
        }
        var transport = self.transport
        transport.redactor = redactor
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: payload))
        guard response.isSuccess || extra.contains(response.status) else { throw failure(response, operation: operation) }
        return response
    }

    static func encodeQuery(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, operation: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw StoreAPIError(service: Self.service, operation: operation, status: response.status,
                                details: ["the answer could not be read: " + redactor.redact(response.bodySnippet())])
        }
    }

    /// Maps an error response to a `StoreAPIError` with Apple's errors and what to do.
    func failure(_ response: HTTPResponse, operation: String) -> StoreAPIError {
        let body = try? JSONDecoder().decode(ASCErrorBody.self, from: Data(response.body))
        var details = (body?.errors ?? []).map { item in
            redactor.redact([item.code, item.title, item.detail].compactMap { $0 }.joined(separator: " — "))
        }
        if details.isEmpty, !response.body.isEmpty { details = [redactor.redact(response.bodySnippet())] }
        let suggestion: String? = switch response.status {
        case 401:
            "the API key is expired, revoked or does not match APP_STORE_CONNECT_KEY_ID / APP_STORE_CONNECT_ISSUER_ID (an individual key needs no issuer ID); create a new key in App Store Connect → Users and Access → Integrations"
        case 403:
            "the API key's role may not do this: give the key the App Manager or Admin role"
        case 409:
            "App Store Connect refused the change as it stands; the errors above say why"
        default:
            nil
        }
        return StoreAPIError(service: Self.service, operation: operation, status: response.status, details: details, suggestion: suggestion)
    }
}
