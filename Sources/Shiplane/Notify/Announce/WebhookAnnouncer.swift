import Foundation

/// One message as a service's webhook receives it: the body, and what was cut to fit.
package struct AnnouncerRequest {
    /// The JSON body.
    package var json: [String: Any]
    /// The query appended to the webhook URL ("wait=true"), or empty.
    package var query: String = ""
    /// The body's content type as the service documents it.
    package var contentType: String = "application/json"
    /// What had to be cut to fit the service's limits, one line each ("the text was cut to …").
    package var cuts: [String] = []
    /// What a dry run says it would post (the title, or the content as sent).
    package var shown: String
    /// The text the service's character limit counts; nil: the body's `text`.
    package var counted: String?

    /// A request with `json`, saying `shown` in a dry run.
    package init(json: [String: Any], shown: String, query: String = "", contentType: String = "application/json", cuts: [String] = [],
                 counted: String? = nil) {
        self.json = json
        self.shown = shown
        self.counted = counted
        self.query = query
        self.contentType = contentType
        self.cuts = cuts
    }
}

/// An announcer that posts one JSON message to an incoming webhook (Discord, Teams, Mattermost,
/// Google Chat): the URL is a secret from the service's variable, the message is built by the
/// service within its limits, and `run(in:)` — shared — does the rest: redaction, the warnings
/// for what was cut, the byte limit as sent, the dry run, sending once, the service's refusal.
package protocol WebhookAnnouncer: Announcer {
    /// The effect written down before the message goes (`MessageSent` unless the service can undo).
    associatedtype Posted: Effect = MessageSent
    /// What is announced, through which webhook, and what a retry does with a lost answer.
    var post: WebhookPost { get }
    /// The request for `announcement` (already redacted), within the service's limits.
    /// - Throws: `NotifyError` for options the service would refuse, or a message that cannot fit.
    func request(for announcement: Announcement) throws -> AnnouncerRequest
    /// The service's error body as one line.
    static func errorMessage(_ response: HTTPResponse) -> String
    /// The effect written down before sending, its description and the destination as people read it.
    func intended(_ hook: ServiceWebhook) -> (effect: Posted, description: String, destination: String)
    /// The effect once the service answered `response` (an id, when it gives one).
    func posted(_ intended: Posted, answer response: HTTPResponse) -> Posted
}

/// What every webhook announcer is given, whatever the service.
package struct WebhookPost: Sendable {
    /// What is announced.
    package var announcement: Announcement
    /// The webhook URL; nil: the service's variable (`configuration.first`).
    package var webhookURL: String?
    /// What a retry does with a message whose answer was lost.
    package var delivery: Delivery

    /// A post of `announcement` through `webhookURL` (nil: the service's variable).
    package init(_ announcement: Announcement, webhookURL: String?, delivery: Delivery) {
        self.announcement = announcement
        self.webhookURL = webhookURL
        self.delivery = delivery
    }
}

/// A webhook announcer that takes nothing but the post (Teams, Google Chat): its initialiser and
/// the step for its target come from the contract.
package protocol PlainWebhookAnnouncer: WebhookAnnouncer {
    /// The step that makes `post`.
    init(post: WebhookPost)
    /// The webhook URL `target` gives (`.some(nil)`: the service's variable), when `target` names this service.
    static func webhookURL(in target: AnnouncementTarget) -> String??
}

extension PlainWebhookAnnouncer {
    /// Creates the action that posts `announcement`.
    package init(_ announcement: Announcement, webhookURL: String? = nil, delivery: Delivery = .atMostOnce) {
        self.init(post: WebhookPost(announcement, webhookURL: webhookURL, delivery: delivery))
    }

    /// The step for the service's target.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Self? {
        guard case let .some(webhookURL) = webhookURL(in: target) else { return nil }
        return Self(announcement, webhookURL: webhookURL, delivery: delivery)
    }
}

extension WebhookAnnouncer where Posted == MessageSent {
    /// A message sent: "post to Mattermost https://…".
    package func intended(_ hook: ServiceWebhook) -> (effect: MessageSent, description: String, destination: String) {
        let destination = "\(Self.service) \(hook.shown)"
        return (MessageSent(destination: destination), "post to \(destination)", destination)
    }

    /// The answer adds nothing to what was written down.
    package func posted(_ intended: MessageSent, answer response: HTTPResponse) -> MessageSent { intended }
}

extension WebhookAnnouncer {
    /// What is announced.
    package var announcement: Announcement { post.announcement }
    /// The webhook URL; nil: the service's variable.
    package var webhookURL: String? { post.webhookURL }
    /// What a retry does with a message whose answer was lost.
    package var delivery: Delivery { post.delivery }

    /// The body `run(in:)` posts, as `ServiceWebhook.post` encodes it.
    /// - Throws: what `request(for:)` throws.
    package func messageAsSent() throws -> AnnouncerMessage {
        let request = try self.request(for: announcement)
        return AnnouncerMessage(body: try ServiceWebhook.body(request.json), counted: request.counted ?? request.json["text"] as? String ?? "",
                                cuts: request.cuts)
    }

