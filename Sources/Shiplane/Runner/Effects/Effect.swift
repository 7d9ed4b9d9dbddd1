import Foundation

/// A side effect as data: what a step changed, written in the run's record before it happens and
/// after, and undone by its one `undo(in:status:)` — in the run, by the supervisor after a kill,
/// and by `shiplane rollback` in another process, against the same kind of dependencies.
///
/// Each feature declares its own effect types beside its actions (a tag in `Git/`, a GitHub
/// release in `Release/GitHub/`) and lists them once in `Features.effects`. An action written in
/// lane code gets the same durability in the run by declaring its own type and recording it with
/// `StepContext.record(_:)`.
public protocol Effect: Codable, Sendable {
    /// The name the record keeps the effect under (`git.tag`): unique, and stable across versions.
    static var kind: String { get }
    /// How far the effect reaches, which decides what a rollback does with it.
    var reach: EffectReach { get }
    /// Undoes the effect if the world is still as the run left it; does nothing when it never
    /// landed. `status` is `.intended` when the run stopped while the effect was happening (it
    /// may or may not have landed), `.done` when it is known to have happened.
    /// - Throws: `EffectStays` when it cannot be taken back by design; any other error when the
    ///   world changed since (the effect is then kept and reported).
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws
    /// The effect with its work-tree paths moved (`move` maps an old absolute path to the new),
    /// for a record fetched into a clone at another place.
    func rebased(_ move: (String) -> String) -> Self
}

extension Effect {
    /// Work-tree independent by default.
    public func rebased(_ move: (String) -> String) -> Self { self }
}

/// How far an effect reaches.
public enum EffectReach: String, Codable, Sendable {
    /// The repository and its work tree (files, commits, tags): undone before a step that was cut
    /// short runs again, and kept once the point of no return has passed before it.
    case local
    /// A remote's refs: others may already have them, so it is never undone.
    case remote
    /// An object on a service with an API (a draft release, a build upload): undone through the
    /// API before the point of no return; past it, only what came after is undone.
    case service
    /// A release that others may see once the run is past its point of no return: it stays then,
    /// for `shiplane resume` to finish.
    case publication
    /// Cannot be taken back (a message sent, files on a server that owns them).
    case permanent
}

/// Thrown by an undo whose effect cannot be taken back by design — a message sent, files put on a
/// server that owns them: rollback reports it as staying, not as an undo that failed.
public struct EffectStays: ReportableError {
    /// What stays, and why.
    public var message: String

    /// Says what stays and why.
    public init(_ message: String) { self.message = message }
}
