import Foundation

/// Posts an announcement to Discord through a webhook (`DISCORD_WEBHOOK_URL`) with `?wait=true`,
/// so Discord answers with the message and its id is recorded: rollback deletes it.
///
/// The title is the message's content; the text, version, URL and facts an embed. Discord's
/// limits (content 2,000 characters; an embed's title 256, description 4,096, 25 fields of 256 and
/// 1,024; all embeds 6,000) are kept by cutting visibly with "…" and a warning, never by a refusal.
/// Mentions in the text do not ping anyone (`allowed_mentions` is empty).
package struct Discord: WebhookAnnouncer {
    /// The action's name in steps and reports.
    package static let name = "discord"
    /// What is announced, through which webhook (nil: `DISCORD_WEBHOOK_URL`), and what a retry does
    /// with a message whose answer was lost (Discord cannot be searched by a webhook).
    package var post: WebhookPost
    /// The name the message is posted under; nil: the webhook's own.
    package var username: String?

    /// Discord's documented limits.
    package enum Limits {
        /// Characters of `content`.
        package static let content = 2_000
        /// Characters of an embed's title.
        package static let embedTitle = 256
        /// Characters of an embed's description.
        package static let embedDescription = 4_096
        /// Fields in an embed.
        package static let fields = 25
        /// Characters of a field's name.
        package static let fieldName = 256
        /// Characters of a field's value.
        package static let fieldValue = 1_024
        /// Characters of every embed's title, description, field names and values, footer and author together.
        package static let embedsTotal = 6_000
        /// Characters of `username`.
        package static let username = 80
    }

    /// Creates the action that posts `announcement`.
    package init(_ announcement: Announcement, webhookURL: String? = nil, username: String? = nil, delivery: Delivery = .atMostOnce) {
        post = WebhookPost(announcement, webhookURL: webhookURL, delivery: delivery)
        self.username = username
    }

    // MARK: - Announcer

    /// The service's name in messages.
    package static let service = "Discord"
    /// `DISCORD_WEBHOOK_URL`.
    package static let configuration = ["DISCORD_WEBHOOK_URL"]
    /// The content's 2,000 characters (the embed's own limits are kept by `payload`); Discord
    /// documents no byte limit for a message without files.
    package static let limits = AnnouncerLimits(characters: Limits.content, bytes: nil)
    /// `?wait=true`: Discord answers with the message and its id, which rollback deletes by.
    package static let semantics = AnnouncerSemantics(answer: "200 with the message and its id (?wait=true)", findsLostMessage: false, undoable: true)

    /// The step for `.discord(…)`.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Discord? {
        guard case let .discord(webhookURL, username) = target else { return nil }
        return Discord(announcement, webhookURL: webhookURL, username: username, delivery: delivery)
    }

    /// The message with `?wait=true`, and what Discord's limits cut.
    package func request(for announcement: Announcement) -> AnnouncerRequest {
        let (json, cuts) = Self.payload(announcement, username: username)
        let content = json["content"] as? String ?? ""
        return AnnouncerRequest(json: json, shown: content, query: "wait=true", cuts: cuts, counted: content)
    }

    /// Written down by the URL's digest, so that rollback finds the webhook again.
    package func intended(_ hook: ServiceWebhook) -> (effect: DiscordMessagePosted, description: String, destination: String) {
        (DiscordMessagePosted(webhookDigest: hook.digest, shownURL: hook.shown), "delete the Discord message", "Discord")
    }

    /// The message id from Discord's answer.
    package func posted(_ intended: DiscordMessagePosted, answer response: HTTPResponse) -> DiscordMessagePosted {
        var posted = intended
        posted.messageID = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["id"] as? String
        return posted
    }

    /// The JSON Discord receives, and what had to be cut to fit.
    static func payload(_ announcement: Announcement, username: String?) -> (json: [String: Any], cuts: [String]) {
        var cuts: [String] = []
        func fit(_ text: String, _ limit: Int, _ what: String) -> String {
            let (fitted, cut) = Announcement.truncate(text, to: limit)
            if cut { cuts.append("\(what) cut to \(limit) characters") }
            return fitted
        }
        var json: [String: Any] = ["content": fit(announcement.title, Limits.content, "the content"), "allowed_mentions": ["parse": [String]()]]
        if let username { json["username"] = fit(username, Limits.username, "the username") }
        var embed: [String: Any] = [:]
        var used = 0
        let title = fit(announcement.version.map { "Version \($0)" } ?? announcement.title, Limits.embedTitle, "the embed title")
        embed["title"] = title
        used += title.unicodeScalars.count
        if let url = announcement.url { embed["url"] = url }
        var fields: [[String: Any]] = []
        let facts = announcement.facts
        if facts.count > Limits.fields { cuts.append("\(facts.count - Limits.fields) facts left out (Discord shows \(Limits.fields))") }
        for fact in facts.prefix(Limits.fields) {
            let name = fit(fact.key, Limits.fieldName, "a field name")
            let value = fit(fact.value.isEmpty ? "-" : fact.value, Limits.fieldValue, "a field value")
            guard used + name.unicodeScalars.count + value.unicodeScalars.count <= Limits.embedsTotal - 200 else {
                cuts.append("facts left out to stay within \(Limits.embedsTotal) characters")
                break
            }
            used += name.unicodeScalars.count + value.unicodeScalars.count
            fields.append(["name": name, "value": value, "inline": value.count <= 40])
        }
        if !fields.isEmpty { embed["fields"] = fields }
        if !announcement.text.isEmpty {
            let room = min(Limits.embedDescription, Limits.embedsTotal - used)
            embed["description"] = fit(announcement.text, room, "the description")
        }
        json["embeds"] = [embed]
        return (json, cuts)
    }

    /// Discord's error body (`{"message": …, "code": …}`) as one line.
    package static func errorMessage(_ response: HTTPResponse) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return response.bodySnippet() }
        let message = object["message"] as? String ?? "error"
        let code = (object["code"] as? Int).map { " (code \($0))" } ?? ""
        return message + code
    }
}

