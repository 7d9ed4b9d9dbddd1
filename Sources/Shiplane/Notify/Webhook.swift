import Foundation

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
    /// Posts a JSON body made from `template` and `values` to `url`.
    public func webhook(
        _ url: String, template: String, values: [String: String] = [:], file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Webhook(url: url, template: template, values: values), file: file, line: line)
    }
}

extension Webhook: DocumentedAction {
    public static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "POST JSON made from a {{placeholder}} template (values JSON-escaped and redacted) to a URL",
        signature: "try await lane.webhook(_ url: String, template: String, values: [String: String] = [:])",
        parameters: [
            .init(name: "url", type: "String", defaultValue: nil, help: "http or https, with a host"),
            .init(name: "template", type: "String", defaultValue: nil, help: "JSON with {{name}} placeholders"),
            .init(name: "values", type: "[String: String]", defaultValue: "[:]", help: "the placeholders' values, JSON-escaped")
        ],
        example: ##"try await context.webhook(url, template: #"{"text": "{{summary}}"}"#, values: ["summary": context.failureSummary(failure)])"##,
        dryRun: "says what it would post", rollback: "cannot be taken back"
    )
}
