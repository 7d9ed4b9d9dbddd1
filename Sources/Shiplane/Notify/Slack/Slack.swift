import Foundation

/// Posts a message to Slack: through an incoming webhook (`SLACK_WEBHOOK_URL`), or with a bot
/// token (`SLACK_BOT_TOKEN`) to a `channel`.
///
/// Block Kit with a plain-text fallback, within Slack's limits (long text is cut with a note,
/// never rejected). The text is redacted first. With a bot token the message carries the run's
/// marker in its metadata and its `ts` is recorded: a retry whose answer was lost finds it instead
/// of posting it twice, and rollback deletes it. An incoming webhook's message cannot be taken back,
/// and one whose answer was lost is not sent again unless `delivery` is `.atLeastOnce`.
package struct Slack: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "slack"
    /// The message, redacted before it is sent.
    package var text: String
    /// The incoming webhook URL; nil: `SLACK_WEBHOOK_URL` (unless `channel` is given).
    package var webhookURL: String?
    /// The channel id (`C…`) to post to with the bot token `SLACK_BOT_TOKEN`; nil: the webhook.
    package var channel: String?
    /// What a retry does with a webhook message whose answer was lost (a bot message is looked for).
    package var delivery: Delivery
    /// Block Kit blocks shown instead of `text` alone (which stays the notification fallback).
    package var blocks: [SlackMessage.Block] = []

    /// Creates the action that posts `text`, to `channel` with the bot token, or to `webhookURL` or `SLACK_WEBHOOK_URL`.
    package init(_ text: String, webhookURL: String? = nil, channel: String? = nil, delivery: Delivery = .atMostOnce) {
        self.text = text
        self.webhookURL = webhookURL
        self.channel = channel
        self.delivery = delivery
    }

    /// Creates the action that posts `message` (its blocks, with its text as the fallback).
    package init(message: SlackMessage, webhookURL: String? = nil, channel: String? = nil, delivery: Delivery = .atMostOnce) {
        self.init(message.text, webhookURL: webhookURL, channel: channel, delivery: delivery)
        blocks = message.blocks
    }

    /// The message as sent: the blocks with the text as fallback, or the text as one section.
    var message: SlackMessage { blocks.isEmpty ? SlackMessage.plain(text) : SlackMessage(text: text, blocks: blocks) }

    /// The text, the channel and the delivery rule (the webhook URL is a secret and not shown).
    package var options: [StepOption] {
        var shown = [StepOption("text", text)]
        if let channel { shown.append(StepOption("channel", channel)) }
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    /// Posts the message; in a dry run only notes what it would post.
    /// - Throws: `NotifyError` when the URL or token is missing or invalid or Slack rejects the message;
    ///   `HTTPTransportError` when it cannot be delivered.
    package func run(in step: StepContext) async throws {
        if let channel {
            try await postWithBot(to: channel, in: step)
            return
        }
        let transport = step.httpTransport()
        let notifier = try SlackNotifier(webhookURL: webhookURL ?? step.lane.environment["SLACK_WEBHOOK_URL"], transport: transport)
        let message = self.message.redacted(by: transport.redactor)
        Self.logCuts(of: message, in: step)
        if step.isDryRun {
            step.note("would post to Slack: \(message.text)")
            return
        }
        let outcome = try await step.deliverOnce(
            MessageSent(destination: "Slack"), "notification to Slack", destination: "Slack", delivery: delivery,
            nothingHappened: { $0 is NotifyError }
        ) {
            try await notifier.send(message)
            return MessageSent(destination: "Slack")
        }
        if outcome == .sent { step.note("posted") }
    }

    private func postWithBot(to channel: String, in step: StepContext) async throws {
        guard webhookURL == nil else {
            throw NotifyError.conflictingOptions("give `channel:` (a bot token posts) or `webhookURL:` (an incoming webhook posts), not both")
        }
        guard Self.isChannelID(channel) else {
            throw NotifyError.conflictingOptions(
                "channel \(channel) is not a Slack channel id: give the id (C…, G… or D…; in Slack, the channel's details show it), "
                + "as a message whose answer was lost is looked for by id (conversations.history takes no names)")
        }
        let environment = step.lane.environment
        let client = try SlackBotClient(token: environment["SLACK_BOT_TOKEN"], apiURL: environment["SLACK_API_URL"], transport: step.httpTransport())
        let message = self.message.redacted(by: client.transport.redactor)
        Self.logCuts(of: message, in: step)
        if step.isDryRun {
            step.note("would post to Slack \(channel): \(message.text)")
            return
        }
        let marker = step.messageMarker
        let intended = SlackMessagePosted(apiURL: client.apiURL, channel: channel, marker: marker, sentAt: step.lane.state.now().timeIntervalSince1970)
        let find: (SlackMessagePosted) async throws -> SlackMessagePosted? = { recorded in
            guard let found = try await client.find(marker: recorded.marker, channel: recorded.channel, oldest: recorded.sentAt - SlackMessagePosted.clockSlack)
            else { return nil }
            var effect = recorded
            effect.ts = found.ts
            return effect
        }
        let outcome = try await step.deliverOnce(
            intended, "delete the Slack message in \(channel)", destination: "Slack \(channel)", delivery: delivery, find: find,
            nothingHappened: { $0 is NotifyError }
        ) {
            let posted = try await client.post(message, channel: channel, marker: marker)
            var effect = intended
            effect.channel = posted.channel
            effect.ts = posted.ts
            return effect
        }
        if outcome == .sent { step.note("posted to \(channel)") }
    }
}

