import Foundation
import Testing

@Suite("Bad input: clear message, documented exit code, nothing changed", .offThePool)
struct BadInputTests {
    @Test func notAGitRepository() throws {
        let folder = NSTemporaryDirectory() + "shiplane-plain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/home", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = isolatedEnvironment(home: folder + "/home")
        environment["GIT_CEILING_DIRECTORIES"] = NSTemporaryDirectory()
        let result = try runProgram(shiplaneBinary, ["release"], in: folder, environment: environment)
        #expect(result.status == 4)
        #expect(result.stderr.contains("not a git repository"))
        #expect(result.stderr.contains("git init"))
    }

    @Test func aBareRepository() throws {
        let repo = try TemporaryRepository(bare: true)
        let result = try repo.shiplane(["release"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("bare repository"))
    }

    @Test func noLanesFolderSaysHowToStart() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["release"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("no Lanes/ folder"))
        #expect(result.stderr.contains("shiplane init"))
    }

    @Test func aRepositoryWithNoCommits() throws {
        let repo = try TemporaryRepository(commit: false)
        try repo.write("Lanes/Check.swift", "import Shiplane\nstruct Check: Lane {\n  func run(_ lane: LaneContext) async throws { try lane.ensureGitBranch(matching: \"main\") }\n}\n")
        let result = try repo.shiplane(["check"])
        #expect(result.status == 4, "an unborn branch is the environment, wherever in the lane it is found")
        #expect(result.stderr.contains("no commits yet"))
    }

    @Test func aCompileErrorPointsAtTheUsersFileAndLine() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Broken.swift", "import Shiplane\n\nstruct Broken: Lane {\n  func run(_ lane: LaneContext) async throws {\n    try lane.noSuchAction()\n  }\n}\n")
        let result = try repo.shiplane(["broken"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("Lanes/Broken.swift:5:"))
        #expect(!result.stderr.contains("staging"), "no cache path in the message")
        #expect(!result.stderr.contains(repo.path + "/Lanes"), "paths are relative to the repository")
    }

    @Test func swiftcMissing() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["release"], environment: ["SHIPLANE_SWIFTC": "/nonexistent/swiftc", "SHIPLANE_CACHE_DIR": repo.root + "/cache"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("swiftc was not found"))
    }

    @Test func noLanesDeclared() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Notes.swift", "// struct Release: Lane {}\nlet x = 1\n")
        let result = try repo.shiplane(["release"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("no lanes found"))
    }

    @Test func aGlobalOptionWithoutValue() throws {
        let repo = try repositoryWithLanes()
        let result = try repo.shiplane(["release", "--report-json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--report-json needs a value"))
    }

    @Test func unknownActionIsAUsageError() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["action", "ensureGitBrnach"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("did you mean: ensureGitBranch"))
    }
}

@Suite("shiplane init, actions, and Shiplane's own lanes", .offThePool)
struct ScaffoldTests {
    @Test func initCreatesALaneThatRuns() throws {
        let repo = try TemporaryRepository()
        let created = try repo.shiplane(["init"])
        #expect(created.status == 0, "\(created.all)")
        #expect(repo.read("Lanes/Check.swift") != nil)
        let again = try repo.shiplane(["init"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        let run = try repo.shiplane(["check", "allow_dirty:true"])
        #expect(run.status == 0, "\(run.all)")
    }

    @Test func actionsAreListedAndDescribed() throws {
        let repo = try TemporaryRepository()
        let list = try repo.shiplane(["actions"])
        #expect(list.status == 0)
        for name in ["ensureGitBranch", "ensureGitStatusClean", "ensureTool", "sh"] { #expect(list.stdout.contains(name)) }
        let one = try repo.shiplane(["action", "sh"])
        #expect(one.stdout.contains("readOnly"))
        #expect(one.stdout.contains("DRY RUN"))
    }

    @Test func shiplanesOwnCheckLaneCompilesAndRuns() throws {
        let repo = try TemporaryRepository()
        let lanes = packageRoot + "/Lanes"
        for name in try FileManager.default.contentsOfDirectory(atPath: lanes) where name.hasSuffix(".swift") {
            let text = try String(contentsOfFile: lanes + "/" + name, encoding: .utf8)
            try repo.write("Lanes/" + name, text)
        }
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "lanes")
        let listed = try repo.shiplane(["lanes"])
        #expect(listed.stdout.contains("check"))
        let result = try repo.shiplane(["check", "--dry-run"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would run: Scripts/test"))
    }
}

@Suite("Scripts/install: an installed shiplane compiles lanes from its prefix", .offThePool)
struct InstallTests {
    @Test func anInstalledPrefixRunsLanes() throws {
        let prefix = NSTemporaryDirectory() + "shiplane-prefix-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let install = try runProgram(
            packageRoot + "/Scripts/install", ["--prefix", prefix, "--from-build", (shiplaneBinary as NSString).deletingLastPathComponent],
            in: packageRoot, environment: ProcessInfo.processInfo.environment
        )
        #expect(install.status == 0, "\(install.all)")
        #expect(FileManager.default.fileExists(atPath: prefix + "/lib/shiplane/Modules/Shiplane.swiftmodule"))
        let repo = try repositoryWithLanes()
        var environment = repo.environment
        environment["SHIPLANE_CACHE_DIR"] = repo.root + "/cache"
        let result = try runProgram(prefix + "/bin/shiplane", ["release", "bump:minor"], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("bump=minor"))
    }
}
