import Foundation

/// An effect whose undo is a closure registered with `StepContext.registerUndo` in lane code: the
/// run that made it undoes it; any other process only reports it, since a closure cannot be
/// written down. An action that declares its own `Effect` type is undone everywhere instead.
package struct InProcessUndo: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "lane.inProcessUndo"
    /// What the undo does, as registered.
    package var description: String

    /// Describes a registered undo.
    package init(description: String) { self.description = description }

    /// Whatever lane code did.
    package var reach: EffectReach { .permanent }

    /// Called only outside the process that registered the closure: nothing can be done here.
    /// - Throws: `EffectStays`, always.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("not undone (\(description)): only the run that registered it could undo it; do it by hand if it should go")
    }
}
