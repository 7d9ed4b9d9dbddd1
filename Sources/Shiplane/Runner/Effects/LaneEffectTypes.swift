import Foundation

/// The effect types lane code declares (`struct StampWritten: Effect` in `Lanes/`), registered by
/// the lane program when it starts: a record it reads back — to undo one of them for the
/// supervisor or `shiplane rollback` — decodes them as it decodes the built-in ones.
package enum LaneEffectTypes {
    private static let lock = NSLock()
    /// Under `lock`.
    nonisolated(unsafe) private static var types: [any Effect.Type] = []

    /// Adds lane code's effect types (the generated entry of the lane program calls this).
    package static func register(_ list: [any Effect.Type]) {
        lock.withLock { types += list.filter { new in !types.contains { $0.kind == new.kind } } }
    }

    /// The registered types.
    package static var all: [any Effect.Type] { lock.withLock { types } }
}

/// Undoes a recorded effect of a kind this process does not know, in the process that does: the
/// supervisor and `shiplane rollback` hand a lane's own effect to its lane program. Throws
/// `EffectStays` when the effect stays by design, any other error when its undo failed.
package typealias UndoElsewhere = @Sendable (_ effect: AnyEffect, _ status: RecordedEffect.Status) async throws -> Void
