import Foundation

/// An email handed to an SMTP server: written down before it goes; it cannot be taken back.
package struct EmailSent: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "notify.email"
    /// The server (`host:port`).
    package var server: String
    /// How many recipients it was addressed to.
    package var recipients: Int
    /// The subject, as people read it (redacted).
    package var subject: String
    /// The server's answer once it took the message (its queue id, often).
    package var reply: String?

    /// Describes an email about to be sent.
    package init(server: String, recipients: Int, subject: String, reply: String? = nil) {
        self.server = server
        self.recipients = recipients
        self.subject = subject
        self.reply = reply
    }

    /// Sent is sent.
    package var reach: EffectReach { .permanent }

    /// An email cannot be taken back.
    /// - Throws: `EffectStays`, always.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .done { throw EffectStays("the email \"\(subject)\" was sent through \(server): it cannot be taken back") }
        throw EffectStays("the email \"\(subject)\" may have been sent through \(server) (the call broke off): it cannot be taken back")
    }
}
