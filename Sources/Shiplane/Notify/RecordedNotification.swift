import Foundation

extension StepContext {
    /// Sends a message through `send`, written down in the run's record before it goes.
    ///
    /// A message cannot be taken back, so a rollback (in this process or from the record in
    /// another) reports it as staying: sent, or — when the call broke off with no answer — maybe
    /// sent. A message the server refused did not happen and is not reported.
    func sendRecordedMessage(to destination: String, _ send: () async throws -> Void) async throws {
        let description = "message to \(destination)"
        let effect = try intend(description, .external(kind: "notification", handle: destination))
        do {
            try await send()
        } catch let refused as NotifyError {
            didNotHappen(effect, describe(refused))
            throw refused
        } catch {
            registerUndo(description, effectIndex: effect) {
                throw EffectStays("a message to \(destination) may have been sent (the call broke off): it cannot be taken back")
            }
            throw error
        }
        done(effect)
        registerUndo(description, effectIndex: effect) {
            throw EffectStays("a message was sent to \(destination): it cannot be taken back")
        }
    }
}
