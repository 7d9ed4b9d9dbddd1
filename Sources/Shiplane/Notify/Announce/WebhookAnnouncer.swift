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
    /// What is announced.
    var announcement: Announcement { get }
    /// The webhook URL; nil: the service's variable (`configuration.first`).
    var webhookURL: String? { get }
    /// What a retry does with a message whose answer was lost.
    var delivery: Delivery { get }
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
