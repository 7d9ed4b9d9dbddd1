import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

@Suite("Rendering: summary table, error tree, reports", .offThePool)
struct RenderingTests {
    static let start = Date(timeIntervalSince1970: 1_795_341_600)

    static var failedRun: LaneRunResult {
        let steps = [
            StepRecord(number: 1, name: "ensureGitBranch", callSite: CallSite(file: "Lanes/Release.swift", line: 12), options: [StepOption("matching", "main")], depth: 0, startedAt: start, duration: 0.012, outcome: .succeeded, note: "main"),
            StepRecord(number: 2, name: "lane build", callSite: CallSite(file: "Lanes/Release.swift", line: 13), options: [], depth: 0, startedAt: start, duration: 3.5, outcome: .failed, error: "sh failed at Lanes/Build.swift:7"),
            StepRecord(number: 3, name: "sh", callSite: CallSite(file: "Lanes/Build.swift", line: 7), options: [StepOption("command", "swift build -c release")], depth: 1, startedAt: start, duration: 3.4, outcome: .failed, error: "`swift build -c release` exited with code 1"),
        ]
        let commandFailure = CommandFailed(
            commandLine: "swift build -c release",
            result: ProcessResult(exitCode: 1, lastLines: ["error: no such module 'Foo'", "error: fatal error encountered"]),
            timeout: nil
        )
        let inner = StepFailure(step: "sh", callSite: CallSite(file: "Lanes/Build.swift", line: 7), cause: commandFailure)
        let outer = StepFailure(step: "lane build", callSite: CallSite(file: "Lanes/Release.swift", line: 13), cause: inner)
        let failure = LaneFailure(
            lane: "release", causes: [outer],
            rollback: [
                RollbackEntry(description: "restore VERSION", undone: true, error: nil),
                RollbackEntry(description: "delete tag v1.2.0 on origin", undone: false, error: "the remote refused: permission denied"),
            ]
        )
        return LaneRunResult(lane: "release", dryRun: false, startedAt: start, duration: 3.52, steps: steps, failure: failure, plannedWrites: [])
    }

    @Test func summaryTableMatchesGolden() throws {
        try expectGolden(SummaryTable.lines(for: Self.failedRun).joined(separator: "\n") + "\n", "summary-failed.txt")
    }

    @Test func errorTreeMatchesGolden() throws {
        let failure = try #require(Self.failedRun.failure)
        try expectGolden(ErrorTree.lines(for: failure).joined(separator: "\n") + "\n", "error-tree.txt")
    }

    @Test func dryRunSummaryListsPlannedWrites() {
        var result = Self.failedRun
        result.failure = nil
        result.dryRun = true
        result.plannedWrites = ["VERSION", "CHANGELOG.md"]
        let text = SummaryTable.lines(for: result).joined(separator: "\n")
        #expect(text.contains("dry run completed: nothing was written"))
        #expect(text.contains("would write: VERSION, CHANGELOG.md"))
    }

    @Test func jsonReportCarriesStepsErrorsAndCallSites() throws {
        let data = try RunReport(result: Self.failedRun, exitCode: 1).encoded(redactor: SecretRedactor(secrets: []))
        let report = try JSONDecoder.iso8601.decode(RunReport.self, from: data)
        #expect(report.outcome == "failed")
        #expect(report.exitCode == 1)
        #expect(report.steps.count == 3)
        #expect(report.error?.underlying.first?.callSite == CallSite(file: "Lanes/Release.swift", line: 13))
        #expect(report.error?.underlying.first?.underlying.first?.underlying.first?.message == "`swift build -c release` exited with code 1")
        #expect(report.rollback.count == 2)
    }

    @Test func reportsAreRedacted() throws {
        var result = Self.failedRun
        result.steps[0].note = "token ghp_0123456789abcdefghijklmnopqrstuv"
        let json = String(decoding: try RunReport(result: result, exitCode: 1).encoded(redactor: SecretRedactor(secrets: ["Foo'"])), as: UTF8.self)
        #expect(!json.contains("ghp_0123456789"))
        #expect(!json.contains("Foo'"))
        let xml = JUnitReport.xml(for: result, redactor: SecretRedactor(secrets: []))
        #expect(!xml.contains("ghp_0123456789"))
        #expect(xml.contains(#"<testcase classname="release" name="sh (Lanes/Build.swift:7)" file="Lanes/Build.swift" line="7" time="#), "\(xml)")
        #expect(xml.contains("<failure message="))
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
