import Foundation

/// Posts an announcement to Mattermost through an incoming webhook (`MATTERMOST_WEBHOOK_URL`):
/// Markdown `text` (a heading, the facts, the text, a link), with optional `channel`, `username`
/// and `icon_url` (the webhook must allow overriding them).
///
/// Mattermost takes at most 16,383 characters of text: longer text is cut visibly with "…" and a
/// warning. An incoming webhook answers `ok` with no post id, so a post cannot be deleted:
/// rollback reports it as staying.
package struct Mattermost: WebhookAnnouncer {
    /// The action's name in steps and reports.
    package static let name = "mattermost"
    /// What is announced, through which incoming webhook (nil: `MATTERMOST_WEBHOOK_URL`), and what
    /// a retry does with a post whose answer was lost.
    package var post: WebhookPost
    /// The channel's name (`town-square`) to post to instead of the webhook's.
    package var channel: String?
    /// The name to post under.
    package var username: String?
    /// The picture to post with.
    package var iconURL: String?

    /// Creates the action that posts `announcement`.
    package init(_ announcement: Announcement, webhookURL: String? = nil, channel: String? = nil, username: String? = nil,
                iconURL: String? = nil, delivery: Delivery = .atMostOnce) {
        post = WebhookPost(announcement, webhookURL: webhookURL, delivery: delivery)
        self.channel = channel
        self.username = username
        self.iconURL = iconURL
    }

    /// The title and the channel (the webhook URL is a secret and not shown).
    package var options: [StepOption] {
        var shown = [StepOption("title", announcement.title)]
        if let channel { shown.append(StepOption("channel", channel)) }
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    // MARK: - Announcer

    /// The service's name in messages.
    package static let service = "Mattermost"
    /// `MATTERMOST_WEBHOOK_URL`.
    package static let configuration = ["MATTERMOST_WEBHOOK_URL"]
    /// 16,383 characters of a post's text; Mattermost documents no byte limit of its own.
    package static let limits = AnnouncerLimits(characters: 16_383, bytes: nil)
    /// An incoming webhook answers `ok` with no post id: nothing to find or delete by.
    package static let semantics = AnnouncerSemantics(answer: "200 ok, no post id", findsLostMessage: false, undoable: false)

    /// The step for `.mattermost(…)`.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Mattermost? {
        guard case let .mattermost(webhookURL, channel, username, iconURL) = target else { return nil }
        return Mattermost(announcement, webhookURL: webhookURL, channel: channel, username: username, iconURL: iconURL, delivery: delivery)
    }

    /// The Markdown post, cut to Mattermost's characters.
    /// - Throws: `NotifyError.invalidURL` for an icon URL that is not http(s).
    package func request(for announcement: Announcement) throws -> AnnouncerRequest {
        if let iconURL { try WebhookURL.validate(iconURL) }
        let post = Self.limits.fit(announcement.markdown, into: payload)
        return AnnouncerRequest(json: post.json, shown: announcement.title, cuts: post.cuts(Self.limits))
    }

    /// The JSON Mattermost receives with `text`.
    func payload(_ text: String) -> [String: Any] {
        var json: [String: Any] = ["text": text, "props": ["from_shiplane": "true"]]
        if let channel { json["channel"] = channel }
        if let username { json["username"] = username }
        if let iconURL { json["icon_url"] = iconURL }
        return json
    }

    /// Mattermost's error body (`{"id", "message", "status_code"}`) as one line.
    package static func errorMessage(_ response: HTTPResponse) -> String { response.serviceError(detail: "id") }
}

extension LaneContext {
    /// Posts `announcement` to Mattermost (`MATTERMOST_WEBHOOK_URL`, or `webhookURL`).
    public func mattermost(
        _ announcement: Announcement, webhookURL: String? = nil, channel: String? = nil, username: String? = nil, iconURL: String? = nil,
        delivery: Delivery = .atMostOnce, file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Mattermost(announcement, webhookURL: webhookURL, channel: channel, username: username, iconURL: iconURL, delivery: delivery),
                      file: file, line: line)
    }
}

extension Mattermost: DocumentedAction {
    /// How `lane.mattermost` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post an announcement to a Mattermost incoming webhook (MATTERMOST_WEBHOOK_URL) as Markdown, optionally to another channel or under another name, cut with … past 16,383 characters, redacted",
        signature: "try await lane.mattermost(_ announcement: Announcement, webhookURL: String? = nil, channel: String? = nil, username: String? = nil, iconURL: String? = nil, delivery: Delivery = .atMostOnce)",
        parameters: Mattermost.webhookParameters(webhook: "the incoming webhook", extra: [
            .init(name: "channel", type: "String?", defaultValue: "nil", help: "a channel name to post to instead of the webhook's (the webhook must not be locked to its channel)"),
            .init(name: "username", type: "String?", defaultValue: "nil", help: "the name to post under (the server must allow overriding it)"),
            .init(name: "iconURL", type: "String?", defaultValue: "nil", help: "the picture to post with (the server must allow overriding it)"),
        ], message: "post"),
        example: #"try await lane.mattermost(Announcement(title: "Released \(version)", text: notes), channel: "releases")"#,
        dryRun: "says what it would post",
        rollback: "written down before it goes; an incoming webhook gives no post id to delete by, so rollback reports it as staying"
    )
}
