import Foundation

/// A service's incoming-webhook URL (Discord, Teams, Mattermost): a secret, checked before anything
/// is sent, added to the transport's redactor, and known in the record only by its digest.
package struct ServiceWebhook: Sendable {
    /// The service's name, for messages.
    let service: String
    /// The URL (secret).
    let url: String
    /// HTTP with the URL redacted.
    let transport: HTTPTransport

    /// Takes `given`, else the variable `variable`.
    /// - Throws: `NotifyError.missingWebhookURL` or `.invalidURL`.
    init(service: String, given: String?, variable: String, environment: LaneEnvironment, transport: HTTPTransport) throws {
        guard let url = (given ?? environment[variable])?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty else {
            throw NotifyError.missingWebhookURL(variable: variable)
        }
        var transport = transport
        transport.redactor = transport.redactor.adding([url])
        try WebhookURL.validate(url, redactor: transport.redactor)
        self.service = service
        self.url = url
        self.transport = transport
    }

    /// The URL as people may see it: host shown, secret parts hidden.
    package var shown: String { transport.redactor.redact(url) }

    /// The digest by which the record knows the URL (an undo finds it again in the environment).
    var digest: String { SHA256.hex(of: Data(url.utf8)) }

    /// The variable value of `environment` whose digest is `digest`, if any.
    static func url(withDigest digest: String, in environment: LaneEnvironment) -> String? {
        environment.variables.values.first { SHA256.hex(of: Data($0.trimmingCharacters(in: .whitespacesAndNewlines).utf8)) == digest }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The size in bytes of `json` as `post` sends it.
    static func encodedSize(_ json: [String: Any]) -> Int {
        (try? body(json).count) ?? Int.max
    }

    /// `json` as `post` sends it: keys sorted, slashes not escaped.
    /// - Throws: only if Foundation cannot serialise the values, which would be a bug.
    static func body(_ json: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// Posts `json` to the URL with `query` appended; returns the response when it is a success.
    /// - Throws: `NotifyError.serviceRejected` with the service's own message (redacted), `HTTPTransportError`.
    func post(_ json: [String: Any], query: String = "", contentType: String = "application/json",
              message: (HTTPResponse) -> String) async throws -> HTTPResponse {
        let body = try Self.body(json)
        let target = query.isEmpty ? url : url + (url.contains("?") ? "&" : "?") + query
        let response = try await transport.send(HTTPRequest(
            method: .post, url: target, headers: [("Content-Type", contentType)], body: .bytes(Array(transport.redactor.redact(String(decoding: body, as: UTF8.self)).utf8))))
        guard response.isSuccess else {
            throw NotifyError.serviceRejected(service: service, status: response.status, message: transport.redactor.redact(message(response)))
        }
        return response
    }
}
