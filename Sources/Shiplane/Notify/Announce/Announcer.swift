import Foundation

/// A service's limits on one message, in characters and in bytes: a message is cut to fit both.
package struct AnnouncerLimits: Sendable, Equatable {
    /// Unicode scalars of the message's main text (how the services count); nil: none documented.
    package var characters: Int?
    /// Bytes of the whole request body as sent (UTF-8 with its escapes); nil: none documented.
    package var bytes: Int?
    /// Bytes of one line of the body as sent, without its line break (SMTP's 998); nil: none.
    package var lineBytes: Int?

    /// Limits of `characters` and `bytes` (and `lineBytes` per line).
    package init(characters: Int?, bytes: Int?, lineBytes: Int? = nil) {
        self.characters = characters
        self.bytes = bytes
        self.lineBytes = lineBytes
    }
}

/// What a service's answer to one message means, and so what a retry and a rollback can do.
package struct AnnouncerSemantics: Sendable, Equatable {
    /// What a successful answer says ("200 with the message and its id", "202, no body").
    package var answer: String
    /// A retry can look for a message whose answer was lost (otherwise `Delivery` decides).
    package var findsLostMessage: Bool
    /// Rollback can take a sent message back.
    package var undoable: Bool

    /// Semantics with `answer`, whether a lost answer can be searched for and whether undo exists.
    package init(answer: String, findsLostMessage: Bool, undoable: Bool) {
        self.answer = answer
        self.findsLostMessage = findsLostMessage
        self.undoable = undoable
    }
}

/// One message as a service receives it: what the contract tests measure against the limits.
package struct AnnouncerMessage: Sendable {
    /// The request body (or the mail) as sent, byte for byte.
    package var body: [UInt8]
    /// The part of it that `AnnouncerLimits.characters` counts (the text, Discord's content).
    package var counted: String
    /// What had to be cut to fit, one line each.
    package var cuts: [String]

    /// A message of `body`, with `counted` its limited text and `cuts` what was cut.
    package init(body: [UInt8], counted: String, cuts: [String]) {
        self.body = body
        self.counted = counted
        self.cuts = cuts
    }
}

/// One service that takes an announcement as one message (Slack, Discord, Teams, Mattermost,
/// Google Chat, email): its configuration, limits and delivery semantics, and the step that
/// sends it. Each service is one folder that implements it, listed once in `Announcers.all`;
/// `lane.announce` and the catalog name none of them.
package protocol Announcer: AsyncAction, DocumentedAction where Output == Void {
    /// The service's name in messages ("Discord", "Google Chat").
    static var service: String { get }
    /// The environment variables that configure the service, the one that selects it first.
    static var configuration: [String] { get }
    /// The service's limits on one message.
    static var limits: AnnouncerLimits { get }
    /// What the service's answer means, whether a lost answer can be found, whether undo exists.
    static var semantics: AnnouncerSemantics { get }
    /// The step that announces `announcement` to `target`, when `target` names this service.
    static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Self?
    /// The message this step sends, as the service receives it (before redaction, which only
    /// replaces secrets): `AnnouncerContractTests` hold every announcer's to its `limits`.
    /// - Throws: what the step throws for a message it cannot send (options the service refuses).
    func messageAsSent() throws -> AnnouncerMessage
}

extension Announcer {
    /// Whether `environment` configures the service: any of its variables is set and not blank.
    package static func isConfigured(in environment: LaneEnvironment) -> Bool {
        configuration.contains { !(environment[$0] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// "Discord's", "Teams'": for messages about the service's limits.
    static var possessive: String { service.hasSuffix("s") ? service + "'" : service + "'s" }
}

/// Every announcer, listed once: `lane.announce` finds a target's service here, and the action
/// catalog lists them from here. A new service is one folder and one line in this list.
package enum Announcers {
    /// The announcers, in the order the catalog shows them.
    package static var all: [any Announcer.Type] { [
        Slack.self, Email.self, Discord.self, Teams.self, Mattermost.self,
        GoogleChat.self,
    ] }
}

extension LaneContext {
    /// Runs the step of the announcer that `target` names.
    /// - Throws: `NotifyError.conflictingOptions` when no announcer takes `target` (a bug), or the step's failure.
    func announce(_ announcement: Announcement, to target: AnnouncementTarget, delivery: Delivery, file: String, line: Int) async throws {
        for announcer in Announcers.all {
            if let action = announcer.action(for: target, announcement: announcement, delivery: delivery) {
                try await run(action, file: file, line: line)
                return
            }
        }
        throw NotifyError.conflictingOptions("no announcer takes the target \(target): this is a bug in Shiplane, please report it")
    }
}
