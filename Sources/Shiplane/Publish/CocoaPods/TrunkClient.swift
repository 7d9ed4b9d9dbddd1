import Foundation

/// The CocoaPods trunk API (`/api/v1`, trunk.cocoapods.org-api-doc and the trunk app's
/// controllers): sessions, a pod's versions, and pushing a specification as JSON with
/// `Authorization: Token …`. Errors come as `{"error": …}`.
struct TrunkClient: Sendable {
    /// `https://trunk.cocoapods.org` (no trailing slash).
    var base: String
    var token: String
    var transport: HTTPTransport

    var api: String { base + "/api/v1" }

    /// The token's session (`GET /sessions`): a token trunk does not know, or one not verified
    /// by e-mail, is a 401.
    /// - Throws: `ShiplaneError` saying what to do.
    func checkSession() async throws {
        let response = try await send(.get, api + "/sessions")
        guard response.status == 200 else { throw failure(response, doing: "check the trunk session") }
    }

    /// Whether trunk has published `version` of `name` (`GET /pods/{name}/versions/{version}`).
    func hasVersion(_ name: String, _ version: String) async throws -> Bool {
        let response = try await send(.get, "\(api)/pods/\(Self.segment(name))/versions/\(Self.segment(version))")
        if response.status == 404 { return false }
        guard response.status == 200 else { throw failure(response, doing: "read \(name) \(version) on trunk") }
        return true
    }

    /// Pushes the specification (`POST /pods`). Trunk answers with a redirect to the version
    /// (followed), or 409 when the version exists or is being processed.
    /// - Returns: false when trunk already had the version (409).
    func push(_ podspec: Podspec) async throws -> Bool {
        var request = HTTPRequest(method: .post, url: api + "/pods", headers: headers + [("Content-Type", "application/json; charset=utf-8")],
                                  body: .bytes(Array(podspec.json)), timeout: 300)
        // A lost answer is not sent again blindly: the re-run asks trunk for the version first.
        request.isRepeatable = false
        let response = try await transport.send(request)
        if response.status == 409 { return false }
        guard (200..<400).contains(response.status) else { throw failure(response, doing: "push \(podspec.name) \(podspec.version)") }
        return true
    }

    private var headers: [(name: String, value: String)] {
        [("Accept", "application/json; charset=utf-8"), ("Authorization", "Token \(token)")]
    }

    private func send(_ method: HTTPRequestMethod, _ url: String) async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: method, url: url, headers: headers, timeout: 60))
    }

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~+"))) ?? text
    }

    private func failure(_ response: HTTPResponse, doing what: String) -> ShiplaneError {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        var message = "cannot \(what): HTTP \(response.status)"
        if let error = json?["error"] {
            let said = (error as? String) ?? ((try? JSONSerialization.data(withJSONObject: error, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "")
            message += " (\(transport.redactor.redact(said)))"
        } else if !response.body.isEmpty {
            message += ": " + transport.redactor.redact(response.bodySnippet())
        }
        let suggestion: String? = switch response.status {
        case 401: "set COCOAPODS_TRUNK_TOKEN to a verified trunk session's token (pod trunk me shows the session; the token is in ~/.netrc after pod trunk register)"
        case 403: "the session's owner may not push this pod: ask an owner to run pod trunk add-owner"
        case 422: "trunk's validation refused the podspec: fix what it says"
        default: nil
        }
        return ShiplaneError(message, info: [("status", "\(response.status)")], suggestion: suggestion)
    }
}
