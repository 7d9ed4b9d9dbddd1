import Foundation
import Testing

/// A lanes folder used by several tests: options of each kind, a private lane, lanes calling lanes.
let sampleLanes: [String: String] = [
    "Lanes/Release.swift": #"""
    import Shiplane

    enum Bump: String, ExpressibleByArgument, CaseIterable {
        case major, minor, patch
    }

    struct Release: Lane {
        static let summary = "Pretend to release"

        @Option(help: "How far to bump")
        var bump: Bump = .patch

        @Option(help: "Build number")
        var buildNumber: Int?

        @Flag(help: "Mark as prerelease")
        var prerelease = false

        @Option(help: "Branch pattern")
        var branch: String = "main|release/.+"

        func run(_ lane: LaneContext) async throws {
            try lane.ensureGitBranch(matching: branch)
            let artifact = try await lane.call(Package.self) { $0.name = "app-\(bump.rawValue)" }
            try await lane.sh("echo", "bump=\(bump.rawValue) build=\(buildNumber ?? 0) prerelease=\(prerelease) artifact=\(artifact)")
        }
    }

    struct Package: Lane {
        static let isPrivate = true
        @Option var name: String = "app"
        func run(_ lane: LaneContext) async throws -> String {
            try await lane.sh("echo", "packaging \(name)")
            return name + ".tar.gz"
        }
    }
    """#,
    "Lanes/Failing.swift": #"""
    import Shiplane

    struct PlainError: Error {}

    struct Explode: Lane {
        static let summary = "Throw a plain Swift error"
        func run(_ lane: LaneContext) async throws {
            try await lane.sh("true")
            throw PlainError()
        }
    }

    struct BadCommand: Lane {
        func run(_ lane: LaneContext) async throws {
            try await lane.sh("sh", "-c", "echo compiling; echo 'error: something broke' >&2; exit 7")
        }
    }

    struct Clean: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.ensureGitStatusClean()
        }
    }

    struct Tool: Lane {
        @Option var constraint: String = ">= 2.0"
        func run(_ lane: LaneContext) async throws {
            try await lane.ensureTool("git", version: constraint)
        }
    }

    struct Hooks: LaneHooks {
        func beforeLane(_ lane: LaneInfo, context: LaneContext) async throws { context.log("hook before \(lane.name)") }
        func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async { context.log("hook error \(lane.name)") }
        func always(_ lane: LaneInfo, outcome: LaneOutcome, context: LaneContext) async { context.log("hook always \(lane.name)") }
    }
    """#,
]

func repositoryWithLanes(_ files: [String: String] = sampleLanes, commit: Bool = true) throws -> TemporaryRepository {
    let repo = try TemporaryRepository()
    for (path, text) in files { try repo.write(path, text) }
    if commit {
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Add lanes")
    }
    return repo
}

@Suite("shiplane <lane>: compile, cache, options, errors", .serialized, .offThePool)
struct LaneCommandTests {
    @Test func runsALaneWithTypedAndKeyValueOptionsAndCallsAPrivateLane() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["release", "bump:minor", "--build-number", "42", "prerelease:true"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("bump=minor build=42 prerelease=true artifact=app-minor.tar.gz"))
        #expect(result.stdout.contains("packaging app-minor"))
        #expect(result.stdout.contains("lane release succeeded"))
        #expect(result.stdout.contains("Lanes/Release.swift:23"), "call sites point at the lane file")
        #expect(result.stdout.contains("Lanes/Release.swift:25"))
        #expect(result.stdout.contains("hook before release") && result.stdout.contains("hook before package"))
    }

    @Test func runsFromASubfolder() throws {
        let repo = try repositoryWithLanes()
        try repo.write("Sources/App/x.txt", "x")
        let result = try repo.shiplane(["release"], in: "Sources/App")
        #expect(result.status == 0, "\(result.all)")
    }

    @Test func secondRunUsesTheCacheAndAnEditRebuilds() throws {
        let cache = NSTemporaryDirectory() + "shiplane-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let repo = try repositoryWithLanes()
        let first = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(first.status == 0)
        #expect(first.stderr.contains("Compiling Lanes/"))
        let second = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(second.status == 0)
        #expect(!second.stderr.contains("Compiling"))
        try repo.write("Lanes/Extra.swift", "import Shiplane\nstruct Extra: Lane { func run(_ lane: LaneContext) async throws {} }\n")
        let third = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(third.stderr.contains("Compiling"))
        #expect(third.stdout.contains("extra"))
    }

    /// The compiler's driver leaves a `TemporaryDirectory.*` folder in TMPDIR after every
    /// compile (18,000 had built up on one machine): each compile gets a folder of its own, and it
    /// is gone afterwards, after a compile that failed too.
    @Test func aLaneCompileLeavesNothingInTheTemporaryFolder() throws {
        let cache = NSTemporaryDirectory() + "shiplane-cache-\(UUID().uuidString)"
        let temporary = NSTemporaryDirectory() + "shiplane-tmp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: cache)
            try? FileManager.default.removeItem(atPath: temporary)
        }
        let repo = try repositoryWithLanes()
        let compiled = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache, "TMPDIR": temporary])
        #expect(compiled.status == 0 && compiled.stderr.contains("Compiling Lanes/"), "\(compiled.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
        try repo.write("Lanes/Broken.swift", "import Shiplane\nstruct Broken: Lane { func run(_ lane: LaneContext) async throws { undefined() } }\n")
        let failed = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache, "TMPDIR": temporary])
        #expect(failed.status != 0 && failed.all.contains("undefined"), "\(failed.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    /// The lane program and `shiplane` end with `_exit` once everything is written: `exit` ran
    /// the library destructors while Dispatch threads still used them, and about 3 in 100 runs of
    /// an empty lane crashed after the lane had succeeded (exit 70, "the lane program crashed").
    /// 100 runs: the old ending passes this with a chance of about 5 in 100.
    @Test func anEmptyLaneRunAHundredTimesNeverCrashesAtItsEnd() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Noop.swift", "import Shiplane\nstruct Noop: Lane { func run(_ lane: LaneContext) async throws {} }\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "lanes")
        var failures: [String] = []
        for attempt in 1...100 {
            let result = try repo.shiplane(["noop"])
            if result.status != 0 { failures.append("run \(attempt): exit \(result.status): \(result.all.suffix(300))") }
        }
        #expect(failures.isEmpty, "\(failures.count) of 100 runs failed:\n\(failures.prefix(3).joined(separator: "\n"))")
    }

    @Test func concurrentFirstRunsDoNotCorruptTheCache() throws {
        let cache = NSTemporaryDirectory() + "shiplane-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let repo = try repositoryWithLanes()
        var environment = repo.environment
        environment["SHIPLANE_CACHE_DIR"] = cache
        let commandEnvironment = environment
        nonisolated(unsafe) var results: [CommandOutput?] = [nil, nil, nil]
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            results[index] = try? runProgram(shiplaneBinary, ["release"], in: repo.path, environment: commandEnvironment)
        }
        // Each compiled and ran the lane, or found another run holding the repository (exit 6).
        for result in results {
            #expect(result?.status == 0 || result?.status == 6, "\(result?.all ?? "did not run")")
        }
        #expect(results.contains { $0?.status == 0 })
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache + "/lanes")
        #expect(entries.filter { !$0.hasPrefix(".") }.count == 1)
        #expect(entries.filter { $0.hasPrefix(".staging") }.isEmpty, "staging folders are cleaned up")
    }

    @Test func lanesListsSummariesAndOptionsAsTextAndJSON() throws {
        let repo = try repositoryWithLanes()
        let text = try repo.shiplane(["lanes"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("release"))
        #expect(text.stdout.contains("Pretend to release"))
        #expect(text.stdout.contains("--build-number"))
        #expect(text.stdout.contains("Private (callable from lanes): package"))
        let json = try repo.shiplane(["lanes", "--json"])
        struct Listing: Decodable {
            struct Lane: Decodable {
                struct Option: Decodable { var name: String; var kind: String; var defaultValue: String? }
                var name: String; var summary: String; var isPrivate: Bool; var options: [Option]
            }
            var lanes: [Lane]
        }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(json.stdout.utf8))
        let release = try #require(listing.lanes.first { $0.name == "release" })
        #expect(release.options.map(\.name) == ["--bump", "--build-number", "--prerelease", "--branch"])
        #expect(release.options.first { $0.name == "--prerelease" }?.kind == "flag")
        #expect(release.options.first { $0.name == "--bump" }?.defaultValue == "patch")
        #expect(listing.lanes.first { $0.name == "package" }?.isPrivate == true)
    }

    /// `shiplane lanes` lists from the catalog the lanes program wrote when it was compiled: the
    /// program does not start again (its lane's summary, which leaves a mark, is not read), and
    /// the text and JSON are what the program itself prints (checked by removing the catalog).
    @Test func lanesAreListedWithoutStartingTheLanesProgram() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": #"""
            import Foundation
            import Shiplane
            struct Release: Lane {
                static var summary: String {
                    if let mark = ProcessInfo.processInfo.environment["LANE_MARK"] {
                        FileManager.default.createFile(atPath: mark, contents: nil)
                    }
                    return "Release it"
                }
                @Option(help: "How far") var level: String = "patch"
                func run(_ lane: LaneContext) async throws {}
            }
            """#,
        ])
        let cache = repo.root + "/catalog-cache"
        let mark = repo.root + "/summary-read"
        let environment = ["SHIPLANE_CACHE_DIR": cache, "LANE_MARK": mark]
        let first = try repo.shiplane(["lanes"], environment: environment)
        #expect(first.status == 0, "\(first.all)")
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: cache + "/lanes").map { cache + "/lanes/\($0)/catalog.json" }
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(catalogs.count == 1, "the compile left one catalog beside the program")
        try? FileManager.default.removeItem(atPath: mark)
        let text = try repo.shiplane(["lanes"], environment: environment)
        let json = try repo.shiplane(["lanes", "--json"], environment: environment)
        #expect(text.status == 0 && json.status == 0, "\(text.all)\(json.all)")
        #expect(text.stdout.contains("release  Release it") && text.stdout.contains("--level <level>"), "\(text.stdout)")
        #expect(!FileManager.default.fileExists(atPath: mark), "no lanes program started")
        for catalog in catalogs { try FileManager.default.removeItem(atPath: catalog) }
        let fromProgram = try repo.shiplane(["lanes"], environment: environment)
        let jsonFromProgram = try repo.shiplane(["lanes", "--json"], environment: environment)
        #expect(FileManager.default.fileExists(atPath: mark), "without a catalog the program lists")
        #expect(fromProgram.stdout == text.stdout)
        #expect(jsonFromProgram.stdout == json.stdout)
        #expect(first.stdout == text.stdout)
    }

    @Test func laneHelpShowsItsOptions() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["release", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("shiplane release — Pretend to release"))
        #expect(result.stdout.contains("--bump <bump>"))
    }

    @Test func unknownLaneSuggestsTheClosestName() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["relase"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown lane `relase`"))
        #expect(result.stderr.contains("did you mean: release"))
    }

    @Test func privateLanesCannotBeRunFromTheCommandLine() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["package"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("private"))
    }

    @Test(arguments: [
        (["release", "--bump", "sideways"], "sideways"),
        (["release", "--build-number", "many"], "many"),
        (["release", "--no-such-option"], "no-such-option"),
    ])
    func illTypedOrUnknownOptionsAreUsageErrors(arguments: [String], mentioned: String) throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(arguments)
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains(mentioned))
        #expect(result.stderr.contains("shiplane release --help"))
    }

    @Test func aMissingRequiredOptionIsAUsageError() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Deploy.swift": "import Shiplane\nstruct Deploy: Lane {\n  @Option var target: String\n  func run(_ lane: LaneContext) async throws {}\n}\n",
        ])
        let result = try repo.shiplane(["deploy"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--target"))
    }

    @Test func aPlainErrorFromALaneIsWrappedAndExitsOne() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["explode"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("lane explode failed"))
        #expect(result.stderr.contains("PlainError"))
        #expect(result.stdout.contains("hook error explode"))
        #expect(result.stdout.contains("hook always explode"))
    }

    @Test func aFailingCommandShowsItsExitCodeLastOutputAndCallSite() throws {
        let repo = try repositoryWithLanes()
        let report = repo.root + "/report.json"
        let junit = repo.root + "/junit.xml"
        let result = try repo.shiplane(["bad-command", "--report-json", report, "--junit", junit])
        #expect(result.status == 1)
        #expect(result.stderr.contains("sh failed at Lanes/Failing.swift:15"))
        #expect(result.stderr.contains("exited with code 7"))
        #expect(result.stderr.contains("error: something broke"))
        let json = try #require(FileManager.default.contents(atPath: report))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["outcome"] as? String == "failed")
        #expect(object["exitCode"] as? Int == 1)
        let xml = String(decoding: try #require(FileManager.default.contents(atPath: junit)), as: UTF8.self)
        #expect(xml.contains("<failure"))
    }

    @Test func dirtyTreeListsTheFiles() throws {
        let repo = try repositoryWithLanes()
        try repo.write("untracked.txt", "x")
        try repo.write("README.md", "changed\n")
        let result = try repo.shiplane(["clean"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the working tree is not clean: 1 modified, 1 untracked"))
        #expect(result.stderr.contains("?? untracked.txt"))
        #expect(result.stderr.contains(" M README.md"))
    }

    @Test func detachedHeadIsAnErrorUnlessCISaysTheBranch() throws {
        let repo = try repositoryWithLanes()
        try repo.git("checkout", "-q", "--detach")
        let plain = try repo.shiplane(["release"])
        #expect(plain.status == 4)
        #expect(plain.stderr.contains("HEAD is detached"))
        let ci = try repo.shiplane(["release"], environment: ["GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"])
        #expect(ci.status == 0, "\(ci.all)")
        let wrong = try repo.shiplane(["release"], environment: ["GITHUB_REF_NAME": "feature/x", "GITHUB_REF_TYPE": "branch"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("branch feature/x does not match"))
        #expect(wrong.stderr.contains("GITHUB_REF_NAME"))
    }

    @Test func branchPatternIsAnchored() throws {
        let repo = try repositoryWithLanes()
        try repo.git("checkout", "-q", "-b", "main-old")
        let result = try repo.shiplane(["release"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("branch main-old does not match"))
    }

    @Test func anInvalidRegularExpressionIsExplained() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["release", "--branch", "main(("])
        #expect(result.status == 2, "a bad argument to an action is a usage error")
        #expect(result.stderr.contains("invalid regular expression for the branch: main(("))
    }

    @Test func ensureToolChecksTheInstalledVersion() throws {
        let repo = try repositoryWithLanes()
        #expect(try repo.shiplane(["tool"]).status == 0)
        let tooNew = try repo.shiplane(["tool", "--constraint", ">= 999"])
        #expect(tooNew.status == 1)
        #expect(tooNew.stderr.contains("does not satisfy >= 999"))
    }

    @Test func dryRunPrintsCommandsInsteadOfRunningThem() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["--dry-run", "bad-command"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would run: sh -c"))
        #expect(result.stdout.contains("dry run completed"))
    }
}