/// A message posted to a Discord webhook: deleted by rollback through the same webhook.
package struct DiscordMessagePosted: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "notify.discord-message"
    /// The webhook URL's SHA-256 (the URL is a secret: an undo finds it again in the environment).
    package var webhookDigest: String
    /// The webhook URL as people may see it (secret parts hidden).
    package var shownURL: String
    /// The message's id; nil until Discord answered.
    package var messageID: String?

    /// Describes a message about to be posted.
    package init(webhookDigest: String, shownURL: String, messageID: String? = nil) {
        self.webhookDigest = webhookDigest
        self.shownURL = shownURL
        self.messageID = messageID
    }

    /// A service object: deleted through the API by a rollback.
    package var reach: EffectReach { .service }

    /// Deletes the message (`DELETE /webhooks/{id}/{token}/messages/{message_id}`); one already gone counts as deleted.
    /// - Throws: `EffectStays` when the id never came back (the answer was lost) or the URL is no
    ///   longer in the environment; `NotifyError`, `HTTPTransportError` when Discord refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        guard let messageID else {
            throw EffectStays("a Discord message to \(shownURL) may have been sent (the answer was lost, so its id is unknown): delete it by hand if it is there")
        }
        guard let url = ServiceWebhook.url(withDigest: webhookDigest, in: context.environment),
              var components = URLComponents(string: url) else {
            throw EffectStays("the Discord message \(messageID) stays: its webhook URL is not in this environment (set DISCORD_WEBHOOK_URL to delete it)")
        }
        components.query = nil
        components.path += "/messages/\(messageID)"
        guard let target = components.string else { throw EffectStays("the Discord message \(messageID) stays: its webhook URL cannot be read") }
        let transport = context.transport(secrets: [url])
        let response = try await transport.send(HTTPRequest(method: .delete, url: target))
        // 10008 is Discord's "Unknown Message": already deleted. "Unknown Webhook" (10015) is not.
        if response.isSuccess || (response.status == 404 && response.text.contains("10008")) { return }
        throw NotifyError.serviceRejected(service: "Discord", status: response.status, message: transport.redactor.redact(Discord.errorMessage(response)))
    }
}

extension LaneContext {
    /// Posts `announcement` to Discord (`DISCORD_WEBHOOK_URL`, or `webhookURL`).
    public func discord(
        _ announcement: Announcement, webhookURL: String? = nil, username: String? = nil, delivery: Delivery = .atMostOnce,
        file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Discord(announcement, webhookURL: webhookURL, username: username, delivery: delivery), file: file, line: line)
    }
}

extension Discord: DocumentedAction {
    /// How `lane.discord` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Post an announcement to a Discord webhook (DISCORD_WEBHOOK_URL) with ?wait=true: the title as content, an embed with the version, text, facts and release URL, within Discord's limits (cut with …), no pings, redacted",
        signature: "try await lane.discord(_ announcement: Announcement, webhookURL: String? = nil, username: String? = nil, delivery: Delivery = .atMostOnce)",
        parameters: Discord.webhookParameters(webhook: "the webhook", secret: "a secret: redacted everywhere, kept in the record only as a digest", extra: [
            .init(name: "username", type: "String?", defaultValue: "nil", help: "the name to post under (at most 80 characters)"),
        ]),
        example: #"try await lane.discord(Announcement(title: "Released \(version)", text: notes, version: "\(version)", url: releaseURL))"#,
        dryRun: "says what it would post (and what Discord's limits cut)",
        rollback: "deletes the message through the webhook (DELETE …/messages/{id}); one whose answer was lost has no id and is reported as staying"
    )
}
