import Foundation

/// One option of a step as shown in output and reports; secret values are never stored.
public struct StepOption: Codable, Sendable, Equatable {
    /// The option's name.
    public var name: String
    /// Its value as shown (`***` for a secret).
    public var value: String

    /// Creates an option shown as `name` and `value`; never pass a secret as the value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// An option whose value is a secret: recorded as `***`.
    public static func secret(_ name: String) -> StepOption { StepOption(name, "***") }
}

/// How a step ended.
public enum StepOutcome: String, Codable, Sendable {
    /// `running` until the step ends, then `succeeded` or `failed`; `skipped` is a step that did not run
    /// (no built-in step reports it).
    case running, succeeded, failed, skipped
}

/// The runner's record of one action call: what, where, with which options, how long, how it ended.
public struct StepRecord: Codable, Sendable, Equatable {
    /// 1-based position in the run, in start order.
    public var number: Int
    /// The action's name (`ensureGitBranch`, `sh`, `lane check`).
    public var name: String
    /// Where the lane file called the action; nil for Shiplane's own calls.
    public var callSite: CallSite?
    /// The options as shown, secrets as `***`.
    public var options: [StepOption]
    /// Nesting: 0 for steps of the top lane, 1 for steps of a lane it called, and so on.
    public var depth: Int
    /// When the step started, by the run's clock.
    public var startedAt: Date
    /// How long the step took, in seconds; nil while it runs.
    public var duration: TimeInterval?
    /// How the step ended, or `running`.
    public var outcome: StepOutcome
    /// The error message when the step failed.
    public var error: String?
    /// A short note the action left ("would run: swift build", "v1.2.0").
    public var note: String?

    /// Creates a record; the runner makes one per step.
    package init(
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
