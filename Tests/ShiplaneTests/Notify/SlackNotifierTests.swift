import Foundation
import Testing
@testable import Shiplane

@Suite("Slack notifications", .offThePool)
struct SlackNotifierTests {
    private func withSlack(_ body: (FakeSlack, HTTPTransport) async throws -> Void) async throws {
        let slack = FakeSlack()
        try await slack.start()
        defer { slack.stop() }
        try await withTransport { transport, _ in try await body(slack, transport) }
    }

    @Test func sendsBlockKitWithTextFallback() async throws {
        try await withSlack { slack, transport in
            try await SlackNotifier(webhookURL: slack.webhookURL, transport: transport).send(
                SlackMessage(text: "Released 1.2.0", blocks: [.header("Rocket 1.2.0"), .section("*Released* :rocket:"), .divider,
                                                             .fields(["*Version*\n1.2.0", "*Build*\n42"]), .context(["by CI"])]))
            let payload = try #require(slack.payloads.first)
            #expect(payload["text"] as? String == "Released 1.2.0")
            let blocks = try #require(payload["blocks"] as? [[String: Any]])
            #expect(blocks.map { $0["type"] as? String ?? "" } == ["header", "section", "divider", "section", "context"])
        }
    }

    @Test func oversizedMessagesAreTruncatedNeverRejected() async throws {
        try await withSlack { slack, transport in
            let notifier = try SlackNotifier(webhookURL: slack.webhookURL, transport: transport)
            let many = (0..<80).map { SlackMessage.Block.section("line \($0)") }
            try await notifier.send(SlackMessage(text: String(repeating: "t", count: 50_000), blocks: many))
            try await notifier.send(SlackMessage(text: "", blocks: [.section(String(repeating: "é", count: 5_000)),
                                                                    .fields((0..<23).map { "field \($0)" }), .section("  ")]))
            try await notifier.send(SlackMessage(text: "", blocks: []))
            try await notifier.send("🚀 " + String(repeating: "🚀", count: 2_000))
            #expect(slack.rejected.isEmpty)
            #expect(slack.payloads.count == 4)
            let first = try #require(slack.payloads.first)
            let blocks = try #require(first["blocks"] as? [[String: Any]])
            #expect(blocks.count == 50)
            let note = ((blocks.last?["elements"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
            #expect(note.contains("31 more blocks omitted"))
            #expect((first["text"] as? String)?.hasSuffix("(truncated)") == true)
            #expect((slack.payloads[2]["text"] as? String) == "(no text)")
        }
    }

    @Test func theFakeReallyEnforcesTheRules() async throws {
        // Guards the test above: a raw oversized payload is rejected by the fake.
        try await withSlack { slack, transport in
            let blocks = (0..<51).map { _ in ["type": "divider"] }
            let body = try JSONSerialization.data(withJSONObject: ["text": "x", "blocks": blocks])
            let response = try await transport.send(HTTPRequest(method: .post, url: slack.webhookURL, body: .bytes(Array(body))))
            #expect(response.status == 400 && response.text == "invalid_blocks")
            let noText = try await transport.send(HTTPRequest(method: .post, url: slack.webhookURL, body: .bytes(Array("{}".utf8))))
            #expect(noText.text == "no_text")
        }
    }

    @Test func slackErrorStringsBecomeClearErrors() async throws {
        try await withSlack { slack, transport in
            await #expect {
                try await SlackNotifier(webhookURL: slack.goneURL, transport: transport).send("hi")
            } throws: { error in
                guard case .slackRejected(404, "channel_not_found")? = error as? NotifyError else { return false }
                let text = allText(of: error)
                return text.contains("the channel does not exist") && !text.contains(slack.goneURL)
            }
        }
    }

    @Test func webhookURLIsRequiredAndValidated() async throws {
        try await withTransport { transport, _ in
            #expect { try SlackNotifier(webhookURL: nil, transport: transport) } throws: { error in
                (error as? NotifyError)?.suggestion?.contains("SLACK_WEBHOOK_URL") == true
            }
            for bad in ["ftp://hooks.slack.com/services/x", "hooks.slack.com/services/x", "https:///services/x"] {
                #expect(throws: NotifyError.self) { try SlackNotifier(webhookURL: bad, transport: transport) }
            }
            do {
                _ = try SlackNotifier(webhookURL: "ftp://hooks.example/T1/B2/secretsecret", transport: transport)
            } catch {
                #expect(!allText(of: error).contains("secretsecret"))
            }
        }
    }

    @Test func truncationCountsUTF16AndAddsANote() {
        let cut = SlackMessage.truncate(String(repeating: "🚀", count: 100), to: 50)
        #expect(cut.utf16.count <= 50)
        #expect(cut.hasSuffix("(truncated)"))
        #expect(SlackMessage.truncate("short", to: 50) == "short")
    }
}
