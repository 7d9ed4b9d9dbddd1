import Foundation

/// Where a release publisher writes its effects down: the step in a run, nothing in a unit test.
///
/// Every forge's publisher calls `record` before each effect and `done` after it, and
/// `makingPublic` right before the first change others can see (the run's point of no return).
package protocol ReleaseEffectRecording: Sendable {
    /// Writes an effect down before it happens; nil when nothing is recorded (a test, a dry run).
    func record<E: Effect>(_ effect: E, _ description: String) throws -> EffectHandle?
    /// Writes down that the effect happened, with what became known.
    func done<E: Effect>(_ handle: EffectHandle?, _ effect: E)
    /// Writes down that the effect did not happen after all.
    func didNotHappen(_ handle: EffectHandle?, _ why: String)
    /// Passes the run's point of no return unless it already has; true when this call passed it.
    func makingPublic(_ reason: String) throws -> Bool
    /// Takes back a point of no return this publisher passed, when nothing public happened after all.
    func notPublicAfterAll() throws
}

/// Records into a step's journal and the run's record.
package struct StepEffectRecording: ReleaseEffectRecording {
    let step: StepContext

    package func record<E: Effect>(_ effect: E, _ description: String) throws -> EffectHandle? { try step.record(effect, description) }
    package func done<E: Effect>(_ handle: EffectHandle?, _ effect: E) { step.done(handle, effect) }
    package func didNotHappen(_ handle: EffectHandle?, _ why: String) { step.didNotHappen(handle, why) }

    package func makingPublic(_ reason: String) throws -> Bool {
        guard !step.isDryRun, step.lane.state.pointOfNoReturn == nil else { return false }
        try step.passPointOfNoReturn(reason)
        return true
    }

    package func notPublicAfterAll() throws { try step.amendPointOfNoReturn(nil) }
}

/// Records nothing (unit tests of a publisher).
package struct NoEffectRecording: ReleaseEffectRecording {
    package init() {}
    package func record<E: Effect>(_ effect: E, _ description: String) throws -> EffectHandle? { nil }
    package func done<E: Effect>(_ handle: EffectHandle?, _ effect: E) {}
    package func didNotHappen(_ handle: EffectHandle?, _ why: String) {}
    package func makingPublic(_ reason: String) throws -> Bool { false }
    package func notPublicAfterAll() throws {}
}
