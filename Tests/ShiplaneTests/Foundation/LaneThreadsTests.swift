import Foundation
import Testing
@testable import Shiplane

/// Waits for `gate` on the calling thread, as lane code that calls a synchronous API does; true
/// when the wait gave up.
private func blockOn(_ gate: DispatchSemaphore, seconds: Int) -> Bool {
    gate.wait(timeout: .now() + .seconds(seconds)) == .timedOut
}

/// Which pool the calling thread belongs to, read synchronously as lane code would.
@available(macOS 15.0, *)
private func threadName() -> String {
    guard let pool = BlockingThreadPool.ofCurrentThread else { return "not a pool thread: \(Thread.current.name ?? "")" }
    return pool === BlockingThreadPool.lanes ? "shiplane-lane" : "pool \(pool.name)"
}

/// More blocking waits than Swift's cooperative pool has threads, released by a task that needs
/// that pool: on the pool, every wait would give up.
@available(macOS 15.0, *)
struct BlockingLane: Lane {
    enum CodingKeys: CodingKey {}
    init() {}
    /// What the last run saw: each wait's thread name (or "gave up"), then the lane's own.
    static let seen = SeenThreads()

    func run(_ lane: LaneContext) async throws -> [String] {
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let gate = DispatchSemaphore(value: 0)
        let opener = Task.detached {
            try? await Task.sleep(for: .milliseconds(200))
            for _ in 0..<count { gate.signal() }
        }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask { blockOn(gate, seconds: 30) ? "gave up" : threadName() }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        opener.cancel()
        let all = outcomes + ["lane: " + threadName()]
        BlockingLane.seen.set(all)
        return all
    }
}

final class SeenThreads: @unchecked Sendable {
    // @unchecked: `names` is read and written only under `lock`.
    private let lock = NSLock()
    private var names: [String] = []
    func set(_ new: [String]) { lock.withLock { names = new } }
    var all: [String] { lock.withLock { names } }
}

@Suite("Concurrency: lane code runs on threads of its own, off the cooperative pool", .offThePool)
struct LaneThreadsTests {
    /// Lane code that blocks (a history walk, a semaphore) leaves the cooperative pool free: more
    /// blocking child tasks than the pool has threads all finish, released by a pool task.
    @available(macOS 15.0, *)
    @Test func blockingLaneCodeLeavesTheCooperativePoolFree() async throws {
        let folder = NSTemporaryDirectory() + "shiplane-threads-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = LaneContext(.init(
            workingDirectory: folder, environment: LaneEnvironment(variables: [:]), reporter: RecordingReporter()
        ))
        // Started from a task on the cooperative pool with no preference, as the lane program's
        // main task is.
        let result = await Task.detached { await LaneRunner().run(BlockingLane(), in: context) }.value
        #expect(result.succeeded)
        let outcomes = BlockingLane.seen.all
        #expect(outcomes.count == ProcessInfo.processInfo.activeProcessorCount + 2)
        #expect(outcomes.allSatisfy { $0.hasSuffix("shiplane-lane") }, "\(outcomes)")
    }

    /// The pool starts a thread for each job while the others block, and reuses idle ones.
    @available(macOS 15.0, *)
    @Test func thePoolGrowsWhileItsThreadsBlock() async {
        let pool = BlockingThreadPool(name: "pool-test", idleTimeout: 60)
        let gate = DispatchSemaphore(value: 0)
        let waits = 6
        let opener = Task.detached {
            try? await Task.sleep(for: .milliseconds(100))
            for _ in 0..<waits { gate.signal() }
        }
        let gaveUp = await withTaskExecutorPreference(pool) {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<waits { group.addTask { blockOn(gate, seconds: 30) } }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
        }
        _ = await opener.value
        #expect(gaveUp == 0)
        #expect(pool.threadCount >= waits)
        let before = pool.threadCount
        await withTaskExecutorPreference(pool) {
            for _ in 0..<20 { await Task.yield() }
        }
        #expect(pool.threadCount == before, "idle threads are reused")
    }
}

/// Every suite runs its tests off the cooperative pool (`OffThePool`), or the parallel suite
/// would starve the stand-in servers and time out.
@Suite("Tests: every suite carries .offThePool", .offThePool)
struct SuiteTraitTests {
    @Test func everySuiteRunsOffThePool() throws {
        let folder = packageRoot + "/Tests/ShiplaneTests"
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var problems: [String] = []
        var suites = 0
        // A suite's tests may sit in an extension in another file (`extension HomebrewTapTests`):
        // those count as the suite's when the type is declared under an `@Suite` line.
        var suiteTypes: Set<String> = []
        var extended: [(file: String, types: [String])] = []
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            for (number, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") {
                suites += 1
                if !line.contains(".offThePool") { problems.append("\(file):\(number + 1)") }
                if let declaration = lines.dropFirst(number + 1).first(where: { $0.hasPrefix("struct ") || $0.hasPrefix("final class ") || $0.hasPrefix("enum ") }),
                   let name = declaration.split(separator: " ").dropFirst(declaration.hasPrefix("final") ? 2 : 1).first {
                    suiteTypes.insert(String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
                }
            }
            if text.contains("@Test") && !text.contains("@Suite") {
                let types = lines.filter { $0.hasPrefix("extension ") }.compactMap { $0.split(separator: " ").dropFirst().first }
                    .map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) }
                extended.append((file, types))
            }
        }
        for (file, types) in extended where types.isEmpty || !types.allSatisfy(suiteTypes.contains) {
            problems.append("\(file): tests outside a suite")
        }
        #expect(suites > 100)
        #expect(problems.isEmpty, "suites without .offThePool:\n\(problems.joined(separator: "\n"))")
    }
}
