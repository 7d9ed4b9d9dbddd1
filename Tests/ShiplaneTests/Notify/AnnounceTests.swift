import Foundation
import Testing
@testable import Shiplane

/// Announces one release to the services named in `TARGETS`, then fails when `FAIL` is set.
struct AnnounceLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let environment = lane.environment
        let facts = (0..<(Int(environment["FACTS"] ?? "1") ?? 1)).map { (key: "Fact \($0)", value: "value \($0)") }
        let announcement = Announcement(
            title: "Released 1.2.0 @everyone", text: (environment["TEXT"] ?? "Notes") + " token \(environment["GITHUB_TOKEN"] ?? "")",
            version: "1.2.0", url: "https://example.com/acme/rocket/releases/v1.2.0", facts: facts)
        let targets: [AnnouncementTarget] = (environment["TARGETS"] ?? "").split(separator: ",").compactMap {
            switch $0 {
            case "discord": return .discord(username: "Shiplane")
            case "teams": return .teams()
            case "mattermost": return .mattermost(channel: environment["MM_CHANNEL"], username: "shiplane")
            case "slack": return .slack(channel: "C0RELEASES")
            case "slackhook": return .slack()
            default: return nil
            }
        }
        try await lane.announce(announcement, to: targets)
        if environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

/// Tells Teams when a lane fails, through the same announcement shape.
struct TeamsOnError: LaneHooks {
    func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async {
        try? await context.announce(Announcement(context.failureNotification(failure)), to: [.teams()])
    }
}

@Suite("Announcements: Discord, Teams, Mattermost and Slack in one shape", .serialized, .offThePool)
struct AnnounceTests {
    static let token = "ghp_ANNOUNCEabcdefghijklmnopqrstuvwxyz0123"

    final class Services {
        let discord = FakeDiscord()
        let teams = FakeTeams()
        let mattermost = FakeMattermost()
        let slack = FakeSlackAPI()
        let slackHook = FakeSlack()

        func start() async throws {
            try await discord.start()
            try await teams.start()
            try await mattermost.start()
            try await slack.start()
            try await slackHook.start()
        }

        func stop() {
            discord.stop()
            teams.stop()
            mattermost.stop()
            slack.stop()
            slackHook.stop()
        }

        var environment: [String: String] {
            ["DISCORD_WEBHOOK_URL": discord.webhookURL, "TEAMS_WEBHOOK_URL": teams.webhookURL, "MATTERMOST_WEBHOOK_URL": mattermost.webhookURL,
             "SLACK_API_URL": slack.apiURL, "SLACK_BOT_TOKEN": slack.token, "SLACK_WEBHOOK_URL": slackHook.webhookURL]
        }

        var secrets: [String] { [discord.webhookToken, teams.signature, mattermost.key, slack.token, AnnounceTests.token] }
    }

    private func withServices(_ body: (Services) async throws -> Void) async throws {
        let services = Services()
        try await services.start()
        defer { services.stop() }
        try await body(services)
    }

