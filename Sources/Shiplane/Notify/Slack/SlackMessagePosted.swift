import Foundation

/// A message posted to Slack with a bot token (`chat.postMessage`): written down before it goes
/// with the marker it carries in its metadata, and after with its `ts`. Unlike an incoming
/// webhook's message it can be found again and taken back: rollback deletes it (`chat.delete`).
package struct SlackMessagePosted: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "notify.slack-message"
    /// The Web API base URL it was posted through (`https://slack.com/api`).
    package var apiURL: String
    /// The channel as given (an id or `#name`), or the id Slack answered with once known.
    package var channel: String
    /// The message's timestamp (its id in the channel); nil until Slack answered.
    package var ts: String?
    /// What the message's metadata carries (`event_payload.marker`): the run and the step, so a
    /// retry whose answer was lost finds it in `conversations.history`.
    package var marker: String
    /// When it was sent (Unix seconds), where a look for it starts.
    package var sentAt: Double

    /// Describes a message about to be posted.
    package init(apiURL: String, channel: String, ts: String? = nil, marker: String, sentAt: Double) {
        self.apiURL = apiURL
        self.channel = channel
        self.ts = ts
        self.marker = marker
        self.sentAt = sentAt
    }

    /// A service object: deleted through the API by a rollback.
    package var reach: EffectReach { .service }

    /// How far before `sentAt` a look for the message starts (clocks of the runner and Slack differ).
    static let clockSlack = 300.0

    /// Deletes the message with `SLACK_BOT_TOKEN`; one whose answer was lost is looked for by its
    /// marker first, and one that never arrived is left alone.
    /// - Throws: `NotifyError` when there is no token or Slack refuses (`cant_delete_message`), `HTTPTransportError`.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try SlackBotClient(token: context.environment["SLACK_BOT_TOKEN"], apiURL: apiURL, transport: context.transport())
        var posted = ts.map { SlackBotClient.Posted(channel: channel, ts: $0) }
        if posted == nil { posted = try await client.find(marker: marker, channel: channel, oldest: sentAt - Self.clockSlack) }
        guard let posted else { return }
        try await client.delete(posted)
    }
}
