import Foundation
import Testing

/// A lane whose `sh` result holds every kind of secret a run knows: an environment token, a
/// variable whose name says secret, a value handed to `sh(environment:)`, one `registerSecret`
/// adds, a lane option declared `Secret`, and the lines of a private key. The handed and the
/// registered values are made at run time, so the compiled lane does not hold them.
private let leakyLane = #"""
import Foundation
import Shiplane
struct Leaky: Lane {
    @Option(help: "the deploy key") var deployKey: Secret
    @Option(help: "succeed, fail or hang") var ending: String = "succeed"
    func run(_ lane: LaneContext) async throws {
        let registered = "reg-s3cr3t-" + String(4242 * 3)
        lane.registerSecret(registered)
        _ = try await lane.shell(
            "echo token=$GITHUB_TOKEN custom=$CUSTOM_SECRET pw=$DB_PASSWORD reg=" + registered + " key=" + deployKey.value + "; printf '%s\\n' \"$SIGNING_KEY\"",
            environment: ["DB_PASSWORD": "dbpw-" + String(31337 * 2)])
        _ = try lane.bumpVersion(.patch)
        switch ending {
        case "fail": throw ShiplaneError("the lane stops here")
        case "hang": _ = try await lane.shell("sleep 60")
        default: break
        }
    }
}
"""#

/// A lane that learns a token from a command's output (recorded as that step's result) and only
/// then registers it as a secret, then fails without rolling back: the record stays on disk.
private let lateLane = #"""
import Foundation
import Shiplane
struct Late: Lane {
    func run(_ lane: LaneContext) async throws {
        let issued = try await lane.shell("echo tok-late-" + String(7777 * 3))
        _ = try lane.bumpVersion(.patch)
        lane.registerSecret(issued.trimmingCharacters(in: .whitespacesAndNewlines))
        _ = try await lane.shell("true")
        throw ShiplaneError("the lane stops here")
    }
}
"""#

@Suite("No secret on disk in clear: the record, the lock, saved copies and the lane cache", .serialized, .offThePool)
struct SecretsOnDiskTests {
    static let token = "ghp_" + String(repeating: "Zq8", count: 12)
    static let custom = "custom-s3cr3t-" + "81fe29"
    static let handed = "dbpw-" + String(31337 * 2)
    static let registered = "reg-s3cr3t-" + String(4242 * 3)
    static let deployKey = "dkSECRET" + "opt66"
    static let keyLine = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + "C7secretline"
    static let privateKey = "-----BEGIN PRIVATE KEY-----\n\(keyLine)\nAnotherLineOfTheKeyZZ9x\n-----END PRIVATE KEY-----"
    static let secrets = [token, custom, handed, registered, deployKey, keyLine, "AnotherLineOfTheKeyZZ9x"]

    enum Ending: String, CaseIterable, Sendable {
        case succeeds, failsAndRollsBack, failsWithNoRollback, killed, killedThenRolledBack
    }

    private var environment: [String: String] {
        ["GITHUB_TOKEN": Self.token, "CUSTOM_SECRET": Self.custom, "SIGNING_KEY": Self.privateKey]
    }

    private func repository() throws -> TemporaryRepository {
        let repo = try versionedRepository()
        try repo.write("Lanes/Leaky.swift", leakyLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        return repo
    }

    /// Every file under `folder` (recursively) that holds one of the secrets, with which.
    private func leaks(under folder: String) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            guard let data = FileManager.default.contents(atPath: folder + "/" + relative) else { continue }
            for secret in Self.secrets where data.range(of: Data(secret.utf8)) != nil {
                found.append("\(relative): \(secret)")
            }
        }
        return found
    }

    /// The permission bits of `path` (FileManager's, not `stat`'s fields: which C module owns
    /// `struct stat` in a test build varies, and its members need that module imported).
    private func mode(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber).map { $0.intValue & 0o777 }
    }

    @Test(arguments: Ending.allCases)
    func noFileUnderTheRunFolderOrTheCacheHoldsASecret(_ ending: Ending) throws {
        let repo = try repository()
        var arguments = ["leaky", "--deploy-key", Self.deployKey]
        switch ending {
        case .succeeds: arguments += ["--ending", "succeed"]
        case .failsAndRollsBack: arguments += ["--ending", "fail"]
        case .failsWithNoRollback: arguments += ["--ending", "fail", "--no-rollback"]
        case .killed, .killedThenRolledBack: arguments += ["--ending", "hang"]
        }
        if ending == .killed || ending == .killedThenRolledBack {
            #expect(try repo.shiplane(["lanes"]).status == 0, "the lane compiles")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: shiplaneBinary)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: repo.path)
            process.environment = repo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Killed once the bump is written (the hanging command runs).
            for _ in 0..<600 where repo.read("VERSION") != "1.2.4\n" { usleep(50_000) }
            usleep(300_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(repo.read(".git/shiplane/run.json") != nil, "the killed run left its record")
            if ending == .killedThenRolledBack {
                let rollback = try repo.shiplane(["rollback"], environment: environment)
                #expect(rollback.status == 0, "\(rollback.all)")
            }
        } else {
            let result = try repo.shiplane(arguments, environment: environment)
            #expect(result.status == (ending == .succeeds ? 0 : 1), "\(ending): \(result.all)")
            #expect(!Self.secrets.contains { result.all.contains($0) }, "\(result.all)")
        }
        if ending == .failsWithNoRollback {
            #expect(repo.read(".git/shiplane/run.json") != nil, "the record stays")
        }
        #expect(leaks(under: repo.path + "/.git/shiplane").isEmpty, "\(ending): \(leaks(under: repo.path + "/.git/shiplane"))")
        #expect(leaks(under: sharedLaneCache).isEmpty, "\(ending): \(leaks(under: sharedLaneCache))")
        for file in ["lock", "run.json"] {
            let path = repo.path + "/.git/shiplane/" + file
            if let mode = mode(path) { #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8))") }
        }
        #expect(!(repo.read(".git/shiplane/lock") ?? "").contains("--deploy-key"), "the lock keeps no arguments")
    }

    /// A value that is a secret only from the middle of the run on (a token a command printed,
    /// then registered): the step result and record lines written before hold it, and the record
    /// is written again without it as soon as it is registered (issue 39).
    @Test func aValueRegisteredAfterAStepRecordedItIsInNoFile() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Late.swift", lateLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let token = "tok-late-" + String(7777 * 3)
        let result = try repo.shiplane(["late", "--no-rollback"])
        #expect(result.status == 1, "\(result.all)")
        #expect(repo.read(".git/shiplane/run.json") != nil, "the record stays")
        var found: [String] = []
        let folder = repo.path + "/.git/shiplane"
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: folder + "/" + relative), data.range(of: Data(token.utf8)) != nil { found.append(relative) }
        }
        #expect(found.isEmpty, "\(found)")
        #expect(repo.read(".git/shiplane/run.json")?.contains("\"name\":\"bumpVersion\"") == true, "later steps are recorded: \(repo.read(".git/shiplane/run.json") ?? "")")
    }

    /// A file the run rewrites already held a secret (a token committed to package.json): its
    /// saved copy is the file as it was, byte for byte — redacted, a rollback would write `***`
    /// into the user's file — kept readable by this user only (folder 0700, copy 0600) and removed
    /// with the record; the rollback puts the very bytes back.
    @Test func aSavedCopyIsTheUsersFileExactlyAndOnlyTheirs() throws {
        let repo = try repository()
        let original = "{\n  \"name\": \"app\",\n  \"version\": \"1.2.3\",\n  \"publishToken\": \"\(Self.custom)\"\n}\n"
        try repo.write("package.json", original)
        try repo.git("commit", "-q", "-am", "chore: the token in package.json")
        let failed = try repo.shiplane(["leaky", "--deploy-key", Self.deployKey, "--ending", "fail", "--no-rollback"], environment: environment)
        #expect(failed.status == 1, "\(failed.all)")
        #expect(repo.read("package.json") != original, "the bump rewrote it")
        let saved = repo.path + "/.git/shiplane/saved"
        #expect(mode(saved) == 0o700, "\(String(mode(saved) ?? 0, radix: 8))")
        let copies = (try? FileManager.default.contentsOfDirectory(atPath: saved)) ?? []
        let contents = copies.compactMap { FileManager.default.contents(atPath: saved + "/" + $0) }
        #expect(contents.contains(Data(original.utf8)), "the copy is the file as it was: \(copies)")
        for copy in copies { #expect(mode(saved + "/" + copy) == 0o600, "\(copy)") }
        #expect(!(repo.read(".git/shiplane/run.json") ?? "").contains(Self.custom), "the record names the copy, never its bytes")

        let rollback = try repo.shiplane(["rollback"], environment: environment)
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(repo.read("package.json") == original, "the very bytes are back")
        #expect(!FileManager.default.fileExists(atPath: saved), "no copy outlives the run")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    /// The same command, given its secret option again, resumes a run whose record keeps the
    /// option redacted; `shiplane resume` says to run that command.
    @Test func theSameCommandWithItsSecretAgainResumesTheRun() throws {
        let repo = try repository()
        let arguments = ["leaky", "--deploy-key", Self.deployKey, "--ending", "fail", "--no-rollback"]
        let failed = try repo.shiplane(arguments, environment: environment)
        #expect(failed.status == 1, "\(failed.all)")
        #expect(repo.read(".git/shiplane/run.json")?.contains("***") == true)
        let resume = try repo.shiplane(["resume"], environment: environment)
        #expect(resume.status != 0, "\(resume.all)")
        #expect(resume.stderr.contains("secret on its command line"), "\(resume.all)")
        let again = try repo.shiplane(["leaky", "--deploy-key", Self.deployKey, "--ending", "succeed"], environment: environment)
        #expect(again.status == 7, "another command's run is unfinished: \(again.all)")
        #expect(again.stderr.contains("with the secret option's real value"), "\(again.all)")
        let same = try repo.shiplane(arguments.filter { $0 != "--no-rollback" }, environment: environment)
        #expect(same.stderr.contains("Resuming the unfinished run"), "\(same.all)")
    }

    /// A temporary record file a killed write left (`run.json.tmp-PID` of a process that is gone)
    /// is removed by the next run.
    @Test func aTemporaryRecordFileOfADeadProcessIsCleanedByTheNextRun() throws {
        let repo = try versionedRepository()
        try FileManager.default.createDirectory(atPath: repo.path + "/.git/shiplane/saved", withIntermediateDirectories: true)
        for name in ["run.json.tmp-999999", "saved/step1-x.tmp-999998"] {
            try repo.write(".git/shiplane/" + name, "{}")
        }
        let result = try repo.shiplane(["bump", "patch"])
        #expect(result.status == 0, "\(result.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json.tmp-999999"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/saved/step1-x.tmp-999998"))
    }
}