    /// The title and the delivery rule (the webhook URL is a secret and not shown).
    package var options: [StepOption] {
        var shown = [StepOption("title", announcement.title)]
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    /// Posts the message once; in a dry run only says what it would post.
    /// - Throws: `NotifyError` for a missing or invalid URL, a message over the service's limits or
    ///   the service's refusal; `HTTPTransportError` when it cannot be delivered.
    package func run(in step: StepContext) async throws {
        let variable = Self.configuration.first ?? ""
        let hook = try ServiceWebhook(service: Self.service, given: webhookURL, variable: variable,
                                      environment: step.lane.environment, transport: step.httpTransport())
        let request = try self.request(for: announcement.redacted(by: hook.transport.redactor))
        if let limit = Self.limits.bytes, case let size = ServiceWebhook.encodedSize(request.json), size > limit {
            throw NotifyError.conflictingOptions(
                "the \(Self.service) message is \(size) bytes after cutting its text, over \(Self.possessive) \(limit): shorten the title or the facts")
        }
        for cut in request.cuts { step.log("\(Self.possessive) limits: \(cut) (marked with …)", level: .warning) }
        if step.isDryRun {
            step.note("would post to \(Self.service) \(hook.shown): \(request.shown)")
            return
        }
        let (intended, description, destination) = self.intended(hook)
        let outcome = try await step.deliverOnce(
            intended, description, destination: destination, delivery: delivery, nothingHappened: { $0 is NotifyError }
        ) {
            let response = try await hook.post(request.json, query: request.query, contentType: request.contentType, message: Self.errorMessage)
            return posted(intended, answer: response)
        }
        if outcome == .sent { step.note("posted") }
    }
}

// MARK: - What webhook announcers share

/// A message's text cut to a service's limits: the body with the text in it, and what was cut.
package struct FittedMessage {
    /// The body as sent, with the fitted text in it.
    package var json: [String: Any]
    /// The text as it stands in the body (ending with "…" when cut).
    package var text: String
    /// The text was cut to the limit in characters.
    package var cutForCharacters: Bool
    /// The text was cut (further) so that the whole body, as sent, is within the limit in bytes.
    package var cutForBytes: Bool

    /// What was cut, one line for the run's warning: the byte cut when there was one (it is the
    /// later and the stricter), else the character cut.
    func cuts(_ limits: AnnouncerLimits) -> [String] {
        if cutForBytes, let bytes = limits.bytes { return ["the text was cut to fit \(bytes) bytes of message"] }
        if cutForCharacters, let characters = limits.characters { return ["the text was cut to \(characters) characters"] }
        return []
    }
}

extension AnnouncerLimits {
    /// Cuts `text` to `characters` (Unicode scalars), then further, whole characters, until the body
    /// `message` builds around it is within `bytes` as `ServiceWebhook.post` sends it (escapes
    /// included): one rule for every service whose limits are in characters, in bytes, or both.
    package func fit(_ text: String, into message: (String) -> [String: Any]) -> FittedMessage {
        let (short, cutForCharacters) = characters.map { Announcement.truncate(text, to: $0) } ?? (text, false)
        let (fitted, cutForBytes) = bytes.map { limit in
            Announcement.fit(short, toBytes: limit) { ServiceWebhook.encodedSize(message($0)) }
        } ?? (short, false)
        return FittedMessage(json: message(fitted), text: fitted, cutForCharacters: cutForCharacters, cutForBytes: cutForBytes)
    }
}

extension HTTPResponse {
    /// A service's JSON error body as one line, "message (detail)": both read from the body's
    /// object, or from its `envelope` member (`{"error": {…}}`, Google's and Microsoft's shape);
    /// the body's start when it is not such JSON.
    func serviceError(in envelope: String? = nil, detail: String) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return bodySnippet() }
        if let envelope {
            guard let inner = object[envelope] as? [String: Any] else { return bodySnippet() }
            object = inner
        }
        return "\(object["message"] as? String ?? "error") (\(object[detail] as? String ?? "no \(detail)"))"
    }
}

extension WebhookAnnouncer {
    /// The catalog's parameters of a webhook announcer: the announcement, the webhook URL (`webhook`
    /// says what it is; its default is the service's variable), `extra` options, and the delivery
    /// rule for a lost `message` ("card", "post").
    static func webhookParameters(webhook: String, secret: String = "a secret: redacted everywhere",
                                  extra: [ActionDocumentation.Parameter] = [], message: String = "message") -> [ActionDocumentation.Parameter] {
        [.init(name: "announcement", type: "Announcement", defaultValue: nil, help: "title, text, version, url, facts"),
         .init(name: "webhookURL", type: "String?", defaultValue: configuration.first, help: "\(webhook) (\(secret))")]
            + extra
            + [.init(name: "delivery", type: "Delivery", defaultValue: ".atMostOnce",
                     help: "a \(message) whose answer was lost is not sent again by the retry (.atLeastOnce: it is)")]
    }
}
