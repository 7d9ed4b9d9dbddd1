import Foundation
import Shiplane

/// The whole run as JSON for tools (`--report-json FILE`): steps, timings, outcome, error tree.
///
/// Every string passes through the redactor before it is written.
package struct RunReport: Codable, Equatable {
    package struct ErrorNode: Codable, Equatable {
        package var message: String
        package var type: String
        package var info: [Fact]
        package var suggestion: String?
        package var callSite: CallSite?
        package var underlying: [ErrorNode]
    }

    package struct Fact: Codable, Equatable {
        package var key: String
        package var value: String
    }

    package var shiplaneVersion: String
    package var lane: String
    package var dryRun: Bool
    package var outcome: String
    package var exitCode: Int32
    package var startedAt: Date
    package var duration: TimeInterval
    package var steps: [StepRecord]
    package var error: ErrorNode?
    package var rollback: [RollbackEntry]
    package var plannedWrites: [String]

    package init(result: LaneRunResult, exitCode: Int32) {
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
    package init(error: any Error, exitCode: Int32, command: String) {
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
    package func encoded(redactor: SecretRedactor) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(self), as: UTF8.self)
        return Data((redactor.redact(text) + "\n").utf8)
    }
}
