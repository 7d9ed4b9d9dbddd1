import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// Writes a file and registers its removal: an action with a side effect and its undo.
struct TouchFile: Action {
    static let name = "touchFile"
    var path: String
    var options: [StepOption] { [StepOption("path", path)] }

    func run(in step: StepContext) throws {
        try step.lane.fileSystem.write(Data("x".utf8), to: path)
        step.registerUndo("remove \(path)") { try FileManager.default.removeItem(atPath: path) }
    }
}

struct Failing: Error {}

/// Records the order hooks and lanes ran in.
final class Trace: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

nonisolated(unsafe) var currentTrace = Trace()

struct TraceHooks: LaneHooks {
    func beforeLane(_ lane: LaneInfo, context: LaneContext) async throws { currentTrace.add("before \(lane.name)") }
    func afterLane(_ lane: LaneInfo, context: LaneContext) async throws { currentTrace.add("after \(lane.name)") }
    func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async { currentTrace.add("error \(lane.name): \(failure.failingStep?.step ?? "-")") }
    func always(_ lane: LaneInfo, outcome: LaneOutcome, context: LaneContext) async { currentTrace.add("always \(lane.name)") }
}

struct Version: Lane {
    @Option var base: Int = 1
    func run(_ lane: LaneContext) async throws -> Int { base * 10 }
}

struct Outer: Lane {
    var folder = ""
    var failAtEnd = false
    var throwPlain = false

    init() {}
    init(folder: String, failAtEnd: Bool = false, throwPlain: Bool = false) {
        self.folder = folder
        self.failAtEnd = failAtEnd
        self.throwPlain = throwPlain
    }

    enum CodingKeys: CodingKey {}

    func run(_ lane: LaneContext) async throws -> Int {
        try lane.run(TouchFile(path: folder + "/one"))
        try lane.run(TouchFile(path: folder + "/two"))
        let inner = try await lane.call(Version.self) { $0.base = 4 }
        if throwPlain { throw Failing() }
        if failAtEnd { try await lane.sh("false") }
        return inner
    }
}

@Suite("Lane runner: steps, hooks, rollback, dry run", .serialized, .offThePool)
struct RunnerTests {
    func makeContext(folder: String, dryRun: Bool = false, hooks: [any LaneHooks] = []) -> (LaneContext, RecordingReporter) {
        let reporter = RecordingReporter()
        let context = LaneContext(
            .init(workingDirectory: folder, environment: LaneEnvironment(variables: ProcessInfo.processInfo.environment), reporter: reporter, isDryRun: dryRun),
            hooks: hooks
        )
        return (context, reporter)
    }

    func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "shiplane-runner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func stepsAreRecordedWithCallSitesAndNestedLanesReturnValues() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        currentTrace = Trace()
        let (context, _) = makeContext(folder: folder, hooks: [TraceHooks()])
        let result = await LaneRunner().run(Outer(folder: folder), in: context)
        #expect(result.succeeded)
        #expect(result.steps.map(\.name) == ["touchFile", "touchFile", "lane version"])
        #expect(result.steps.allSatisfy { $0.callSite?.file == "ShiplaneTests/RunnerTests.swift" } == true)
        #expect(result.steps[0].callSite?.line != result.steps[1].callSite?.line)
        #expect(result.steps[2].depth == 0)
        #expect(currentTrace.all == ["before outer", "before version", "after version", "after outer", "always outer"])
        #expect(FileManager.default.fileExists(atPath: folder + "/one"))
    }

    @Test func aFailingStepRollsBackInReverseAndNamesTheCallSite() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        currentTrace = Trace()
        let (context, reporter) = makeContext(folder: folder, hooks: [TraceHooks()])
        let result = await LaneRunner().run(Outer(folder: folder, failAtEnd: true), in: context)
        let failure = try #require(result.failure)
        #expect(failure.failingStep?.step == "sh")
        #expect(failure.failingStep?.callSite?.file == "ShiplaneTests/RunnerTests.swift")
        #expect(failure.rollback.map(\.description) == ["remove \(folder)/two", "remove \(folder)/one"])
        #expect(failure.rollback.allSatisfy { $0.undone })
        #expect(!FileManager.default.fileExists(atPath: folder + "/one"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/two"))
        #expect(currentTrace.all.contains("error outer: sh"))
        #expect(currentTrace.all.last == "always outer")
        let rollbackEvents = reporter.events.filter { if case .rollbackFinished = $0 { return true } else { return false } }
        #expect(rollbackEvents.count == 1)
        let code = ShiplaneExitCode.for(failure)
        #expect(code == .failure)
    }

    @Test func noRollbackKeepsTheSideEffects() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, _) = makeContext(folder: folder)
        let result = await LaneRunner(rollbackOnFailure: false).run(Outer(folder: folder, failAtEnd: true), in: context)
        #expect(result.failure?.rollback.isEmpty == true)
        #expect(FileManager.default.fileExists(atPath: folder + "/one"))
    }

    @Test func aPlainErrorIsWrappedNotLost() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, _) = makeContext(folder: folder)
        let result = await LaneRunner().run(Outer(folder: folder, throwPlain: true), in: context)
        let failure = try #require(result.failure)
        let thrown = try #require(failure.causes.first as? ThrownError)
        #expect(thrown.message.contains("Failing"))
        #expect(failure.rollback.count == 2)
    }

    @Test func dryRunWritesNothingAndRunsNoCommand() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, reporter) = makeContext(folder: folder, dryRun: true)
        let result = await LaneRunner().run(Outer(folder: folder, failAtEnd: true), in: context)
        #expect(result.succeeded, "sh false is not run in a dry run")
        #expect(!FileManager.default.fileExists(atPath: folder + "/one"))
        #expect(result.plannedWrites == ["one", "two"])
        #expect(result.steps.last?.note == "would run: false")
        // Later steps see what earlier ones would have written.
        #expect(try context.fileSystem.contents(of: folder + "/one") == Data("x".utf8))
        #expect(!reporter.events.isEmpty)
    }

    @Test func cancellationIsAnInterruptAndRollsBack() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        struct Slow: Lane {
            var folder = ""
            enum CodingKeys: CodingKey {}
            func run(_ lane: LaneContext) async throws {
                try lane.run(TouchFile(path: folder + "/made"))
                try await lane.sh("sleep", "30")
            }
        }
        var lane = Slow()
        lane.folder = folder
        let (context, _) = makeContext(folder: folder)
        let task = Task { [lane] in await LaneRunner().run(lane, in: context) }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: folder + "/made") { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.value
        #expect(result.interrupted)
        #expect(!FileManager.default.fileExists(atPath: folder + "/made"))
        let code = ShiplaneExitCode.for(try #require(result.failure))
        #expect(code == .interrupted)
    }
}
