import Foundation

/// Posts JSON to a webhook: a `{{placeholder}}` template filled with values (JSON-escaped).
package struct Webhook: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "webhook"
    /// The http or https URL posted to (a secret: redacted everywhere).
    package var url: String
    /// JSON with `{{name}}` placeholders.
    package var template: String
    /// The placeholders' values, JSON-escaped and redacted before they are filled in.
    package var values: [String: String]
    /// What a retry does with a post whose answer was lost: by default it is not sent again.
    package var delivery: Delivery

    /// Creates the action that posts `template`, filled with `values`, to `url`.
    package init(url: String, template: String, values: [String: String] = [:], delivery: Delivery = .atMostOnce) {
        self.url = url
        self.template = template
        self.values = values
        self.delivery = delivery
    }

    /// The URL with its host and its secret parts hidden (`http://127.0.0.1:9/***`), and the delivery rule.
    package var options: [StepOption] {
        var shown = [StepOption("url", SecretRedactor(secrets: [url]).redact(url))]
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    /// Posts the rendered template; in a dry run only notes what it would post.
    /// - Throws: `NotifyError` for an invalid URL or template or a non-2xx answer;
    ///   `HTTPTransportError` when it cannot be delivered.
    package func run(in step: StepContext) async throws {
        // The URL is a secret (webhooks keep their token in it): shown with its host, its path hidden.
        var transport = step.httpTransport()
        transport.redactor = transport.redactor.adding([url])
        let notifier = try WebhookNotifier(url: url, transport: transport)
        let redacted = values.mapValues(transport.redactor.redact)
        if step.isDryRun {
            step.note("would post to \(transport.redactor.redact(url)): \(try JSONTemplate.render(template, values: redacted))")
            return
        }
        let destination = "the webhook \(transport.redactor.redact(url))"
        let outcome = try await step.deliverOnce(
            MessageSent(destination: destination), "notification to \(destination)", destination: destination, delivery: delivery,
            nothingHappened: { $0 is NotifyError }
        ) {
            try await notifier.send(template: template, values: redacted)
            return MessageSent(destination: destination)
        }
        if outcome == .sent { step.note("posted") }
    }
}

extension LaneContext {
    /// Posts a JSON body made from `template` and `values` to `url`.
    public func webhook(
        _ url: String, template: String, values: [String: String] = [:], delivery: Delivery = .atMostOnce,
        file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Webhook(url: url, template: template, values: values, delivery: delivery), file: file, line: line)
    }
}

extension Webhook: DocumentedAction {
    /// How `lane.webhook` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "POST JSON made from a {{placeholder}} template (values JSON-escaped and redacted) to a URL",
        signature: "try await lane.webhook(_ url: String, template: String, values: [String: String] = [:], delivery: Delivery = .atMostOnce)",
        parameters: [
            .init(name: "url", type: "String", defaultValue: nil, help: "http or https, with a host"),
            .init(name: "template", type: "String", defaultValue: nil, help: "JSON with {{name}} placeholders"),
            .init(name: "values", type: "[String: String]", defaultValue: "[:]", help: "the placeholders' values, JSON-escaped"),
            .init(name: "delivery", type: "Delivery", defaultValue: ".atMostOnce", help: "a post whose answer was lost is not sent again by the retry, with a warning; .atLeastOnce sends it again")
        ],
        example: ##"try await context.webhook(url, template: #"{"text": "{{summary}}"}"#, values: ["summary": context.failureSummary(failure)])"##,
        dryRun: "says what it would post", rollback: "written down before it goes; cannot be taken back, so rollback reports it as staying"
    )
}
