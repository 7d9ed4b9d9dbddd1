import Foundation

/// Posts a message to Slack through an incoming webhook (`SLACK_WEBHOOK_URL`).
///
/// Block Kit with a plain-text fallback, within Slack's limits (long text is cut with a note,
/// never rejected). The text is redacted first. A message cannot be taken back: put
/// notifications last in a lane.
public struct Slack: AsyncAction {
    public static let name = "slack"
    public var text: String
    public var webhookURL: String?

    public init(_ text: String, webhookURL: String? = nil) {
        self.text = text
        self.webhookURL = webhookURL
    }

    public var options: [StepOption] { [StepOption("text", text)] }

    public func run(in step: StepContext) async throws {
        let transport = step.httpTransport()
        let notifier = try SlackNotifier(webhookURL: webhookURL ?? step.lane.environment["SLACK_WEBHOOK_URL"], transport: transport)
        let message = transport.redactor.redact(text)
        if step.isDryRun {
            step.note("would post to Slack: \(message)")
            return
        }
        try await notifier.send(message)
        step.note("posted")
    }
}

/// Posts JSON to a webhook: a `{{placeholder}}` template filled with values (JSON-escaped).
public struct Webhook: AsyncAction {
    public static let name = "webhook"
    public var url: String
    public var template: String
    public var values: [String: String]

    public init(url: String, template: String, values: [String: String] = [:]) {
        self.url = url
        self.template = template
        self.values = values
    }

    public var options: [StepOption] { [StepOption("url", url)] }

    public func run(in step: StepContext) async throws {
        let transport = step.httpTransport()
        let notifier = try WebhookNotifier(url: url, transport: transport)
        let redacted = values.mapValues(transport.redactor.redact)
        if step.isDryRun {
            step.note("would post to \(transport.redactor.redact(url)): \(try JSONTemplate.render(template, values: redacted))")
            return
        }
        try await notifier.send(template: template, values: redacted)
        step.note("posted")
    }
}

extension LaneContext {
    /// Posts `text` to Slack (`SLACK_WEBHOOK_URL`, or `webhookURL`).
    public func slack(_ text: String, webhookURL: String? = nil, file: String = #fileID, line: Int = #line) async throws {
        try await run(Slack(text, webhookURL: webhookURL), file: file, line: line)
    }

    /// Posts a JSON body made from `template` and `values` to `url`.
    public func webhook(
        _ url: String, template: String, values: [String: String] = [:], file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Webhook(url: url, template: template, values: values), file: file, line: line)
    }

    /// A failure summary for an `onError` hook, redacted: where the lane failed and why.
    public func failureSummary(_ failure: LaneFailure) -> String {
        var lines = ["\(failure.message)"]
        if let step = failure.failingStep {
            lines.append("at \(step.callSite?.description ?? step.step): \(describe(step.cause))")
        }
        let undone = failure.rollback.filter(\.undone).map(\.description)
        if !undone.isEmpty { lines.append("rolled back: " + undone.joined(separator: "; ")) }
        return SecretRedactor(secrets: Array(environment.secretValues)).redact(lines.joined(separator: "\n"))
    }
}
