import Foundation
import Shiplane

/// The whole run as JSON for tools (`--report-json FILE`): steps, timings, outcome, error tree.
///
/// Every string passes through the redactor before it is written.
public struct RunReport: Codable, Equatable {
    public struct ErrorNode: Codable, Equatable {
        public var message: String
        public var type: String
        public var info: [Fact]
        public var suggestion: String?
        public var callSite: CallSite?
        public var underlying: [ErrorNode]
    }

    public struct Fact: Codable, Equatable {
        public var key: String
        public var value: String
    }

    public var shiplaneVersion: String
    public var lane: String
    public var dryRun: Bool
    public var outcome: String
    public var exitCode: Int32
    public var startedAt: Date
    public var duration: TimeInterval
    public var steps: [StepRecord]
    public var error: ErrorNode?
    public var rollback: [RollbackEntry]
    public var plannedWrites: [String]

    public init(result: LaneRunResult, exitCode: Int32) {
        shiplaneVersion = ShiplaneVersion.current
        lane = result.lane
        dryRun = result.dryRun
        outcome = result.interrupted ? "interrupted" : (result.succeeded ? "succeeded" : "failed")
        self.exitCode = exitCode
        startedAt = result.startedAt
        duration = result.duration
        steps = result.steps
        error = result.failure.map { Self.node($0) }
        rollback = result.failure?.rollback ?? []
        plannedWrites = result.plannedWrites
    }

    /// The report of a command that ended before or instead of a lane run: a usage error (exit
    /// 2), lanes that do not compile (3), a missing repository or tool (4), and the like.
    public init(error: any Error, exitCode: Int32, command: String) {
        shiplaneVersion = ShiplaneVersion.current
        lane = command
        dryRun = false
        switch exitCode {
        case 2: outcome = "usage-error"
        case 3: outcome = "compile-error"
        case 4: outcome = "environment-error"
        case 5: outcome = "nothing-to-release"
        default: outcome = "failed"
        }
        self.exitCode = exitCode
        startedAt = Date()
        duration = 0
        steps = []
        self.error = Self.node(error)
        rollback = []
        plannedWrites = []
    }

    static func node(_ error: any Error) -> ErrorNode {
        let tree = ErrorTree.node(error)
        return ErrorNode(
            message: tree.message, type: String(describing: type(of: error)),
            info: tree.info.map { Fact(key: $0.key, value: $0.value) },
            suggestion: tree.suggestion, callSite: (error as? StepFailure)?.callSite,
            underlying: tree.children.map(node)
        )
    }

    /// Encodes the report with sorted keys and ISO-8601 dates, redacted.
    public func encoded(redactor: SecretRedactor) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(self), as: UTF8.self)
        return Data((redactor.redact(text) + "\n").utf8)
    }
}
