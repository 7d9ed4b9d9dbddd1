import Foundation
import Testing
@testable import Shiplane

/// Posts to Slack with the bot token, then fails when `FAIL` is set (so the run rolls back).
struct SlackBotLane: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.slack("Released 1.2.0 with token \(lane.environment["SLACK_BOT_TOKEN"] ?? "")", channel: lane.environment["CHANNEL"] ?? "")
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

@Suite("Slack with a bot token", .serialized, .offThePool)
struct SlackBotTests {
    private func run(_ slack: FakeSlackAPI, channel: String = "C0RELEASES", fail: Bool = false, dryRun: Bool = false,
                     token: String? = nil) async throws -> (LaneRunResult, RecordingReporter) {
        let folder = NSTemporaryDirectory() + "shiplane-slackbot-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var variables = ["SLACK_API_URL": slack.apiURL, "CHANNEL": channel, "FAIL": fail ? "1" : "0",
                         "SHIPLANE_HTTP_RETRY_DELAY": "0.01", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]
        variables["SLACK_BOT_TOKEN"] = token ?? slack.token
        let reporter = RecordingReporter()
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables), retryPolicy: RetryPolicy(baseDelay: 0.01),
                                        reporter: reporter, isDryRun: dryRun))
        return (await LaneRunner().run(SlackBotLane(), in: context), reporter)
    }

    private func withSlack(_ body: (FakeSlackAPI) async throws -> Void) async throws {
        let slack = FakeSlackAPI()
        try await slack.start()
        defer { slack.stop() }
        try await body(slack)
    }

    @Test func postsWithTheBotTokenAMarkerInItsMetadataAndRedactedText() async throws {
        try await withSlack { slack in
            let (result, _) = try await run(slack)
            #expect(result.succeeded, "\(String(describing: result.failure))")
            let message = try #require(slack.messages.first)
            #expect(slack.messages.count == 1 && message.channel == "C0RELEASES")
            #expect(message.text.hasPrefix("Released 1.2.0") && !message.text.contains(slack.token))
            #expect(message.metadata?["event_type"] as? String == "shiplane_message")
            let marker = (message.metadata?["event_payload"] as? [String: Any])?["marker"] as? String
            #expect(marker?.hasSuffix("/step-1") == true)
            #expect(slack.log == ["POST chat.postMessage"])
        }
    }

    @Test func rollbackDeletesTheMessage() async throws {
        try await withSlack { slack in
            let (result, _) = try await run(slack, fail: true)
            let failure = try #require(result.failure)
            #expect(slack.messages.isEmpty, "deleted: \(slack.log)")
            #expect(slack.log.contains("POST chat.delete"))
            #expect(failure.rollback.contains { $0.description == "delete the Slack message in C0RELEASES" && $0.undone })
        }
    }

    @Test func aLostAnswerIsFoundByItsMarkerNotPostedTwice() async throws {
        try await withSlack { slack in
            slack.inject(.loseAnswer, on: "chat.postMessage")
            let (result, reporter) = try await run(slack)
            #expect(result.succeeded, "\(String(describing: result.failure))")
            #expect(slack.messages.count == 1, "one message: \(slack.log)")
            #expect(slack.log == ["POST chat.postMessage", "GET conversations.history"])
            #expect(reporter.events.contains { if case .message(let text, _, _) = $0 { return text.contains("sent once") } else { return false } })
        }
    }

    @Test func aLostAnswerThenFailureStillDeletesTheFoundMessage() async throws {
        try await withSlack { slack in
            slack.inject(.loseAnswer, on: "chat.postMessage")
            let (result, _) = try await run(slack, fail: true)
            #expect(result.failure != nil)
            #expect(slack.messages.isEmpty, "\(slack.log)")
        }
    }

    @Test func rateLimitsAndServerErrorsAreRetried() async throws {
        try await withSlack { slack in
            slack.inject(.rateLimited(seconds: 1), on: "chat.postMessage")
            slack.inject(.status(503), on: "chat.postMessage")
            let (result, _) = try await run(slack)
            #expect(result.succeeded, "\(String(describing: result.failure))")
            #expect(slack.messages.count == 1)
            #expect(slack.log.filter { $0 == "POST chat.postMessage" }.count == 3)
        }
    }

    @Test func slackErrorsAndBadInputAreClearAndSendNothing() async throws {
        try await withSlack { slack in
            let (unknown, _) = try await run(slack, channel: "C0MISSING1")
            #expect(unknown.failure.map { allText(of: $0) }?.contains("the channel does not exist") == true)
            let (name, _) = try await run(slack, channel: "#releases")
            #expect(name.failure.map { allText(of: $0) }?.contains("not a Slack channel id") == true)
            let (badToken, _) = try await run(slack, token: "xoxb-0000-WRONGWRONGWRONG")
            let text = badToken.failure.map { allText(of: $0) } ?? ""
            #expect(text.contains("invalid_auth") && text.contains("the token is not valid") && !text.contains("WRONGWRONGWRONG"), "\(text)")
            #expect(slack.messages.isEmpty)
        }
    }

    @Test func aDryRunPostsNothing() async throws {
        try await withSlack { slack in
            let (result, _) = try await run(slack, dryRun: true)
            #expect(result.succeeded)
            #expect(slack.log.isEmpty)
        }
    }

    @Test func theFakeFollowsSlacksRules() async throws {
        try await withSlack { slack in
            try await withTransport { transport, _ in
                func call(_ method: String, _ json: String, token: String?, contentType: String = "application/json; charset=utf-8") async throws -> String {
                    var headers = [("Content-Type", contentType)]
                    if let token { headers.append(("Authorization", "Bearer \(token)")) }
                    return try await transport.send(HTTPRequest(method: .post, url: "\(slack.apiURL)/\(method)", headers: headers, body: .bytes(Array(json.utf8)))).text
                }
                #expect(try await call("chat.postMessage", #"{"channel":"C0RELEASES","text":"x"}"#, token: nil).contains("not_authed"))
                #expect(try await call("chat.postMessage", #"{"channel":"C0RELEASES","text":"x"}"#, token: "xoxb-other").contains("invalid_auth"))
                #expect(try await call("chat.postMessage", #"{"channel":"C0RELEASES","text":"x"}"#, token: slack.token, contentType: "text/plain").contains("invalid_arguments"))
                #expect(try await call("chat.postMessage", #"{"channel":"C0RELEASES"}"#, token: slack.token).contains("no_text"))
                #expect(try await call("chat.postMessage", #"{"channel":"C0RELEASES","text":"x","metadata":{"event_type":"a"}}"#, token: slack.token).contains("invalid_metadata_format"))
                #expect(try await call("chat.delete", #"{"channel":"C0RELEASES","ts":"1.0"}"#, token: slack.token).contains("message_not_found"))
                let history = try await transport.send(HTTPRequest(method: .get, url: "\(slack.apiURL)/conversations.history?channel=%23releases",
                                                                   headers: [("Authorization", "Bearer \(slack.token)")])).text
                #expect(history.contains("channel_not_found"), "names are not ids")
                #expect(slack.messages.isEmpty)
            }
        }
    }
}
