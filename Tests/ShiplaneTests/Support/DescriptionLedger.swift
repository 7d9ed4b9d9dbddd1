import Foundation
import Testing

/// What a stand-in checked against a service's published description: every way a request or an
/// answer broke it (a test fails on any when the stand-in stops), how many requests were
/// checked, and which operations they were. With `SHIPLANE_STANDIN_STATS=1` in the environment,
/// `finish` prints one line of counts (`stand-in NAME: N requests checked, M operations: …`),
/// which `Scripts/standin-stats` adds up over a test run.
final class DescriptionLedger: @unchecked Sendable {
    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var violationLog: [String] = []
    private var checked = 0
    private var operations: [String: Int] = [:]

    var violations: [String] { lock.withLock { violationLog } }
    var checkedRequests: Int { lock.withLock { checked } }
    var operationsSeen: [String: Int] { lock.withLock { operations } }

    /// One request matched to `operation` (nil: it matched none), with what was wrong with it.
    func request(_ operation: String?, problems: [String]) {
        lock.withLock {
            checked += 1
            if let operation { operations[operation, default: 0] += 1 }
            violationLog += problems
        }
    }

    /// What was wrong with an answer.
    func answer(problems: [String]) {
        guard !problems.isEmpty else { return }
        lock.withLock { violationLog += problems }
    }

    /// The violations so far, forgotten (for a test that sends a request the description refuses on purpose).
    func take() -> [String] { lock.withLock { defer { violationLog = [] }; return violationLog } }

    /// Fails the running test for each violation; prints the counts when asked to.
    func finish(_ name: String, descriptionLoaded: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        if !descriptionLoaded { Issue.record("the \(name) API description fixture cannot be read", sourceLocation: sourceLocation) }
        for violation in take() { Issue.record("\(name) stand-in: \(violation)", sourceLocation: sourceLocation) }
        if ProcessInfo.processInfo.environment["SHIPLANE_STANDIN_STATS"] == "1" {
            let seen = operationsSeen
            print("stand-in \(name): \(checkedRequests) requests checked, \(seen.count) operations: "
                + seen.keys.sorted().joined(separator: "; "))
        }
    }
}

/// The answer a stand-in's route made for one request (its status and JSON body), kept for the
/// description's check. Each request gets its own, through `current`.
final class RecordedAnswer: @unchecked Sendable {
    // @unchecked: written by the one task that answers the request, read after it returns.
    private let lock = NSLock()
    private var value: (status: Int, body: Any?)?
    /// The operation the request matched, when it passed the description's check.
    var operation: OpenAPIDescription.Operation? {
        get { lock.withLock { storedOperation } }
        set { lock.withLock { storedOperation = newValue } }
    }
    private var storedOperation: OpenAPIDescription.Operation?

    @TaskLocal static var current: RecordedAnswer?

    func record(_ status: Int, _ body: Any?) { lock.withLock { value = (status, body) } }
    var answer: (status: Int, body: Any?)? { lock.withLock { value } }
}
