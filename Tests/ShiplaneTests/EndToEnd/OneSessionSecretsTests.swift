import Foundation
import Testing

/// A lane that prints a `.env` secret and two secrets that become known while it runs (one handed
/// to a command, one registered by lane code) on every channel lane code has, sets one as a CI
/// output, then fails with all three in its error.
private let leakingLane = #"""
import Foundation
import Shiplane
struct Leak: Lane {
    @Flag var crash = false
    func run(_ lane: LaneContext) async throws {
        let fromDotEnv = lane.environment["DEPLOY_TOKEN"] ?? "missing"
        let handed = "rt-" + "sh-4471e0aa19"
        let registered = "rt-" + "reg-90c1f22b7d"
        _ = try await lane.sh(["true"], environment: ["API_TOKEN": handed])
        lane.registerSecret(registered)
        for value in [fromDotEnv, handed, registered] {
            print("print: " + value)
            FileHandle.standardError.write(Data(("stderr: " + value + "\n").utf8))
            lane.log("log: " + value)
        }
        lane.setOutput("token", registered)
        if crash { fatalError("trap: \(fromDotEnv) \(handed) \(registered)") }
        throw ShiplaneError("failed with \(fromDotEnv), \(handed) and \(registered)")
    }
}
"""#

/// One session: a secret from `.env` and secrets registered while the lane runs are redacted by
/// the lane program and by the `shiplane` process that relays its output, on every channel.
@Suite("Secrets from .env and from the run, redacted on every channel by both processes", .serialized, .offThePool)
struct OneSessionSecretsTests {
    static let dotEnvSecret = "s3cr3t-value-" + "from-dotenv-1234"
    static let secrets = [dotEnvSecret, "rt-" + "sh-4471e0aa19", "rt-" + "reg-90c1f22b7d"]

    private func repository() throws -> TemporaryRepository {
        let repo = try versionedRepository()
        try repo.write(".env", "DEPLOY_TOKEN=\(Self.dotEnvSecret)\n")
        try repo.write(".gitignore", ".env\n")
        try repo.write("Lanes/Leak.swift", leakingLane)
        try repo.git("add", "Lanes", ".gitignore")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        return repo
    }

    @Test func theTerminalReportsAndCIFilesShowNoSecret() throws {
        let repo = try repository()
        let files = ["report.json", "junit.xml", "summary.md", "output.txt"].map { repo.root + "/" + $0 }
        let result = try repo.shiplane(["leak", "--report-json", files[0], "--junit", files[1]], environment: [
            "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": files[2], "GITHUB_OUTPUT": files[3],
        ])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("print: ***") && result.stderr.contains("stderr: ***"), "\(result.all)")
        #expect(result.all.contains("failed with ***, *** and ***"), "\(result.all)")
        for secret in Self.secrets {
            #expect(!result.all.contains(secret), "\(secret) on the terminal:\n\(result.all)")
            for file in files {
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                // A failed run writes no outputs (GITHUB_OUTPUT); every other file is written.
                #expect(text.isEmpty == file.hasSuffix("output.txt"), "\(file) written: \(text)")
                #expect(!text.contains(secret), "\(secret) in \(file):\n\(text)")
            }
        }
    }

    @Test func aCrashMessageShowsNoSecret() throws {
        let repo = try repository()
        let crashed = try repo.shiplane(["leak", "--crash"])
        #expect(crashed.status == 70, "\(crashed.all)")
        #expect(crashed.stderr.contains("trap: *** *** ***"), "\(crashed.all)")
        for secret in Self.secrets { #expect(!crashed.all.contains(secret), "\(secret):\n\(crashed.all)") }
    }
}

/// A lane option declared `Secret` is redacted everywhere from the moment it is parsed, and never
/// reaches origin with the run's record.
@Suite("Lane options declared Secret", .serialized, .offThePool)
struct SecretLaneOptionTests {
    @Test func aSecretOptionShowsNowhereAndIsNotPushed() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        try repo.write("Lanes/Ship.swift", #"""
        import Foundation
        import Shiplane
        struct Ship: Lane {
            @Option(help: "the deploy key") var apiKey: Secret
            func run(_ lane: LaneContext) async throws {
                print("key: " + apiKey.value + " shown as \(apiKey)")
                lane.log("log: " + apiKey.value)
                lane.setOutput("key", apiKey.value)
                _ = try lane.bumpVersion(.minor)
                try lane.commitVersionBump(message: "Version bump (" + apiKey.value + ")")
                try await lane.push()
                throw ShiplaneError("failed after the push with " + apiKey.value)
            }
        }
        """#)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: lanes")
        let key = "opt" + "SECRET55aa"
        let files = ["report.json", "junit.xml", "summary.md", "output.txt"].map { repo.root + "/" + $0 }
        let result = try repo.shiplane(["ship", "--api-key", key, "--report-json", files[0], "--junit", files[1]], environment: [
            "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": files[2], "GITHUB_OUTPUT": files[3],
        ])
        #expect(result.status == 75, "\(result.all)")
        #expect(result.stdout.contains("key: *** shown as ***"), "\(result.all)")
        #expect(!result.all.contains(key), "\(result.all)")
        for file in files {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            // An unfinished run (exit 75) writes no outputs (GITHUB_OUTPUT); every other file is written.
            #expect(text.isEmpty == file.hasSuffix("output.txt") && !text.contains(key), "\(file):\n\(text)")
        }
        // Nothing pushed holds it: not the record, not the release commit's message.
        let ids = try origin.git("rev-list", "--objects", "--all").split(separator: "\n").map { String($0.prefix(40)) }
        for id in ids {
            let object = try origin.git("cat-file", "-p", id)
            #expect(!object.contains(key), "\(object)")
        }
    }
}
