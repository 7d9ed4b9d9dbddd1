import Foundation

/// Posts messages to a Slack incoming webhook.
///
/// The webhook URL is itself a secret: it is added to the transport's redactor and never shown.
package struct SlackNotifier: Sendable {
    private let webhookURL: String
    let transport: HTTPTransport

    /// Creates a notifier for the URL taken from `SLACK_WEBHOOK_URL` by the caller.
    /// - Throws: `NotifyError.missingWebhookURL` when nil or empty, `.invalidURL` when malformed.
    package init(webhookURL: String?, transport: HTTPTransport) throws {
        guard let url = webhookURL?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty else {
            throw NotifyError.missingWebhookURL(variable: "SLACK_WEBHOOK_URL")
        }
        var transport = transport
        transport.redactor = transport.redactor.adding([url])
        try WebhookURL.validate(url, redactor: transport.redactor)
        self.webhookURL = url
        self.transport = transport
    }

    /// Sends a plain message.
    package func send(_ text: String) async throws {
        try await send(SlackMessage.plain(text))
    }

    /// Sends a message (secrets redacted, limits applied).
    /// - Throws: `NotifyError.slackRejected` with Slack's error code, or `HTTPTransportError`.
    package func send(_ message: SlackMessage) async throws {
        let body = try message.redacted(by: transport.redactor).jsonBytes()
        let request = HTTPRequest(method: .post, url: webhookURL, headers: [("Content-Type", "application/json")], body: .bytes(body))
        let response = try await transport.send(request)
        let answer = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if response.isSuccess, answer.isEmpty || answer == "ok" { return }
        let code = answer.isEmpty ? "http_\(response.status)" : String(transport.redactor.redact(answer).prefix(100))
        throw NotifyError.slackRejected(status: response.status, code: code)
    }
}
