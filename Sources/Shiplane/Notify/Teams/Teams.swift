import Foundation

/// Posts an announcement to Microsoft Teams through a Workflows webhook (`TEAMS_WEBHOOK_URL`,
/// the "When a Teams webhook request is received" trigger) as an Adaptive Card (version 1.4).
///
/// The card: the title in bold, the facts as a FactSet, the text, and an "Open" button for the
/// release URL. Teams takes a message of at most 28 KB — counted in bytes, and a Workflows trigger
/// answers 202 to a larger one before its flow fails to post it — so the text is cut visibly with
/// "…" and a warning past 20,000 characters, and further until the whole message, as sent, is
/// within `messageByteLimit` bytes (CJK text is 3 bytes a character). Teams answers 202 with no message id, so a posted card cannot
/// be deleted: rollback reports it as staying.
package struct Teams: WebhookAnnouncer {
    /// The action's name in steps and reports.
    package static let name = "teams"
    /// What is announced.
    package var announcement: Announcement
    /// The Workflows webhook URL; nil: `TEAMS_WEBHOOK_URL`.
    package var webhookURL: String?
    /// What a retry does with a card whose answer was lost.
    package var delivery: Delivery

    /// Characters of the text shown on the card (Teams refuses messages over about 28 KB).
    package static let textLimit = 20_000
    /// Bytes of the whole message as sent: Teams' 28 KB, less a margin for what redaction may add.
    package static let messageByteLimit = 27_500

    /// Creates the action that posts `announcement`.
    package init(_ announcement: Announcement, webhookURL: String? = nil, delivery: Delivery = .atMostOnce) {
        self.announcement = announcement
        self.webhookURL = webhookURL
        self.delivery = delivery
    }

    // MARK: - Announcer

    /// The service's name in messages.
    package static let service = "Teams"
    /// `TEAMS_WEBHOOK_URL`.
    package static let configuration = ["TEAMS_WEBHOOK_URL"]
    /// 20,000 characters of text, and 28 KB of message in bytes (less a margin).
    package static let limits = AnnouncerLimits(characters: textLimit, bytes: messageByteLimit)
    /// A Workflows trigger answers 202 with no body: no id to find or delete by.
    package static let semantics = AnnouncerSemantics(answer: "202 with no body (the flow posts it later)", findsLostMessage: false, undoable: false)

    /// The step for `.teams(…)`.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Teams? {
        guard case let .teams(webhookURL) = target else { return nil }
        return Teams(announcement, webhookURL: webhookURL, delivery: delivery)
    }

    /// The card, cut to Teams' characters and bytes.
    /// - Throws: `NotifyError.conflictingOptions` when the title and facts alone are over 28 KB.
    package func request(for announcement: Announcement) throws -> AnnouncerRequest {
        let (json, cut, bytes, text) = Self.payload(announcement)
        if bytes > Self.messageByteLimit {
            throw NotifyError.conflictingOptions("the Teams message is \(bytes) bytes without its text (title and facts), over Teams' 28 KB: shorten the title or the facts")
        }
        return AnnouncerRequest(json: json, shown: "a card: " + announcement.title,
                                cuts: cut ? ["the text was cut to fit \(Self.textLimit) characters and \(Self.messageByteLimit) bytes of message"] : [],
                                counted: text)
    }

    /// A card sent: "card to Teams https://…".
    package func intended(_ hook: ServiceWebhook) -> (effect: MessageSent, description: String, destination: String) {
        let destination = "Teams \(hook.shown)"
        return (MessageSent(destination: destination), "card to \(destination)", destination)
    }

    /// The message Teams receives: one Adaptive Card attachment; and whether the text was cut,
    /// its size in bytes as sent, and the text on the card.
    static func payload(_ announcement: Announcement) -> (json: [String: Any], cut: Bool, bytes: Int, text: String) {
        let (short, cutForCharacters) = Announcement.truncate(announcement.text, to: textLimit)
        let (text, cutForBytes) = Announcement.fit(short, toBytes: messageByteLimit) { ServiceWebhook.encodedSize(message(announcement, text: $0)) }
        let json = message(announcement, text: text)
        return (json, cutForCharacters || cutForBytes, ServiceWebhook.encodedSize(json), text)
    }

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
    package static func errorMessage(_ response: HTTPResponse) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
              let error = object["error"] as? [String: Any] else { return response.bodySnippet() }
        return "\(error["message"] as? String ?? "error") (\(error["code"] as? String ?? "no code"))"
    }
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
        parameters: [
            .init(name: "announcement", type: "Announcement", defaultValue: nil, help: "title, text, version, url, facts"),
            .init(name: "webhookURL", type: "String?", defaultValue: "TEAMS_WEBHOOK_URL", help: "the Workflows webhook (a secret: redacted everywhere)"),
            .init(name: "delivery", type: "Delivery", defaultValue: ".atMostOnce", help: "a card whose answer was lost is not sent again by the retry (.atLeastOnce: it is)")
        ],
        example: #"try await lane.teams(Announcement(title: "Released \(version)", text: notes, url: releaseURL))"#,
        dryRun: "says what it would post",
        rollback: "written down before it goes; Teams gives no id to delete by, so rollback reports it as staying"
    )
}
