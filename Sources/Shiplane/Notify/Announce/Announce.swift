import Foundation

/// Where an announcement goes: one service, with that service's own options. Secrets (webhook
/// URLs, tokens, passwords) come from the environment unless given.
public enum AnnouncementTarget: Sendable {
    /// Slack: with the bot token `SLACK_BOT_TOKEN` to `channel` (an id) when given, else the incoming webhook.
    case slack(channel: String? = nil, webhookURL: String? = nil)
    /// A generic JSON webhook: `template`'s placeholders are `title`, `text`, `version`, `url`,
    /// `summary` (all of it as plain text) and each fact by its key.
    case webhook(url: String, template: String)
    /// Discord (`DISCORD_WEBHOOK_URL`).
    case discord(webhookURL: String? = nil, username: String? = nil)
    /// Microsoft Teams through a Workflows webhook (`TEAMS_WEBHOOK_URL`).
    case teams(webhookURL: String? = nil)
    /// Mattermost (`MATTERMOST_WEBHOOK_URL`).
    case mattermost(webhookURL: String? = nil, channel: String? = nil, username: String? = nil, iconURL: String? = nil)
    /// Email over SMTP (`SMTP_HOST` and the other `SMTP_` variables).
    case email(to: [String], cc: [String] = [], from: String? = nil)
    /// Google Chat through a space's incoming webhook (`GOOGLE_CHAT_WEBHOOK_URL`).
    case googleChat(webhookURL: String? = nil)
}

extension LaneContext {
    /// Announces `announcement` to each target in turn, each as its own step (its own record, its
    /// own rollback, sent once): the same announcement in every service's shape and limits.
    ///
    /// An `onError` hook announces a failure the same way: `Announcement(context.failureNotification(failure))`.
    /// - Throws: the first target's failure (the targets before it have announced).
    public func announce(
        _ announcement: Announcement, to targets: [AnnouncementTarget], delivery: Delivery = .atMostOnce,
        file: String = #fileID, line: Int = #line
    ) async throws {
        for target in targets {
            if case let .webhook(url, template) = target {
                var values = ["title": announcement.title, "text": announcement.text, "version": announcement.version ?? "",
                              "url": announcement.url ?? "", "summary": announcement.plainText]
                for fact in announcement.facts { values[fact.key] = fact.value }
                try await run(Webhook(url: url, template: template, values: values, delivery: delivery), file: file, line: line)
            } else {
                try await announce(announcement, to: target, delivery: delivery, file: file, line: line)
            }
        }
    }

    /// An HTML link to an http(s) URL, escaped; nil for anything else.
    static func htmlLink(_ url: String) -> String? {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { return nil }
        let escaped = url.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        return "<a href=\"\(escaped)\">View the release</a>"
    }
}
