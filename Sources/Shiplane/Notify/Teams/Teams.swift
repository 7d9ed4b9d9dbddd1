import Foundation

/// Posts an announcement to Microsoft Teams through a Workflows webhook (`TEAMS_WEBHOOK_URL`,
/// the "When a Teams webhook request is received" trigger) as an Adaptive Card (version 1.4).
///
/// The card: the title in bold, the facts as a FactSet, the text, and an "Open" button for the
/// release URL. Teams takes a message of at most 28 KB — counted in bytes, and a Workflows trigger
/// answers 202 to a larger one before its flow fails to post it — so the text is cut visibly with
/// "…" and a warning past 20,000 characters, and further until the whole message, as sent, is
/// within 27,500 bytes (`limits`; CJK text is 3 bytes a character). Teams answers 202 with no
/// message id, so a posted card cannot be deleted: rollback reports it as staying.
package struct Teams: PlainWebhookAnnouncer {
    /// The action's name in steps and reports.
    package static let name = "teams"
    /// What is announced, through which webhook (nil: `TEAMS_WEBHOOK_URL`), and what a retry does with a lost answer.
    package var post: WebhookPost

    /// Creates the action that makes `post`.
    package init(post: WebhookPost) { self.post = post }

    // MARK: - Announcer

    /// The service's name in messages.
    package static let service = "Teams"
    /// `TEAMS_WEBHOOK_URL`.
    package static let configuration = ["TEAMS_WEBHOOK_URL"]
    /// 20,000 characters of the text shown on the card, and 28 KB of message in bytes, less a
    /// margin for what redaction may add.
    package static let limits = AnnouncerLimits(characters: 20_000, bytes: 27_500)
    /// A Workflows trigger answers 202 with no body: no id to find or delete by.
    package static let semantics = AnnouncerSemantics(answer: "202 with no body (the flow posts it later)", findsLostMessage: false, undoable: false)

    /// The webhook URL of `.teams(…)`.
    package static func webhookURL(in target: AnnouncementTarget) -> String?? {
        guard case let .teams(webhookURL) = target else { return nil }
        return .some(webhookURL)
    }

    /// The card, cut to Teams' characters and bytes.
    /// - Throws: `NotifyError.conflictingOptions` when the title and facts alone are over 28 KB.
    package func request(for announcement: Announcement) throws -> AnnouncerRequest {
        let card = Self.limits.fit(announcement.text) { Self.message(announcement, text: $0) }
        let bytes = ServiceWebhook.encodedSize(card.json)
        if let limit = Self.limits.bytes, bytes > limit {
            throw NotifyError.conflictingOptions("the Teams message is \(bytes) bytes without its text (title and facts), over Teams' 28 KB: shorten the title or the facts")
        }
        let cut = card.cutForCharacters || card.cutForBytes
        return AnnouncerRequest(json: card.json, shown: "a card: " + announcement.title,
                                cuts: cut ? ["the text was cut to fit \(Self.limits.characters ?? 0) characters and \(Self.limits.bytes ?? 0) bytes of message"] : [],
                                counted: card.text)
    }

    /// A card sent: "card to Teams https://…".
    package func intended(_ hook: ServiceWebhook) -> (effect: MessageSent, description: String, destination: String) {
        let destination = "Teams \(hook.shown)"
        return (MessageSent(destination: destination), "card to \(destination)", destination)
    }

    /// The message Teams receives, with `text` on the card: one Adaptive Card attachment.
    private static func message(_ announcement: Announcement, text: String) -> [String: Any] {
        var body: [[String: Any]] = [["type": "TextBlock", "text": announcement.title, "weight": "Bolder", "size": "Medium", "wrap": true]]
        let facts = announcement.allFacts
        if !facts.isEmpty { body.append(["type": "FactSet", "facts": facts.map { ["title": $0.key, "value": $0.value] }]) }
        if !text.isEmpty { body.append(["type": "TextBlock", "text": text, "wrap": true]) }
        var card: [String: Any] = ["$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard", "version": "1.4", "body": body]
        if let url = announcement.url { card["actions"] = [["type": "Action.OpenUrl", "title": "Open the release", "url": url]] }
        return ["type": "message", "attachments": [["contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": NSNull(), "content": card]]]
    }

    /// A Workflows error body (`{"error": {"code", "message"}}`) as one line.
    package static func errorMessage(_ response: HTTPResponse) -> String { response.serviceError(in: "error", detail: "code") }
}

extension LaneContext {
    /// Posts `announcement` to Teams as an Adaptive Card (`TEAMS_WEBHOOK_URL`, or `webhookURL`).
    public func teams(_ announcement: Announcement, webhookURL: String? = nil, delivery: Delivery = .atMostOnce, file: String = #fileID, line: Int = #line) async throws {
        try await run(Teams(announcement, webhookURL: webhookURL, delivery: delivery), file: file, line: line)
    }
}

extension Teams: DocumentedAction {
    /// How `lane.teams` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post an announcement to Microsoft Teams through a Workflows webhook (TEAMS_WEBHOOK_URL) as an Adaptive Card 1.4: title, facts, text (cut with … past 20,000 characters or 28 KB of message in bytes), a button to the release, redacted",
        signature: "try await lane.teams(_ announcement: Announcement, webhookURL: String? = nil, delivery: Delivery = .atMostOnce)",
        parameters: Teams.webhookParameters(webhook: "the Workflows webhook", message: "card"),
        example: #"try await lane.teams(Announcement(title: "Released \(version)", text: notes, url: releaseURL))"#,
        dryRun: "says what it would post",
        rollback: "written down before it goes; Teams gives no id to delete by, so rollback reports it as staying"
    )
}
