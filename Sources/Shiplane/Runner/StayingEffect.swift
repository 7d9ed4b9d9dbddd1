import Foundation

/// An effect that cannot be taken back by design — a message sent, files put on a server that owns
/// them. It is written down before it happens, and every rollback (in the run, by the supervisor
/// after a kill, `shiplane rollback`) reports it as staying, never as an undo that failed.
enum StayingEffect: String, Sendable {
    case notification
    case upload

    /// What a rollback says of it: `certain` when the record shows it done, else it may have happened.
    func stays(_ destination: String, certain: Bool) -> EffectStays {
        switch (self, certain) {
        case (.notification, true): EffectStays("a message was sent to \(destination): it cannot be taken back")
        case (.notification, false): EffectStays("a message to \(destination) may have been sent (the call broke off): it cannot be taken back")
        case (.upload, true): EffectStays("files uploaded to \(destination) stay: the server owns them (remove them there if needed)")
        case (.upload, false): EffectStays("files may have been uploaded to \(destination): they stay, the server owns them (remove them there if needed)")
        }
    }
}

extension StepContext {
    /// Runs `body`, which does a `kind` of effect to `destination`, written down before it starts.
    /// An error for which `nothingHappened` is true (a server that refused the one request) marks
    /// it as not done; any other leaves it as maybe done.
    func perform(
        _ kind: StayingEffect, to destination: String, nothingHappened: (any Error) -> Bool = { _ in false },
        _ body: () async throws -> Void
    ) async throws {
        let description = "\(kind.rawValue) to \(destination)"
        let effect = try intend(description, .external(kind: kind.rawValue, handle: destination))
        do {
            try await body()
        } catch {
            if nothingHappened(error) {
                didNotHappen(effect, describe(error))
            } else {
                registerUndo(description, effectIndex: effect) { throw kind.stays(destination, certain: false) }
            }
            throw error
        }
        done(effect)
        registerUndo(description, effectIndex: effect) { throw kind.stays(destination, certain: true) }
    }
}
