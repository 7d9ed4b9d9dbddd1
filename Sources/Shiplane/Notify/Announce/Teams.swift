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
package struct Teams: AsyncAction {
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

    /// The title (the webhook URL is a secret and not shown).
    package var options: [StepOption] {
        var shown = [StepOption("title", announcement.title)]
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    /// The message Teams receives: one Adaptive Card attachment; and whether the text was cut,
    /// and its size in bytes as sent.
    static func payload(_ announcement: Announcement) -> (json: [String: Any], cut: Bool, bytes: Int) {
        var (text, cut) = Announcement.truncate(announcement.text, to: textLimit)
        var json = message(announcement, text: text)
        var bytes = ServiceWebhook.encodedSize(json)
        // Over the size: the text gives up what is too much (JSON escapes make a byte of text
        // cost up to six in the message, so this may take a few rounds), down to nothing.
        while bytes > messageByteLimit, !text.isEmpty {
            let budget = max(0, text.utf8.count - (bytes - messageByteLimit) - 8)
            text = budget <= 3 ? "" : Announcement.truncate(String(text.dropLast()), toBytes: budget).text
            cut = true
            json = message(announcement, text: text)
            bytes = ServiceWebhook.encodedSize(json)
        }
        return (json, cut, bytes)
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

    /// Posts the card; in a dry run only says what it would post.
    /// - Throws: `NotifyError` for a missing or invalid URL or Teams' refusal; `HTTPTransportError`.
    package func run(in step: StepContext) async throws {
        let hook = try ServiceWebhook(service: "Teams", given: webhookURL, variable: "TEAMS_WEBHOOK_URL",
                                      environment: step.lane.environment, transport: step.httpTransport())
        let (json, cut, bytes) = Self.payload(announcement.redacted(by: hook.transport.redactor))
        if bytes > Self.messageByteLimit {
            throw NotifyError.conflictingOptions("the Teams message is \(bytes) bytes without its text (title and facts), over Teams' 28 KB: shorten the title or the facts")
        }
        if cut { step.log("Teams' limits: the text was cut to fit \(Self.textLimit) characters and \(Self.messageByteLimit) bytes of message (marked with …)", level: .warning) }
        if step.isDryRun {
            step.note("would post a card to Teams \(hook.shown): \(announcement.redacted(by: hook.transport.redactor).title)")
            return
        }
        let destination = "Teams \(hook.shown)"
        let outcome = try await step.deliverOnce(
            MessageSent(destination: destination), "card to \(destination)", destination: destination, delivery: delivery,
            nothingHappened: { $0 is NotifyError }
        ) {
            _ = try await hook.post(json, message: Self.errorMessage)
            return MessageSent(destination: destination)
        }
        if outcome == .sent { step.note("posted") }
    }

    /// A Workflows error body (`{"error": {"code", "message"}}`) as one line.
    static func errorMessage(_ response: HTTPResponse) -> String {
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