extension Slack {
    /// Says, as a warning, what Slack's limits cut from `message` (as the other announcers say
    /// theirs), in the run and in a dry run alike.
    static func logCuts(of message: SlackMessage, in step: StepContext) {
        for cut in message.cuts { step.log("Slack's limits: \(cut) (marked in the message)", level: .warning) }
    }

    /// True for a Slack conversation id: `C`, `G` or `D` and at least eight more capitals or digits.
    static func isChannelID(_ text: String) -> Bool {
        guard let first = text.first, "CGD".contains(first), text.count >= 9 else { return false }
        return text.allSatisfy { ($0.isASCII && $0.isUppercase) || ($0.isASCII && $0.isNumber) }
    }
}

extension StepContext {
    /// What a message this step sends carries to be found again: the run's id and the step's
    /// number, the same in every retry of the step (a fresh id when the run keeps no record).
    var messageMarker: String {
        "\(lane.state.journal.recorder?.current.id ?? UUID().uuidString)/step-\(number)"
    }
}

extension LaneContext {
    /// Posts `text` to Slack: with the bot token `SLACK_BOT_TOKEN` to `channel` when given, else
    /// through the incoming webhook `SLACK_WEBHOOK_URL` (or `webhookURL`).
    public func slack(
        _ text: String, webhookURL: String? = nil, channel: String? = nil, delivery: Delivery = .atMostOnce,
        file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Slack(text, webhookURL: webhookURL, channel: channel, delivery: delivery), file: file, line: line)
    }
}

extension Slack: DocumentedAction {
    /// How `lane.slack` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post to Slack through an incoming webhook (SLACK_WEBHOOK_URL) or with a bot token (SLACK_BOT_TOKEN) to a channel: Block Kit with a text fallback, within Slack's limits, redacted, sent once",
        signature: "try await lane.slack(_ text: String, webhookURL: String? = nil, channel: String? = nil, delivery: Delivery = .atMostOnce)",
        parameters: [
            .init(name: "text", type: "String", defaultValue: nil, help: "the message"),
            .init(name: "webhookURL", type: "String?", defaultValue: "SLACK_WEBHOOK_URL", help: "the incoming webhook (a secret: redacted everywhere)"),
            .init(name: "channel", type: "String?", defaultValue: "nil", help: "post with the bot token SLACK_BOT_TOKEN (chat.postMessage) to this channel id (C…); SLACK_API_URL overrides the API base"),
            .init(name: "delivery", type: "Delivery", defaultValue: ".atMostOnce", help: "a webhook message whose answer was lost is not sent again by the retry (.atLeastOnce: it is); a bot message is looked for instead")
        ],
        example: #"try await lane.slack("Released \(version) 🚀", channel: "C0123456789")"#,
        dryRun: "says what it would post",
        rollback: "a bot message is deleted (chat.delete; one whose answer was lost is found by its metadata first); an incoming webhook's message cannot be taken back, so rollback reports it as staying: notify last"
    )
}

extension Slack: Announcer {
    /// The service's name in messages.
    package static let service = "Slack"
    /// `SLACK_WEBHOOK_URL` (an incoming webhook) or `SLACK_BOT_TOKEN` (a bot, with a channel).
    package static let configuration = ["SLACK_WEBHOOK_URL", "SLACK_BOT_TOKEN"]
    /// 40,000 characters of text (the blocks' own limits are kept by `SlackMessage`); Slack
    /// documents no byte limit.
    package static let limits = AnnouncerLimits(characters: SlackMessage.Limits.text, bytes: nil)
    /// A bot's answer carries the message's `ts`: a lost answer is searched for and rollback
    /// deletes it. An incoming webhook answers `ok` only.
    package static let semantics = AnnouncerSemantics(
        answer: "bot: ok with the message's ts; webhook: ok", findsLostMessage: true, undoable: true)

    /// The step for `.slack(…)`: the announcement as blocks.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Slack? {
        guard case let .slack(channel, webhookURL) = target else { return nil }
        return Slack(message: announcement.slackMessage, webhookURL: webhookURL, channel: channel, delivery: delivery)
    }

    /// The incoming webhook's body (`SlackNotifier.send`); a bot's adds the channel and metadata.
    /// - Throws: only if Foundation cannot serialise strings, which would be a bug.
    package func messageAsSent() throws -> AnnouncerMessage {
        AnnouncerMessage(body: try message.jsonBytes(), counted: message.payload()["text"] as? String ?? "", cuts: message.cuts)
    }
}
