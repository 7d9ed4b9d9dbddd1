import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// Announces one release to Google Chat; `TEXT` is the body, `FAIL` makes the lane fail after it.
struct GoogleChatLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let environment = lane.environment
        let announcement = Announcement(
            title: "Released 1.2.0", text: (environment["TEXT"] ?? "Notes") + " token \(environment["GITHUB_TOKEN"] ?? "")",
            version: "1.2.0", url: "https://example.com/acme/rocket/releases/v1.2.0", facts: [("Commits", "12")])
        try await lane.announce(announcement, to: [.googleChat()])
        if environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

@Suite("Google Chat: one announcer folder against a stand-in written from Google's reference", .serialized, .offThePool)
struct GoogleChatTests {
    static let token = "ghp_GOOGLECHATabcdefghijklmnopqrstuvwxyz01"

    private func withChat(_ body: (FakeGoogleChat) async throws -> Void) async throws {
        let chat = FakeGoogleChat()
        try await chat.start()
        defer { chat.stop() }
        try await body(chat)
    }

    /// Runs `GoogleChatLane`; returns the result and everything it printed (messages and the failure).
    private func run(_ chat: FakeGoogleChat, _ extra: [String: String] = [:], dryRun: Bool = false) async throws -> (LaneRunResult, String) {
        let folder = NSTemporaryDirectory() + "shiplane-googlechat-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var variables = ["GOOGLE_CHAT_WEBHOOK_URL": chat.webhookURL, "GITHUB_TOKEN": Self.token,
                         "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]
        for (key, value) in extra { variables[key] = value }
        let reporter = RecordingReporter()
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables),
                                        retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: reporter, isDryRun: dryRun))
        let result = await LaneRunner().run(GoogleChatLane(), in: context)
        var lines: [String] = []
        for event in reporter.events { if case .message(let text, _, _) = event { lines.append(text) } }
        for step in result.steps { lines.append(step.note ?? "") }
        if let failure = result.failure { lines.append(allText(of: failure)) }
        return (result, lines.joined(separator: "\n"))
    }

    private func secrets(_ chat: FakeGoogleChat) -> [String] { [chat.key, chat.decodedToken, chat.token, Self.token] }

    @Test func theAnnouncementIsPostedAsChatTextToTheWebhook() async throws {
        try await withChat { chat in
            let (result, output) = try await run(chat)
            #expect(result.succeeded, "\(output)")
            #expect(result.steps.map(\.name) == ["googleChat"])
            #expect(result.steps.first?.note == "posted")
            #expect(chat.log == ["POST /v1/spaces/\(chat.space)/messages application/json; charset=UTF-8 \(chat.log.first?.split(separator: " ").last ?? "")"])
            let message = try #require(chat.received.first)
            #expect(Array(message.keys) == ["text"])
            let text = message["text"] as? String ?? ""
            #expect(text.hasPrefix("*Released 1.2.0*\n*Version*: 1.2.0\n*Commits*: 12\n\nNotes token ***"), "\(text)")
            #expect(text.hasSuffix("<https://example.com/acme/rocket/releases/v1.2.0|View the release>"))
            for secret in secrets(chat) { #expect(!(output + text).contains(secret), "\(secret) leaked") }
        }
    }

    @Test func itIsOneRegisteredAnnouncerWithGooglesLimits() {
        #expect(Announcers.all.contains { $0 == GoogleChat.self })
        #expect(Features.actions.contains { $0.name == "googleChat" })
        #expect(GoogleChat.limits == AnnouncerLimits(characters: 4_096, bytes: 32_000))
        #expect(!GoogleChat.semantics.undoable)
        #expect(GoogleChat.isConfigured(in: LaneEnvironment(variables: ["GOOGLE_CHAT_WEBHOOK_URL": "https://chat.googleapis.com/v1/spaces/A/messages"])))
        #expect(!GoogleChat.isConfigured(in: LaneEnvironment(variables: ["GOOGLE_CHAT_WEBHOOK_URL": "  "])))
        // Every service names its configuration and says what its answer means.
        for announcer in Announcers.all { #expect(!announcer.configuration.isEmpty && !announcer.semantics.answer.isEmpty, "\(announcer.service)") }
    }

    /// CJK text is three bytes a character: the cut counts characters (4,096), not bytes, and the
    /// whole message as sent stays within Google's 32,000 bytes.
    @Test func cjkTextIsCutByCharactersAndTheMessageFitsItsBytes() async throws {
        try await withChat { chat in
            let (result, output) = try await run(chat, ["TEXT": String(repeating: "発表", count: 10_000)])
            #expect(result.succeeded, "\(output)")
            let text = try #require(chat.received.first?["text"] as? String)
            #expect(text.unicodeScalars.count == 4_096 && text.hasSuffix("…"), "\(text.unicodeScalars.count) characters")
            #expect(text.utf8.count > 12_000, "cut by characters, not by bytes: \(text.utf8.count) bytes kept")
            #expect(try JSONSerialization.data(withJSONObject: ["text": text]).count <= 32_000)
            #expect(FakeGoogleChat.invalid(["text": text]) == nil)
            #expect(output.contains("Google Chat's limits: the text was cut to 4096 characters (marked with …)"), "\(output)")
        }
    }

    /// Where the bytes bind before the characters, the text is cut to the bytes as sent, escapes
    /// included, never splitting a character.
    @Test(arguments: [("CJK", "発表"), ("emoji", "🚀"), ("escapes", "\"\\\n\u{1}")])
    func theByteCutFitsAnyScript(script: String, piece: String) throws {
        let announcement = Announcement(title: "Released 1.2.0", text: String(repeating: piece, count: 3_000))
        let (json, cuts) = GoogleChat.payload(announcement, characters: 4_096, bytes: 2_000)
        let size = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes]).count
        let text = json["text"] as? String ?? ""
        #expect(size <= 2_000 && size > 1_500, "\(script): \(size) bytes")
        #expect(text.hasSuffix("…") && text.hasPrefix("*Released 1.2.0*"), "\(script)")
        #expect(cuts == ["the text was cut to fit 2000 bytes of message"])
    }

    @Test func aRefusalIsAClearErrorWithAnExitCodeAndNoSecret() async throws {
        try await withChat { chat in
            let wrongToken = chat.webhookURL.replacingOccurrences(of: chat.token, with: "WRONGtokenWRONGtoken")
            let (refused, text) = try await run(chat, ["GOOGLE_CHAT_WEBHOOK_URL": wrongToken])
            let failure = try #require(refused.failure)
            #expect(text.contains("Google Chat rejected the message: Request had invalid authentication credentials. (UNAUTHENTICATED) (HTTP 401)"), "\(text)")
            #expect(ShiplaneExitCode.for(failure) == .failure && ShiplaneExitCode.failure.rawValue == 1)
            #expect(!text.contains("WRONGtokenWRONGtoken") && !text.contains(chat.key), "\(text)")

            let wrongKey = chat.webhookURL.replacingOccurrences(of: chat.key, with: "AIzaSyWRONGkeyWRONGkeyWRONGkey0123456")
            let (badKey, keyText) = try await run(chat, ["GOOGLE_CHAT_WEBHOOK_URL": wrongKey])
            #expect(badKey.failure != nil && keyText.contains("API key not valid") && keyText.contains("(HTTP 400)"), "\(keyText)")
            #expect(!keyText.contains("AIzaSyWRONGkeyWRONGkeyWRONGkey0123456"))

            let (missing, missingText) = try await run(chat, ["GOOGLE_CHAT_WEBHOOK_URL": ""])
            #expect(missing.failure != nil && missingText.contains("GOOGLE_CHAT_WEBHOOK_URL is not set"), "\(missingText)")
            #expect(chat.received.isEmpty)
        }
    }

    @Test func serverErrorsAndRateLimitsAreRetried() async throws {
        try await withChat { chat in
            chat.inject(.status(503))
            chat.inject(.rateLimited(seconds: 1))
            let (result, output) = try await run(chat)
            #expect(result.succeeded, "\(output)")
            #expect(chat.received.count == 1 && chat.log.count == 3)
        }
    }

    @Test func aSentMessageStaysOnRollbackAndALostAnswerIsNotSentAgain() async throws {
        try await withChat { chat in
            let (failed, output) = try await run(chat, ["FAIL": "1"])
            let failure = try #require(failed.failure)
            #expect(failure.rollback.contains { $0.stays == true }, "\(failure.rollback)")
            for secret in secrets(chat) { #expect(!output.contains(secret), "\(secret) leaked") }

            chat.inject(.loseAnswer)
            let (lost, lostOutput) = try await run(chat)
            #expect(lost.failure != nil)
            #expect(lostOutput.contains("not sent again"), "\(lostOutput)")
            #expect(chat.log.count == 2, "\(chat.log)")
        }
    }

    @Test func aDryRunSendsNothing() async throws {
        try await withChat { chat in
            let (result, output) = try await run(chat, dryRun: true)
            #expect(result.succeeded, "\(output)")
            #expect(result.steps.first?.note?.hasPrefix("would post to Google Chat http://127.0.0.1:") == true, "\(output)")
            #expect(chat.log.isEmpty)
            for secret in secrets(chat) { #expect(!output.contains(secret), "\(secret) leaked") }
        }
    }

    @Test func theStandInRefusesWhatGoogleRefuses() {
        #expect(FakeGoogleChat.invalid(["text": "hi", "username": "bot"])?.contains("Unknown name \"username\"") == true)
        #expect(FakeGoogleChat.invalid(["text": ""]) != nil)
        #expect(FakeGoogleChat.invalid(["text": 3]) != nil)
        #expect(FakeGoogleChat.invalid(["text": String(repeating: "x", count: 4_097)]) != nil)
        #expect(FakeGoogleChat.invalid(["text": "hi"]) == nil)
    }
}
