import Foundation

/// Posts an announcement to a Google Chat space through its incoming webhook
/// (`GOOGLE_CHAT_WEBHOOK_URL`, `https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…`):
/// `POST` with `Content-Type: application/json; charset=UTF-8` and a Message whose `text` holds
/// the title in bold, the facts, the text and a link to the release, in Chat's own formatting
/// (`*bold*`, `<url|label>`).
///
/// Limits. Google's reference for `spaces.messages.create` says "The maximum message size,
/// including text and cards, is 32,000 bytes"
/// (https://developers.google.com/chat/api/reference/rest/v1/spaces.messages/create, and the
/// "Send a message" guide, https://developers.google.com/workspace/chat/create-messages): the
/// whole message as sent is kept within 32,000 bytes. The text is also cut at 4,096 characters
/// (Unicode scalars), the limit issue 39 gives for a Chat message's text; the Google pages found
/// for this work state only the byte limit, so this cut is the stricter of the two, and CJK text
/// (three bytes a character) is cut by characters long before it reaches the bytes.
///
/// Delivery. A webhook's answer is 200 with the Message, populating only `name` and
/// `thread.name` beside what was sent (same reference page); deleting a message needs OAuth
/// credentials a webhook does not have, so rollback reports a sent message as staying.
package struct GoogleChat: PlainWebhookAnnouncer {
    /// The action's name in steps and reports.
    package static let name = "googleChat"
    /// What is announced, through which webhook (nil: `GOOGLE_CHAT_WEBHOOK_URL`), and what a retry does with a lost answer.
    package var post: WebhookPost

    /// Creates the action that makes `post`.
    package init(post: WebhookPost) { self.post = post }

    // MARK: - Announcer

    /// The service's name in messages.
    package static let service = "Google Chat"
    /// `GOOGLE_CHAT_WEBHOOK_URL`.
    package static let configuration = ["GOOGLE_CHAT_WEBHOOK_URL"]
    /// 4,096 characters (Unicode scalars) of text, and Google's documented 32,000 bytes of message as sent.
    package static let limits = AnnouncerLimits(characters: 4_096, bytes: 32_000)
    /// 200 with the Message's `name`; a webhook cannot delete it.
    package static let semantics = AnnouncerSemantics(
        answer: "200 with the Message (its name and thread name)", findsLostMessage: false, undoable: false)

    /// The webhook URL of `.googleChat(…)`.
    package static func webhookURL(in target: AnnouncementTarget) -> String?? {
        guard case let .googleChat(webhookURL) = target else { return nil }
        return .some(webhookURL)
    }

    /// The Message, cut to Chat's characters and bytes.
    package func request(for announcement: Announcement) -> AnnouncerRequest {
        let (json, cuts) = Self.payload(announcement, characters: Self.limits.characters, bytes: Self.limits.bytes)
        return AnnouncerRequest(json: json, shown: announcement.title, contentType: "application/json; charset=UTF-8", cuts: cuts)
    }

    /// The Message Chat receives: `{"text": …}` within `characters` and, as sent, `bytes`; and
    /// what had to be cut.
    static func payload(_ announcement: Announcement, characters: Int?, bytes: Int?) -> (json: [String: Any], cuts: [String]) {
        let limits = AnnouncerLimits(characters: characters, bytes: bytes)
        let message = limits.fit(text(of: announcement)) { ["text": $0] }
        return (message.json, message.cuts(limits))
    }

    /// The announcement in Chat's text formatting: the title in bold, the facts, the text, the link.
    static func text(of announcement: Announcement) -> String {
        var lines = ["*\(announcement.title)*"]
        lines += announcement.allFacts.map { "*\($0.key)*: \($0.value)" }
        if !announcement.text.isEmpty { lines += ["", announcement.text] }
        if let url = announcement.url { lines += ["", "<\(url)|View the release>"] }
        return lines.joined(separator: "\n")
    }

    /// Google's error body (`{"error": {"code", "message", "status"}}`) as one line.
    package static func errorMessage(_ response: HTTPResponse) -> String { response.serviceError(in: "error", detail: "status") }
}

extension GoogleChat: DocumentedAction {
    /// How `.googleChat` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post an announcement to a Google Chat space's incoming webhook (GOOGLE_CHAT_WEBHOOK_URL) as formatted text: title, facts, text, a link to the release, cut with … past 4,096 characters or 32,000 bytes of message, redacted",
        signature: "try await lane.announce(_ announcement: Announcement, to: [.googleChat(webhookURL: String? = nil)], delivery: Delivery = .atMostOnce)",
        parameters: GoogleChat.webhookParameters(webhook: "the space's incoming webhook, with its key and token"),
        example: #"try await lane.announce(Announcement(title: "Released \(version)", text: notes, url: releaseURL), to: [.googleChat()])"#,
        dryRun: "says what it would post",
        rollback: "written down before it goes; a webhook cannot delete a Chat message, so rollback reports it as staying"
    )
}
