import Foundation

/// A message sent (Slack, a webhook): written down before it goes, it cannot be taken back.
package struct MessageSent: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "notify.message"
    /// Where it went, as people can read it (secrets redacted).
    package var destination: String

    /// Describes a message sent to `destination`.
    package init(destination: String) { self.destination = destination }

    /// Sent is sent.
    package var reach: EffectReach { .permanent }

    /// A message cannot be taken back.
    /// - Throws: `EffectStays`, always: sent, or maybe sent when the call broke off.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .done { throw EffectStays("a message was sent to \(destination): it cannot be taken back") }
        throw EffectStays("a message to \(destination) may have been sent (the call broke off): it cannot be taken back")
    }
}
