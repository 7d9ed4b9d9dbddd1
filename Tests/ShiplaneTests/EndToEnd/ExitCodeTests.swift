import Foundation
import Testing

/// Lanes that end each documented way; compiled once for every case below.
private let exitLanes: [String: String] = [
    "Lanes/Exits.swift": #"""
    import Shiplane
    import Foundation

    struct PlainError: Error {}

    /// A user's action with a defect in it: a force unwrap of a value that is nil.
    struct Unwrap: Action {
        static let name = "unwrap"
        var value: String?
        func run(in step: StepContext) throws -> Int {
            Int(value!)!
        }
    }

    /// An action that finds one of its own invariants broken and says it is a defect.
    struct Invariant: ReportableError {
        var message: String { "the cache index points past its end" }
        var category: ErrorCategory { .defect }
    }
    struct CheckInvariant: Action {
        static let name = "checkInvariant"
        func run(in step: StepContext) throws { throw Invariant() }
    }

    struct Noop: Lane { func run(_ lane: LaneContext) async throws {} }
    struct Fails: Lane { func run(_ lane: LaneContext) async throws { throw PlainError() } }
    struct Crash: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.writeMark(lane.workingDirectory + "/crash-mark.txt")
            _ = try lane.run(Unwrap(value: nil))
        }
    }
    struct Defect: Lane { func run(_ lane: LaneContext) async throws { try lane.run(CheckInvariant()) } }
    /// Writes through a bad pointer: a crash outside Swift's checks (as in C code or a library).
    struct BadPointer: Lane {
        func run(_ lane: LaneContext) async throws {
            let pointer = UnsafeMutablePointer<Int>(bitPattern: 0x70)
            pointer?.pointee = 1
        }
    }
    struct Wait: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.writeMark(lane.workingDirectory + "/wait-mark.txt")
            try await lane.sh("sh", "-c", "sleep 30; echo never")
        }
    }

    struct SlowUndo: Lane {
        func run(_ lane: LaneContext) async throws {
            try await lane.run(SlowlyUndone(path: lane.workingDirectory + "/slow-undo.txt"))
            try lane.writeMark(lane.workingDirectory + "/wait-mark.txt")
            try await lane.sh("sh", "-c", "sleep 30; echo never")
        }
    }

    struct SlowlyUndone: AsyncAction {
        static let name = "slowlyUndone"
        var path: String
        func run(in step: StepContext) async throws {
            let path = self.path
            step.registerUndo("slow undo") {
                try await Task.sleep(nanoseconds: 1_500_000_000)
                try Data("undone".utf8).write(to: URL(fileURLWithPath: path))
            }
        }
    }

    struct Mark: Action {
        static let name = "mark"
        var path: String
        func run(in step: StepContext) throws { try step.writeFile(Data("x".utf8), to: path) }
    }
    extension LaneContext {
        func writeMark(_ path: String) throws { try run(Mark(path: path)) }
    }
    """#,
]

@Suite("Exit codes: every documented code, reached by running the binary", .serialized, .offThePool)
struct ExitCodeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var code: Int32
        var says: String
        var testDescription: String { "\(name) → \(code)" }
    }

    static let cases: [Case] = [
        Case(name: "success", arguments: ["noop"], code: 0, says: "lane noop succeeded"),
        Case(name: "a lane fails", arguments: ["fails"], code: 1, says: "the lane threw PlainError"),
        Case(name: "an unknown lane", arguments: ["nope"], code: 2, says: "unknown lane `nope`"),
        Case(name: "an ill-typed option", arguments: ["noop", "--what"], code: 2, says: "lane noop"),
        Case(name: "a defect an action reports", arguments: ["defect"], code: 70, says: "the cache index points past its end"),
        Case(name: "a crash in an action", arguments: ["crash"], code: 70, says: "the lane program crashed"),
    ]

    @Test(arguments: cases)
    func laneEndings(_ example: Case) throws {
        let repo = try repositoryWithLanes(exitLanes)
        let result = try repo.shiplane(example.arguments)
        #expect(result.status == example.code, "\(result.all)")
        #expect(result.all.contains(example.says), "\(result.all)")
    }

    @Test func aCrashIsReportedAsADefectInTheJSONReport() throws {
        let repo = try repositoryWithLanes(exitLanes)
        let result = try repo.shiplane(["--report-json", "report.json", "crash"])
        #expect(result.status == 70, "\(result.all)")
        #expect(result.stderr.contains("Fatal error"), "the runtime's own message, with the lane's file and line, is kept")
        #expect(result.stderr.contains("This is a defect"))
        let report = try #require(repo.read("report.json"))
        #expect(report.contains("\"exitCode\" : 70"))
        #expect(report.contains("the lane program crashed (SIGILL"), "\(report)")
        #expect(result.stderr.contains("the crash message above names the file and line"), "\(result.stderr)")
    }

    /// A crash that printed no message (a bad pointer in a library, with the runtime's backtracer
    /// off, as it is in a static lane program) is not told to read a message that is not there:
    /// it says how to get a backtrace. With the backtracer's report, the hint points at it.
    @Test func aCrashWithoutAMessageSaysHowToGetABacktrace() throws {
        let repo = try repositoryWithLanes(exitLanes)
        let silent = try repo.shiplane(["bad-pointer"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(silent.status == 70, "\(silent.all)")
        #expect(silent.stderr.contains("the lane program crashed (SIGSEGV)"), "\(silent.all)")
        #expect(!silent.stderr.contains("Program crashed") && !silent.stderr.contains("Fatal error"), "\(silent.all)")
        #expect(!silent.stderr.contains("the crash message above"), "\(silent.all)")
        #expect(silent.stderr.contains("it printed no crash message; run it again with SWIFT_BACKTRACE=enable=yes"), "\(silent.all)")
        let reported = try repo.shiplane(["bad-pointer"], environment: ["SWIFT_BACKTRACE": "enable=yes"])
        #expect(reported.status == 70, "\(reported.all)")
        if reported.stderr.contains("Program crashed") {
            #expect(reported.stderr.contains("the crash message above names the file and line"), "\(reported.all)")
        } else {
            // A static lane program (the bundle) has no backtracer unless it is told where it is.
            #expect(reported.stderr.contains("it printed no crash message"), "\(reported.all)")
        }
    }

    @Test func lanesThatDoNotCompileExit3() throws {
        let repo = try repositoryWithLanes(["Lanes/Broken.swift": "import Shiplane\nstruct Broken: Lane { func run(_ lane: LaneContext) async throws { undefinedThing() } }\n"])
        let result = try repo.shiplane(["broken"])
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderr.contains("Lanes/Broken.swift:2:"))
    }

    @Test func noLanesFolderExits4() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["release"])
        #expect(result.status == 4, "\(result.all)")
    }

    @Test func nothingToReleaseExits5() throws {
        let repo = try versionedRepository()
        try repo.write("notes.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: tidy")
        let result = try repo.shiplane(["bump", "auto"])
        #expect(result.status == 5, "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    /// SIGTERM (what CI sends on cancel) and SIGINT sent to `shiplane` alone reach the lane
    /// program through the supervisor: the run rolls back and exits 130.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalToShiplaneRollsBackAndExits130(_ signal: Int32) throws {
        let repo = try repositoryWithLanes(exitLanes)
        _ = try repo.shiplane(["lanes"])  // compile first, so the signal lands during the lane
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = ["wait"]
        process.currentDirectoryURL = URL(fileURLWithPath: repo.path)
        process.environment = repo.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        let started = Date()
        try process.run()
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: repo.path + "/wait-mark.txt") { usleep(20_000) }
        usleep(300_000)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(text)")
        #expect(Date().timeIntervalSince(started) < 20, "the lane's `sh -c 'sleep 30'` was stopped, grandchild included, not waited for")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/wait-mark.txt"), "\(text)")
        #expect(text.contains("lane wait was interrupted"), "\(text)")
        #expect(text.contains("undone: remove wait-mark.txt"), "\(text)")
    }
}

extension ExitCodeTests {
    /// A second Ctrl-C during the rollback does not cut it short: the slow undo still runs.
    @Test func aSecondInterruptDoesNotSkipTheRollback() throws {
        let repo = try repositoryWithLanes(exitLanes)
        _ = try repo.shiplane(["lanes"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = ["slow-undo"]
        process.currentDirectoryURL = URL(fileURLWithPath: repo.path)
        process.environment = repo.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: repo.path + "/wait-mark.txt") { usleep(20_000) }
        usleep(300_000)
        kill(process.processIdentifier, SIGINT)
        usleep(600_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(text)")
        #expect(repo.read("slow-undo.txt") == "undone", "the rollback ran to its end: \(text)")
        #expect(text.contains("Still stopping"), "\(text)")
    }
}

/// Report paths are checked before anything runs: a release never happens and then fails to say so.
@Suite("Report paths are checked before any effect", .offThePool)
struct UnwritableReportPathTests {
    @Test func anUnwritableReportStopsTheRunBeforeItStarts() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["--report-json", "missing/report.json", "--junit", "README.md/junit.xml", "bump", "patch", "--commit"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("--report-json") && result.stderr.contains("missing does not exist"), "\(result.all)")
        #expect(result.stderr.contains("--junit"), "both problems are listed")
        #expect(repo.read("VERSION") == "1.2.3\n", "nothing ran")
        #expect(try repo.git("log", "--format=%s", "-1") == "chore: version files")
    }
}

/// Lane declaration mistakes are errors with the lane file's line, not lanes that vanish or shadow each other.
@Suite("Lane declaration mistakes", .offThePool)
struct LaneDeclarationTests {
    @Test func privateAndGenericLanesAreCompileErrorsWithTheirLine() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Ok.swift": "import Shiplane\nstruct Ok: Lane { func run(_ lane: LaneContext) async throws {} }\n",
            "Lanes/Bad.swift": "import Shiplane\n\nprivate struct Hidden: Lane { func run(_ lane: LaneContext) async throws {} }\nstruct Box<T>: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let result = try repo.shiplane(["ok"])
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderr.contains("Lanes/Bad.swift:3:1: error: lane `Hidden` is private"), "\(result.all)")
        #expect(result.stderr.contains("Lanes/Bad.swift:4:1: error: lane `Box` is generic"), "\(result.all)")
    }

    @Test func twoLanesWithOneNameAndABuiltInNameAreErrors() throws {
        let repo = try repositoryWithLanes([
            "Lanes/A.swift": "import Shiplane\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws {} }\n",
            "Lanes/B.swift": "import Shiplane\nstruct ShipLane: Lane { func run(_ lane: LaneContext) async throws {} }\n\nstruct Bump: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let result = try repo.shiplane(["lanes"])
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderr.contains("Lanes/B.swift:2: lane `ShipLane` has the command-line name `ship`, as has `Ship` at Lanes/A.swift:2"), "\(result.all)")
        #expect(result.stderr.contains("Lanes/B.swift:4: lane `Bump` is named `bump`, which is Shiplane's own command"), "\(result.all)")
    }
}

@Suite("Typos of built-in commands", .offThePool)
struct CommandTypoTests {
    @Test func aMistypedCommandIsNamed() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["chnagelog"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("unknown command `chnagelog`") && result.stderr.contains("did you mean: changelog"), "\(result.all)")
    }

    @Test func withLanesTheLaneHostSuggestsBuiltInsToo() throws {
        let repo = try repositoryWithLanes(["Lanes/Ship.swift": "import Shiplane\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws {} }\n"])
        let result = try repo.shiplane(["versoin"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("did you mean: version"), "\(result.all)")
    }

    @Test func helpListsTheEnvOption() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--env <NAME>"), "\(result.stdout)")
    }
}
