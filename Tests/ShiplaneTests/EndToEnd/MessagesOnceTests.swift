import Foundation
import Hummingbird
import Testing

/// A release lane that announces past its point of no return: Slack with a bot token, then a webhook.
private let announcingLane = #"""
import Shiplane

struct Release: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = try lane.bumpVersion(.patch)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try await lane.slack("Released \(version)", channel: "C0RELEASES")
        let delivery: Delivery = lane.environment["DELIVERY"] == "atLeastOnce" ? .atLeastOnce : .atMostOnce
        try await lane.webhook(lane.environment["HOOK_URL"] ?? "", template: #"{"text": "Released {{version}}"}"#,
                               values: ["version": "\(version)"], delivery: delivery)
    }
}
"""#

/// A webhook that stores what it receives and can lose its next answer (stored, then the
/// connection closed).
private final class LosingWebhook: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String] = []
    private var losses = 0
    private(set) var server: TestServer?

    var received: [String] { lock.withLock { bodies } }
    var url: String { (server?.baseURL ?? "") + "/hooks/release-SECRETPART" }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in
            let (bytes, _) = try await request.readBody()
            let lose: Bool = lock.withLock {
                bodies.append(String(decoding: bytes, as: UTF8.self))
                guard losses > 0 else { return false }
                losses -= 1
                return true
            }
            if lose {
                try await context.channel.close()
                throw CancellationError()
            }
            return Reply.empty(204)
        }
    }

    func loseNextAnswer() { lock.withLock { losses += 1 } }
    func stop() { server?.stop() }
}

@Suite("Messages go out once: the retry of a send whose answer was lost", .serialized, .offThePool)
struct MessagesOnceTests {
    private func environment(_ repo: TemporaryRepository, _ slack: FakeSlackAPI, _ hook: LosingWebhook, delivery: String = "") -> [String: String] {
        var environment = repo.environment
        for (key, value) in ["SLACK_API_URL": slack.apiURL, "SLACK_BOT_TOKEN": slack.token, "HOOK_URL": hook.url, "DELIVERY": delivery] {
            environment[key] = value
        }
        return environment
    }

    /// Killed while Slack holds its answer: the message is there, the record says "may have been
    /// sent". The retry looks it up by its metadata marker and posts nothing.
    @Test func aSlackBotMessageKilledInFlightIsFoundNotPostedAgain() async throws {
        let slack = FakeSlackAPI()
        try await slack.start()
        defer { slack.stop() }
        let hook = LosingWebhook()
        try await hook.start()
        defer { hook.stop() }
        slack.inject(.answerLate(seconds: 60), on: "chat.postMessage")
        let (repo, origin) = try releasableRepository(lane: announcingLane)
        let environment = environment(repo, slack, hook)
        let run = try SupervisedRun(["release"], in: repo.path, environment: environment)
        run.wait { !slack.messages.isEmpty }
        #expect(slack.messages.count == 1, "the post landed: \(slack.log)")
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 75, "past the point of no return: resumable\n\(all)")
        let record = try String(contentsOfFile: repo.path + "/.git/shiplane/run.json", encoding: .utf8)
        #expect(record.contains("notify.slack-message") && !record.contains(slack.token), "the record holds the message, not the token")

        let retry = try await repo.shiplaneAsync(["release"], environment: environment)
        #expect(retry.status == 0, "\(retry.all)")
        #expect(slack.messages.count == 1, "no second message: \(slack.log)")
        #expect(slack.log.filter { $0 == "POST chat.postMessage" }.count == 1)
        #expect(slack.log.contains("GET conversations.history"))
        #expect(retry.all.contains("is there: not sent again"), "\(retry.all)")
        #expect(hook.received.count == 1)
        #expect(try origin.git("tag", "--list").contains("v1.4.1"))
        #expect(!retry.all.contains(slack.token) && !all.contains(slack.token))
    }

    /// The same kill, then the retry in a fresh clone (a CI re-run on another runner): origin's
    /// record went out before the message did, so the resumed run knows it may have been sent,
    /// finds it on Slack by the marker it carries (the run's id and the step's number) and posts
    /// nothing.
    @Test func aFreshCloneRetryFindsTheSlackBotMessageTheFirstRunnerPosted() async throws {
        let slack = FakeSlackAPI()
        try await slack.start()
        defer { slack.stop() }
        let hook = LosingWebhook()
        try await hook.start()
        defer { hook.stop() }
        slack.inject(.answerLate(seconds: 60), on: "chat.postMessage")
        let (repo, origin) = try releasableRepository(lane: announcingLane)
        let environment = environment(repo, slack, hook)
        let run = try SupervisedRun(["release"], in: repo.path, environment: environment)
        run.wait { !slack.messages.isEmpty }
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 75, "\(all)")

        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        var cloneEnvironment = fresh.environment
        for key in ["SLACK_API_URL", "SLACK_BOT_TOKEN", "HOOK_URL", "DELIVERY"] { cloneEnvironment[key] = environment[key] }
        cloneEnvironment["CI"] = "true"
        let finished = try await runProgramAsync(shiplaneBinary, ["release"], in: fresh.path + "/clone", environment: cloneEnvironment)
        #expect(finished.status == 0, "\(finished.all)")
        #expect(slack.messages.count == 1, "no second message: \(slack.log)")
        #expect(slack.log.filter { $0 == "POST chat.postMessage" }.count == 1, "\(slack.log)")
        #expect(finished.all.contains("that the earlier attempt sent (its answer was lost) is there: not sent again"), "\(finished.all)")
        #expect(hook.received.count == 1)
        #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.4.1", "no second version")
    }

    /// A webhook's answer lost: the run stops resumable; the retry does not post again by default
    /// (a warning names the message and `.atLeastOnce`), and posts again with `.atLeastOnce`.
    @Test(arguments: ["", "atLeastOnce"])
    func aWebhookWhoseAnswerWasLostIsSkippedByDefaultAndResentOnRequest(delivery: String) async throws {
        let slack = FakeSlackAPI()
        try await slack.start()
        defer { slack.stop() }
        let hook = LosingWebhook()
        try await hook.start()
        defer { hook.stop() }
        hook.loseNextAnswer()
        let (repo, origin) = try releasableRepository(lane: announcingLane)
        let environment = environment(repo, slack, hook, delivery: delivery)
        let first = try await repo.shiplaneAsync(["release"], environment: environment)
        #expect(first.status == 75, "\(first.all)")
        let record = try String(contentsOfFile: repo.path + "/.git/shiplane/run.json", encoding: .utf8)
        #expect(record.contains("may have") || record.contains("intended"), "\(record)")
        #expect(!record.contains("SECRETPART"), "the webhook URL is not in the record")
        #expect(first.all.contains("not sent again"), "\(first.all)")
        #expect(hook.received.count == 1)

        let retry = try await repo.shiplaneAsync(["release"], environment: environment)
        #expect(retry.status == 0, "\(retry.all)")
        #expect(slack.messages.count == 1, "the Slack step was finished and is replayed: \(slack.log)")
        if delivery.isEmpty {
            #expect(hook.received.count == 1, "not sent twice")
            #expect(retry.all.contains("may have been sent by the earlier attempt"), "\(retry.all)")
            #expect(retry.all.contains("delivery: .atLeastOnce"), "\(retry.all)")
        } else {
            #expect(hook.received.count == 2, "sent again on request")
            #expect(retry.all.contains("sending it again"), "\(retry.all)")
        }
        #expect(!retry.all.contains("SECRETPART") && !first.all.contains("SECRETPART"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(try origin.git("tag", "--list").contains("v1.4.1"))
    }
}

/// Announces to Discord and Slack (bot), with nothing pushed: a kill rolls everything back.
private let discordAndSlackLane = #"""
import Shiplane

