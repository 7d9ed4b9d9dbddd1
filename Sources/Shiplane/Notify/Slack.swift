import Foundation

/// Posts a message to Slack through an incoming webhook (`SLACK_WEBHOOK_URL`).
///
/// Block Kit with a plain-text fallback, within Slack's limits (long text is cut with a note,
/// never rejected). The text is redacted first. A message cannot be taken back: put
/// notifications last in a lane.
public struct Slack: AsyncAction {
    /// The action's name in steps and reports.
    public static let name = "slack"
    /// The message, redacted before it is sent.
    public var text: String
    /// The incoming webhook URL; nil: `SLACK_WEBHOOK_URL`.
    public var webhookURL: String?

    /// Creates the action that posts `text`, to `webhookURL` or `SLACK_WEBHOOK_URL`.
    public init(_ text: String, webhookURL: String? = nil) {
        self.text = text
        self.webhookURL = webhookURL
    }

    /// The text (the webhook URL is a secret and not shown).
    public var options: [StepOption] { [StepOption("text", text)] }

    /// Posts the message; in a dry run only notes what it would post.
    /// - Throws: `NotifyError` when the URL is missing or invalid or Slack rejects the message;
    ///   `HTTPTransportError` when it cannot be delivered.
    public func run(in step: StepContext) async throws {
        let transport = step.httpTransport()
        let notifier = try SlackNotifier(webhookURL: webhookURL ?? step.lane.environment["SLACK_WEBHOOK_URL"], transport: transport)
        let message = transport.redactor.redact(text)
        if step.isDryRun {
            step.note("would post to Slack: \(message)")
            return
        }
        try await step.perform(MessageSent(destination: "Slack"), "notification to Slack", nothingHappened: { $0 is NotifyError }) { try await notifier.send(message) }
        step.note("posted")
    }
}

extension LaneContext {
    /// Posts `text` to Slack (`SLACK_WEBHOOK_URL`, or `webhookURL`).
    public func slack(_ text: String, webhookURL: String? = nil, file: String = #fileID, line: Int = #line) async throws {
        try await run(Slack(text, webhookURL: webhookURL), file: file, line: line)
    }
}

extension Slack: DocumentedAction {
    /// How `lane.slack` appears in the action catalog.
    public static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post to Slack through an incoming webhook (SLACK_WEBHOOK_URL): Block Kit with a text fallback, within Slack's limits, redacted",
        signature: "try await lane.slack(_ text: String, webhookURL: String? = nil)",
        parameters: [
            .init(name: "text", type: "String", defaultValue: nil, help: "the message"),
            .init(name: "webhookURL", type: "String?", defaultValue: "SLACK_WEBHOOK_URL", help: "the incoming webhook (a secret: redacted everywhere)")
        ],
        example: #"try await lane.slack("Released \(version) 🚀")"#,
        dryRun: "says what it would post", rollback: "written down before it goes; cannot be taken back, so rollback reports it as staying: notify last"
    )
}
