import Foundation

/// One option of a step as shown in output and reports; secret values are never stored.
public struct StepOption: Codable, Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// An option whose value is a secret: recorded as `***`.
    public static func secret(_ name: String) -> StepOption { StepOption(name, "***") }
}

/// How a step ended.
public enum StepOutcome: String, Codable, Sendable {
    case running, succeeded, failed, skipped
}

/// The runner's record of one action call: what, where, with which options, how long, how it ended.
public struct StepRecord: Codable, Sendable, Equatable {
    /// 1-based position in the run, in start order.
    public var number: Int
    /// The action's name (`ensureGitBranch`, `sh`, `lane check`).
    public var name: String
    public var callSite: CallSite?
    public var options: [StepOption]
    /// Nesting: 0 for steps of the top lane, 1 for steps of a lane it called, and so on.
    public var depth: Int
    public var startedAt: Date
    public var duration: TimeInterval?
    public var outcome: StepOutcome
    /// The error message when the step failed.
    public var error: String?
    /// A short note the action left ("would run: swift build", "v1.2.0").
    public var note: String?

    public init(
        number: Int, name: String, callSite: CallSite?, options: [StepOption], depth: Int,
        startedAt: Date, duration: TimeInterval? = nil, outcome: StepOutcome = .running,
        error: String? = nil, note: String? = nil
    ) {
        self.number = number
        self.name = name
        self.callSite = callSite
        self.options = options
        self.depth = depth
        self.startedAt = startedAt
        self.duration = duration
        self.outcome = outcome
        self.error = error
        self.note = note
    }
}
