import Foundation

/// Slack's Web API with a bot token: `chat.postMessage`, `conversations.history`, `chat.delete`.
///
/// The token goes in `Authorization: Bearer xoxb-…` (never in a URL or a body) and is added to
/// the transport's redactor. Slack answers HTTP 200 with `{"ok": false, "error": "…"}` for its
/// errors, and 429 with `Retry-After` when rate limited (the transport waits and retries).
package struct SlackBotClient: Sendable {
    /// The API base URL (`https://slack.com/api`, or `SLACK_API_URL`).
    package let apiURL: String
    private let token: String
    let transport: HTTPTransport

    /// The Web API's address unless `SLACK_API_URL` says otherwise.
    package static let defaultAPIURL = "https://slack.com/api"

    /// Creates a client for `token` (from `SLACK_BOT_TOKEN` by the caller).
    /// - Throws: `NotifyError.missingToken` when the token is nil or empty, `.invalidURL` for a bad `apiURL`.
    package init(token: String?, apiURL: String?, transport: HTTPTransport) throws {
        guard let token = token?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            throw NotifyError.missingToken(variable: "SLACK_BOT_TOKEN", service: "Slack")
        }
        var transport = transport
        transport.redactor = transport.redactor.adding([token])
        let given = apiURL?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let base = (given.isEmpty ? Self.defaultAPIURL : given).trimmingTrailingSlashes
        try WebhookURL.validate(base, redactor: transport.redactor)
        self.apiURL = base
        self.token = token
        self.transport = transport
    }

    /// Where a posted message is: the channel's id and the message's `ts`.
    package struct Posted: Sendable, Equatable {
        /// The channel id Slack answered with (`C0123…`).
        package var channel: String
        /// The message's timestamp, its id within the channel.
        package var ts: String
    }

    // MARK: - Calls

    /// Posts `message` to `channel` (an id or `#name`) with `marker` in its metadata
    /// (`event_type` `shiplane_message`, `event_payload.marker`), so it can be found again.
    /// - Throws: `NotifyError.slackRejected` with Slack's error code, `HTTPTransportError`.
    package func post(_ message: SlackMessage, channel: String, marker: String) async throws -> Posted {
        var payload = message.redacted(by: transport.redactor).payload()
        payload["channel"] = channel
        payload["metadata"] = ["event_type": Self.eventType, "event_payload": ["marker": marker]]
        let answer = try await call("chat.postMessage", json: payload)
        guard let ts = answer["ts"] as? String else { throw NotifyError.slackRejected(status: 200, code: "no ts in the answer") }
        return Posted(channel: answer["channel"] as? String ?? channel, ts: ts)
    }

    /// Looks for the message carrying `marker` in `channel`, posted at or after `oldest` (Unix
    /// seconds); returns where it is, or nil when it is not there.
    /// - Throws: `NotifyError.slackRejected`, `HTTPTransportError`.
    package func find(marker: String, channel: String, oldest: Double) async throws -> Posted? {
        var cursor: String?
        repeat {
            var query = [("channel", channel), ("oldest", String(format: "%.6f", oldest)), ("inclusive", "true"),
                         ("include_all_metadata", "true"), ("limit", "200")]
            if let cursor { query.append(("cursor", cursor)) }
            let answer = try await call("conversations.history", query: query)
            for case let entry as [String: Any] in answer["messages"] as? [Any] ?? [] {
                let metadata = entry["metadata"] as? [String: Any]
                let payload = metadata?["event_payload"] as? [String: Any]
                if metadata?["event_type"] as? String == Self.eventType, payload?["marker"] as? String == marker, let ts = entry["ts"] as? String {
                    return Posted(channel: channel, ts: ts)
                }
            }
            let next = (answer["response_metadata"] as? [String: Any])?["next_cursor"] as? String
            cursor = (answer["has_more"] as? Bool == true && next?.isEmpty == false) ? next : nil
        } while cursor != nil
        return nil
    }

    /// Deletes the message; a message already gone counts as deleted.
    /// - Throws: `NotifyError.slackRejected` (e.g. `cant_delete_message`), `HTTPTransportError`.
    package func delete(_ posted: Posted) async throws {
        do {
            _ = try await call("chat.delete", json: ["channel": posted.channel, "ts": posted.ts])
        } catch NotifyError.slackRejected(_, "message_not_found") {
            return
        }
    }

    /// The metadata event type Shiplane's messages carry.
    static let eventType = "shiplane_message"

    private func call(_ method: String, json: [String: Any]) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])
        return try await answer(of: HTTPRequest(
            method: .post, url: "\(apiURL)/\(method)",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json; charset=utf-8")],
            body: .bytes(Array(body))))
    }

    private func call(_ method: String, query: [(String, String)]) async throws -> [String: Any] {
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        return try await answer(of: HTTPRequest(
            method: .get, url: "\(apiURL)/\(method)?\(components.percentEncodedQuery ?? "")",
            headers: [("Authorization", "Bearer \(token)")]))
    }

    private func answer(of request: HTTPRequest) async throws -> [String: Any] {
        let response = try await transport.send(request)
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw NotifyError.slackRejected(status: response.status, code: response.isSuccess ? "invalid_response" : "http_\(response.status)")
        }
        guard response.isSuccess, object["ok"] as? Bool == true else {
            let code = (object["error"] as? String).map { String(transport.redactor.redact($0).prefix(100)) } ?? "http_\(response.status)"
            throw NotifyError.slackRejected(status: response.status, code: code)
        }
        return object
    }
}

extension String {
    /// The string without the slashes at its end.
    var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