    private func run(_ services: Services, _ extra: [String: String], hooks: [any LaneHooks] = [], dryRun: Bool = false) async throws -> (LaneRunResult, String) {
        let folder = NSTemporaryDirectory() + "shiplane-announce-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var variables = services.environment
        variables["GITHUB_TOKEN"] = Self.token
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for (key, value) in extra { variables[key] = value }
        let reporter = RecordingReporter()
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables),
                                        retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: reporter, isDryRun: dryRun), hooks: hooks)
        let result = await LaneRunner().run(AnnounceLane(), in: context)
        var lines: [String] = []
        for event in reporter.events { if case .message(let text, _, _) = event { lines.append(text) } }
        if let failure = result.failure { lines.append(allText(of: failure)) }
        return (result, lines.joined(separator: "\n"))
    }

    private func json(_ value: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: value)) ?? Data(), as: UTF8.self)
    }

    @Test func oneAnnouncementReachesEveryServiceInItsOwnShape() async throws {
        try await withServices { services in
            let (result, output) = try await run(services, ["TARGETS": "discord,teams,mattermost,slack"])
            #expect(result.succeeded, "\(output)")
            #expect(result.steps.map(\.name) == ["discord", "teams", "mattermost", "slack"])

            let discord = try #require(services.discord.messages.first)
            #expect(discord["content"] as? String == "Released 1.2.0 @everyone")
            #expect((discord["allowed_mentions"] as? [String: Any])?["parse"] as? [String] == [], "no pings")
            #expect(discord["username"] as? String == "Shiplane")
            let embed = try #require((discord["embeds"] as? [[String: Any]])?.first)
            #expect(embed["title"] as? String == "Version 1.2.0" && embed["url"] as? String == "https://example.com/acme/rocket/releases/v1.2.0")
            #expect((embed["fields"] as? [[String: Any]])?.first?["name"] as? String == "Fact 0")
            #expect(services.discord.log.first == "POST /api/webhooks/\(services.discord.webhookID)/TOKEN?wait=true")

            let message = try #require(services.teams.received.first)
            let card = try #require(((message["attachments"] as? [[String: Any]])?.first?["content"]) as? [String: Any])
            #expect(card["version"] as? String == "1.4")
            let body = try #require(card["body"] as? [[String: Any]])
            #expect(body.map { $0["type"] as? String ?? "" } == ["TextBlock", "FactSet", "TextBlock"])
            #expect((card["actions"] as? [[String: Any]])?.first?["url"] as? String == "https://example.com/acme/rocket/releases/v1.2.0")

            let post = try #require(services.mattermost.received.first)
            let text = post["text"] as? String ?? ""
            #expect(text.hasPrefix("#### Released 1.2.0") && text.contains("- **Version**: 1.2.0") && text.contains("[View the release](https://example.com/"))
            #expect(post["username"] as? String == "shiplane")

            let slack = try #require(services.slack.messages.first)
            #expect(slack.blocks.first?["type"] as? String == "header")

            let everything = json(services.discord.messages) + json(services.teams.received) + json(services.mattermost.received)
                + services.slack.messages.map { $0.text + json($0.blocks) }.joined() + output
            for secret in services.secrets { #expect(!everything.contains(secret), "\(secret) leaked") }
            #expect(everything.contains("token ***"))
        }
    }

    @Test func rollbackDeletesTheDiscordMessageAndTheSlackBotMessageAndSaysTheRestStays() async throws {
        try await withServices { services in
            let (result, output) = try await run(services, ["TARGETS": "discord,teams,mattermost,slack", "FAIL": "1"])
            let failure = try #require(result.failure)
            #expect(services.discord.messages.isEmpty, "deleted: \(services.discord.log)")
            #expect(services.discord.log.contains { $0.hasPrefix("DELETE /api/webhooks/\(services.discord.webhookID)/TOKEN/messages/") })
            #expect(services.slack.messages.isEmpty)
            #expect(failure.rollback.filter(\.undone).map(\.description).sorted() == ["delete the Discord message", "delete the Slack message in C0RELEASES"])
            #expect(failure.rollback.filter { $0.stays == true }.count == 2, "Teams and Mattermost stay: \(failure.rollback)")
            for secret in services.secrets { #expect(!output.contains(secret)) }
        }
    }

    @Test func limitsAreKeptByCuttingVisiblyNeverByARefusal() async throws {
        try await withServices { services in
            let long = String(repeating: "Notes ✓ ", count: 3_000)
            let (result, output) = try await run(services, ["TARGETS": "discord,teams,mattermost,slack,slackhook", "TEXT": long, "FACTS": "30"])
            #expect(result.succeeded, "\(output)")
            let embed = try #require(((services.discord.messages.first?["embeds"]) as? [[String: Any]])?.first)
            #expect((embed["description"] as? String)?.hasSuffix("…") == true)
            #expect((embed["fields"] as? [Any])?.count == 25)
            #expect(FakeDiscord.invalid(services.discord.messages[0]) == nil)
            #expect((services.mattermost.received.first?["text"] as? String)?.hasSuffix("…") == true)
            #expect(output.contains("Discord's limits: the description cut") && output.contains("5 facts left out"))
            #expect(output.contains("Mattermost's limits: the text was cut to 16383 characters"))
            #expect(output.contains("Teams' limits: the text was cut to fit 20000 characters and 27500 bytes of message"))
            #expect(services.teams.dropped.isEmpty, "\(services.teams.dropped)")
            // Slack says its cut like the others, whether a bot or an incoming webhook posts.
            let said = output.components(separatedBy: "\n").filter { $0.hasPrefix("Slack's limits: a section cut to 3000 characters") }
            #expect(said.count == 2, "\(output)")
            let hooked = try #require(services.slackHook.payloads.first)
            let section = ((hooked["blocks"] as? [[String: Any]])?.first { $0["type"] as? String == "section" && $0["text"] != nil }?["text"] as? [String: Any])?["text"] as? String
            #expect(section?.hasSuffix("… (truncated)") == true)
            #expect(services.slackHook.rejected.isEmpty)
        }
    }

    /// A short announcement is cut nowhere, and no step says it was.
    @Test func aShortAnnouncementSaysNothingOfLimits() async throws {
        try await withServices { services in
            let (result, output) = try await run(services, ["TARGETS": "discord,teams,mattermost,slack,slackhook"])
            #expect(result.succeeded, "\(output)")
            #expect(!output.contains("limits:"), "\(output)")
            #expect(services.slackHook.payloads.count == 1)
        }
    }

    /// Teams limits a message to 28 KB of bytes, and a Workflows trigger answers 202 to a larger
    /// one before its flow fails to post it: a text in any script is cut to fit the bytes.
    @Test(arguments: [("CJK", "発表"), ("Latin", "Notes"), ("emoji", "🚀"), ("escapes", "\"\\\n")])
    func teamsMessagesFitTheirBytesInAnyScript(script: String, piece: String) async throws {
        try await withServices { services in
            let long = String(repeating: piece, count: 20_000 / piece.count)
            let (result, output) = try await run(services, ["TARGETS": "teams", "TEXT": long, "FACTS": "3"])
            #expect(result.succeeded, "\(output)")
            #expect(services.teams.dropped.isEmpty, "the flow would have failed to post \(services.teams.dropped) bytes")
            let card = try #require(services.teams.received.first)
            let size = try JSONSerialization.data(withJSONObject: card).count
            #expect(size <= 28_000, "\(script): \(size) bytes")
            let body = ((card["attachments"] as? [[String: Any]])?.first?["content"] as? [String: Any])?["body"] as? [[String: Any]]
            let text = body?.last?["text"] as? String ?? ""
            #expect(text.hasSuffix("…") && text.count > 1_000, "\(script): \(text.count) characters kept")
        }
    }

    @Test func theStandInsRefuseWhatTheServicesRefuse() {
        #expect(FakeDiscord.invalid(["content": String(repeating: "x", count: 2_001)]) == "content")
        #expect(FakeDiscord.invalid(["embeds": [["description": String(repeating: "x", count: 4_000), "fields": [["name": "n", "value": String(repeating: "y", count: 1_024)],
                                                                                                             ["name": "n", "value": String(repeating: "y", count: 1_024)]]]]]) == "embeds")
        #expect(FakeTeams.invalid(["type": "message", "attachments": [["contentType": "application/json", "content": [:]]]]) != nil)
        #expect(FakeTeams.invalid(["type": "message", "attachments": [["contentType": "application/vnd.microsoft.card.adaptive",
                                                                       "content": ["type": "AdaptiveCard", "version": "1.4", "body": [["type": "Image"]]]]]]) != nil)
    }

    @Test func rateLimitsAndServerErrorsAreRetried() async throws {
        try await withServices { services in
            services.discord.inject(.rateLimited(seconds: 1))
            services.teams.inject(.rateLimited(seconds: 1))
            services.mattermost.inject(.status(503))
            let (result, output) = try await run(services, ["TARGETS": "discord,teams,mattermost"])
            #expect(result.succeeded, "\(output)")
            #expect(services.discord.messages.count == 1 && services.teams.received.count == 1 && services.mattermost.received.count == 1)
            #expect(services.discord.log.count == 2)
        }
    }

    @Test func refusalsAreClearErrorsWithoutSecrets() async throws {
        try await withServices { services in
            let badDiscord = services.discord.webhookURL.replacingOccurrences(of: services.discord.webhookID, with: "1")
            let (discord, discordText) = try await run(services, ["TARGETS": "discord", "DISCORD_WEBHOOK_URL": badDiscord])
            #expect(discord.failure != nil && discordText.contains("Discord rejected the message: Unknown Webhook (code 10015) (HTTP 404)"), "\(discordText)")
            let badTeams = services.teams.webhookURL.replacingOccurrences(of: services.teams.signature, with: "WRONGsigWRONGsig")
            let (teams, teamsText) = try await run(services, ["TARGETS": "teams", "TEAMS_WEBHOOK_URL": badTeams])
            #expect(teams.failure != nil && teamsText.contains("(DirectApiAuthorizationRequired)") && !teamsText.contains("WRONGsigWRONGsig"), "\(teamsText)")
            services.mattermost.allowsOverrides = false
            let (mattermost, mattermostText) = try await run(services, ["TARGETS": "mattermost", "MM_CHANNEL": "town-square"])
            #expect(mattermost.failure != nil && mattermostText.contains("channel_locked"), "\(mattermostText)")
            let (missing, missingText) = try await run(services, ["TARGETS": "discord", "DISCORD_WEBHOOK_URL": ""])
            #expect(missing.failure != nil && missingText.contains("DISCORD_WEBHOOK_URL is not set"))
            for secret in services.secrets { #expect(!(discordText + teamsText + mattermostText).contains(secret)) }
            #expect(services.discord.messages.isEmpty && services.teams.received.isEmpty && services.mattermost.received.isEmpty)
        }
    }

    @Test func aLostAnswerIsNotSentAgainAndStays() async throws {
        try await withServices { services in
            services.discord.inject(.loseAnswer)
            let (result, output) = try await run(services, ["TARGETS": "discord"])
            let failure = try #require(result.failure)
            #expect(output.contains("not sent again"), "\(output)")
            #expect(services.discord.messages.count == 1 && services.discord.log.count == 1)
            #expect(failure.rollback.contains { $0.stays == true && ($0.error ?? "").contains("its id is unknown") }, "\(failure.rollback)")
        }
    }

    @Test func aDryRunSendsNothing() async throws {
        try await withServices { services in
            let (result, _) = try await run(services, ["TARGETS": "discord,teams,mattermost,slack"], dryRun: true)
            #expect(result.succeeded)
            #expect(result.steps.compactMap(\.note).allSatisfy { $0.hasPrefix("would post") })
            #expect(services.discord.log.isEmpty && services.teams.received.isEmpty && services.mattermost.received.isEmpty && services.slack.log.isEmpty)
        }
    }

    @Test func onErrorAnnouncesTheFailureThroughTheSameShape() async throws {
        try await withServices { services in
            let (result, _) = try await run(services, ["TARGETS": "", "FAIL": "1"], hooks: [TeamsOnError()])
            #expect(result.failure != nil)
            let card = try #require(((services.teams.received.first?["attachments"] as? [[String: Any]])?.first?["content"]) as? [String: Any])
            let title = ((card["body"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
            #expect(title.contains("failed"), "\(title)")
        }
    }
}