struct Announce: Lane {
    func run(_ lane: LaneContext) async throws {
        let news = Announcement(title: "Released 1.4.1", text: "notes", version: "1.4.1")
        try await lane.announce(news, to: [.discord(), .slack(channel: "C0RELEASES")])
    }
}
"""#

@Suite("Rollback from the record deletes what the services allow", .serialized, .offThePool)
struct AnnouncementRollbackTests {
    /// The lane program killed once both messages are recorded as sent: the supervisor undoes the
    /// run from its record, in another process, and deletes the Discord message (its webhook URL
    /// found again in the environment by its digest) and the Slack message (`chat.delete`).
    @Test func aKilledRunsDiscordAndSlackBotMessagesAreDeleted() async throws {
        let discord = FakeDiscord()
        try await discord.start()
        defer { discord.stop() }
        let slack = FakeSlackAPI()
        try await slack.start()
        defer { slack.stop() }
        let (repo, _) = try releasableRepository(lane: discordAndSlackLane)
        let result = try await repo.shiplaneAsync(["announce"], environment: [
            "DISCORD_WEBHOOK_URL": discord.webhookURL, "SLACK_API_URL": slack.apiURL, "SLACK_BOT_TOKEN": slack.token,
            "SHIPLANE_FAULT": "after-effect:2",
        ])
        #expect(result.status == 130, "\(result.all)")
        #expect(discord.messages.isEmpty, "deleted from the record: \(discord.log)")
        #expect(discord.log.contains { $0.hasPrefix("DELETE /api/webhooks/\(discord.webhookID)/TOKEN/messages/") }, "\(discord.log)")
        #expect(slack.messages.isEmpty && slack.log.contains("POST chat.delete"), "\(slack.log)")
        #expect(!result.all.contains(discord.webhookToken) && !result.all.contains(slack.token))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(result.all)")
    }
}
