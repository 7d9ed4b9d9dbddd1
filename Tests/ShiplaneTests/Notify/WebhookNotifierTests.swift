import Foundation
import Hummingbird
import Testing
@testable import Shiplane

private final class Inbox: @unchecked Sendable {
    let lock = NSLock()
    var bodies: [[UInt8]] = []
}

@Suite("Generic webhooks and failure summaries", .offThePool)
struct WebhookNotifierTests {
    @Test func postsARenderedTemplateAndACodableValue() async throws {
        let inbox = Inbox()
        let server = try await TestServer.start { request, _ in
            let (bytes, _) = try await request.readBody()
            inbox.lock.withLock { inbox.bodies.append(bytes) }
            return request.uri.path == "/broken" ? Reply.text(500, "down") : Reply.empty(204)
        }
        defer { server.stop() }
        try await withTransport(maxAttempts: 2) { transport, recorder in
            let hook = try WebhookNotifier(url: server.baseURL + "/hook?key=abc123secret", transport: transport)
            try await hook.send(template: #"{"text": "Released {{version}}", "notes": "{{ notes }}"}"#,
                                values: ["version": "1.2.0", "notes": "line \"one\"\nline two"])
            struct Event: Encodable { var event: String; var version: String }
            try await hook.send(Event(event: "release", version: "1.2.0"))
            let bodies = inbox.lock.withLock { inbox.bodies }
            let first = try #require(try JSONSerialization.jsonObject(with: Data(bodies[0])) as? [String: String])
            #expect(first == ["text": "Released 1.2.0", "notes": "line \"one\"\nline two"])
            #expect(String(decoding: bodies[1], as: UTF8.self) == #"{"event":"release","version":"1.2.0"}"#)

            let broken = try WebhookNotifier(url: server.baseURL + "/broken", transport: transport)
            await #expect(throws: HTTPTransportError.self) { try await broken.send(template: "{}", values: [:]) }
            #expect(recorder.sleeps.count == 1)
        }
    }

    @Test func templateErrorsListEveryMissingPlaceholder() {
        #expect {
            try JSONTemplate.render(#"{"a": "{{one}}", "b": "{{two}}", "c": "{{one}}"}"#, values: [:])
        } throws: { error in
            guard case let .invalidTemplate(_, details)? = error as? NotifyError else { return false }
            return details == ["{{one}}", "{{two}}"]
        }
        #expect(throws: NotifyError.self) { try JSONTemplate.render(#"{"a": {{raw}}"#, values: ["raw": "1"]) }
        #expect(JSONTemplate.escape("tab\there\u{1}") == "tab\\there\\u0001")
    }

    @Test func failureSummaryIsRedactedAndFitsSlack() async throws {
        let token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
        let summary = FailureNotification(
            title: "Lane release failed at githubRelease (Lanes/Release.swift:31)",
            details: "GitHub refused token \(token)\n" + String(repeating: "trace line\n", count: 1_000),
            facts: [("version", "1.2.0"), ("remote", "https://bob:pa55word@github.com/acme/rocket.git")])
        let redactor = SecretRedactor(secrets: [token])
        let message = summary.slackMessage(redactor: redactor)
        let json = String(decoding: try message.jsonBytes(), as: UTF8.self)
        #expect(!json.contains(token) && !json.contains("pa55word"))
        #expect(json.contains("(truncated)"))
        #expect(!summary.text(redactor: redactor).contains(token))
        #expect(summary.templateValues(redactor: redactor)["remote"] == "https://***@github.com/acme/rocket.git")

        let slack = FakeSlack()
        try await slack.start()
        defer { slack.stop() }
        try await withTransport { transport, _ in
            try await SlackNotifier(webhookURL: slack.webhookURL, transport: transport).send(message)
        }
        #expect(slack.rejected.isEmpty && slack.payloads.count == 1)
    }
}
