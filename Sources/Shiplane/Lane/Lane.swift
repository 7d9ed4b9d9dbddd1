// Public: `Lane` refines the parser's `ParsableArguments` (Shiplane.swift re-exports to lanes only
// the parser's names they write).
public import ArgumentParser

/// A release process written in Swift: options, then a `run` that calls actions.
///
/// Declare a type in `Lanes/*.swift`; Shiplane finds it without registration. Options use
/// swift-argument-parser's `@Option`, `@Flag` and `@Argument`, validated before `run` starts.
/// The lane's command-line name is its type name in kebab case without a `Lane` suffix
/// (`Release` → `release`, `BetaDeployLane` → `beta-deploy`), or `static let name`.
public protocol Lane: ParsableArguments {
    /// What `run` returns to a lane that calls this one (see `LaneContext.call`).
    associatedtype Output = Void

    /// The command-line name; defaults to the type name in kebab case.
    static var name: String { get }
    /// One line for `shiplane lanes` and `--help`.
    static var summary: String { get }
    /// A private lane can be called from other lanes but not from the command line.
    static var isPrivate: Bool { get }

    /// Runs the lane: calls actions through `lane` and returns the lane's result.
    /// - Throws: any error: the runner reports it and rolls back what the run can undo.
    func run(_ lane: LaneContext) async throws -> Output
}

extension Lane {
    /// The type name in kebab case without a `Lane` suffix.
    ///
    /// The name is read with `_typeName`, the same unqualified name `String(describing:)` prints for
    /// a type, without the conformance lookups and the mirror that printing a value starts with:
    /// in a statically linked lane program each lookup scans every conformance record of Swift,
    /// Foundation and Shiplane, and asking a lane's name took a tenth of a no-op lane's start.
    public static var name: String { laneName(forType: _typeName(Self.self, qualified: false)) }
    /// No summary.
    public static var summary: String { "" }
    /// Public: the lane can be run from the command line.
    public static var isPrivate: Bool { false }
}

/// The kebab-case lane name for a type name: `BetaDeployLane` → `beta-deploy`.
package func laneName(forType typeName: String) -> String {
    var base = typeName
    if base.hasSuffix("Lane"), base.count > 4 { base.removeLast(4) }
    return kebabCase(base)
}

/// `buildNumber`, `BuildNumber` and `build_number` → `build-number`.
package func kebabCase(_ name: String) -> String {
    var result = ""
    // Not Foundation's `replacingOccurrences`: on Linux that goes through NSString, whose first
    // use costs a lane program's start more than the rest of this function.
    let characters = name.map { $0 == "_" ? "-" : $0 }
    for (index, character) in characters.enumerated() {
        if character.isUppercase {
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let startsWord = previous.map { $0.isLowercase || $0.isNumber } ?? false
                || (previous?.isUppercase == true && next?.isLowercase == true)
            if startsWord && !result.isEmpty && !result.hasSuffix("-") { result.append("-") }
            result.append(contentsOf: character.lowercased())
        } else {
            result.append(character)
        }
    }
    return result
}

/// What hooks learn about the lane they run around.
public struct LaneInfo: Sendable, Codable, Equatable {
    /// The lane's command-line name.
    public var name: String
    /// 0 for the lane named on the command line, 1 for a lane it calls, and so on.
    public var depth: Int
}

/// How a lane run ended, as the `always` hook sees it.
public enum LaneOutcome: Sendable {
    /// The lane's `run` returned.
    case succeeded
    /// The lane failed or was interrupted; the failure says how and what rollback did.
    case failed(LaneFailure)
}

/// Code that runs around lanes: before and after each, on error, and always at the end.
///
/// Declare a type conforming to `LaneHooks` in `Lanes/`; Shiplane finds it like a lane. Several
/// hook types run in file order. A `beforeLane` that throws fails the lane before it starts.
public protocol LaneHooks {
    /// Creates the hooks; Shiplane makes one value per hook type it finds.
    init()
    /// Runs before each lane, the top one and every lane it calls.
    /// - Throws: an error that fails the lane before its `run` starts.
    func beforeLane(_ lane: LaneInfo, context: LaneContext) async throws
    /// Runs after each lane whose `run` returned.
    /// - Throws: an error that fails the lane.
    func afterLane(_ lane: LaneInfo, context: LaneContext) async throws
    /// The top lane failed; `failure` holds the failing step and its causes.
    func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async
    /// Runs once when the top lane ends, whatever the outcome.
    func always(_ lane: LaneInfo, outcome: LaneOutcome, context: LaneContext) async
}

extension LaneHooks {
    /// Does nothing.
    public func beforeLane(_ lane: LaneInfo, context: LaneContext) async throws {}
    /// Does nothing.
    public func afterLane(_ lane: LaneInfo, context: LaneContext) async throws {}
    /// Does nothing.
    public func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async {}
    /// Does nothing.
    public func always(_ lane: LaneInfo, outcome: LaneOutcome, context: LaneContext) async {}
}
