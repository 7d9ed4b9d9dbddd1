import Foundation
import Testing

/// Lock files refreshed by the ecosystem's own tool, checked with git as the oracle.
@Suite("Lock files: Cargo.lock and package-lock.json follow the bump", .offThePool)
struct LockFileTests {
    /// The folder holding `tool`: on PATH, or rustup's `~/.cargo/bin`. Scripts/setup installs both.
    static func toolFolder(_ tool: String) throws -> String {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + [NSHomeDirectory() + "/.cargo/bin"]
        let folder = candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/" + tool) }
        return try #require(folder, "\(tool) is needed for this test: Scripts/setup installs it")
    }

    func crate(_ repo: TemporaryRepository) throws {
        try repo.write("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.3.1\"\nedition = \"2021\"\n\n[dependencies]\n")
        try repo.write("src/main.rs", "fn main() {}\n")
        let cargo = try Self.toolFolder("cargo")
        var environment = isolatedEnvironment(home: repo.root + "/home")
        environment["PATH"] = cargo + ":" + (environment["PATH"] ?? "")
        environment["CARGO_HOME"] = NSHomeDirectory() + "/.cargo"
        environment["RUSTUP_HOME"] = NSHomeDirectory() + "/.rustup"
        let made = try runProgram(cargo + "/cargo", ["generate-lockfile", "--offline"], in: repo.path, environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a crate")
    }

    func toolEnvironment(_ tool: String, _ repo: TemporaryRepository) throws -> [String: String] {
        let folder = try Self.toolFolder(tool)
        return ["PATH": folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "CARGO_HOME": NSHomeDirectory() + "/.cargo", "RUSTUP_HOME": NSHomeDirectory() + "/.rustup",
                "npm_config_cache": repo.root + "/npm-cache"]
    }

    @Test func cargoLockJoinsTheReleaseCommit() throws {
        let repo = try TemporaryRepository()
        try crate(repo)
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag"], environment: try toolEnvironment("cargo", repo))
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("show", "--name-only", "--format=%s", "HEAD") == "chore(release): 0.3.2\n\nCargo.lock\nCargo.toml")
        #expect(try repo.git("show", "HEAD:Cargo.lock").contains("name = \"demo\"\nversion = \"0.3.2\""))
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    @Test func packageLockJoinsTheReleaseCommit() throws {
        let repo = try TemporaryRepository()
        try repo.write("package.json", "{\n  \"name\": \"demo\",\n  \"version\": \"1.4.0\"\n}\n")
        try repo.write("package-lock.json", "{\n  \"name\": \"demo\",\n  \"version\": \"1.4.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\n      \"name\": \"demo\",\n      \"version\": \"1.4.0\"\n    }\n  }\n}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a package")
        let result = try repo.shiplane(["bump", "minor", "--commit"], environment: try toolEnvironment("npm", repo))
        #expect(result.status == 0, "\(result.all)")
        let lock = try repo.git("show", "HEAD:package-lock.json")
        #expect(lock.components(separatedBy: "\"version\": \"1.5.0\"").count == 3, "both versions in the lock: \(lock)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD") == "package-lock.json\npackage.json")
    }

    @Test func withoutTheToolTheBumpSaysTheLockWasNotRefreshed() throws {
        let repo = try TemporaryRepository()
        try crate(repo)
        let lock = repo.read("Cargo.lock")
        let result = try repo.shiplane(["bump", "patch", "--commit"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("Cargo.lock not refreshed: cargo is not on PATH"), "\(result.stdout)")
        #expect(repo.read("Cargo.lock") == lock)
    }

    @Test func aFailingToolFailsTheBumpAndEverythingIsRestored() throws {
        let repo = try TemporaryRepository()
        try crate(repo)
        let head = try repo.git("rev-parse", "HEAD")
        let bin = repo.root + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho 'garbage' > Cargo.lock\necho 'error: no matching package' >&2\nexit 101\n".write(toFile: bin + "/cargo", atomically: true, encoding: .utf8)
        chmod(bin + "/cargo", 0o755)
        let result = try repo.shiplane(["bump", "patch", "--commit"], environment: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("`cargo update --workspace --offline` failed"), "\(result.stderr)")
        #expect(result.stderr.contains("no matching package"))
        #expect(try repo.git("status", "--porcelain").isEmpty, "Cargo.toml and Cargo.lock restored")
        #expect(try repo.git("rev-parse", "HEAD") == head)
    }

    @Test func aRunKilledWhileTheToolWritesIsRolledBackFromTheRecord() throws {
        let repo = try TemporaryRepository()
        try crate(repo)
        let bin = repo.root + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // The tool writes the lock, then the release is killed (SIGKILL: no rollback in process).
        try "#!/bin/sh\necho 'half written' > Cargo.lock\nkill -KILL $PPID\nsleep 5\n".write(toFile: bin + "/cargo", atomically: true, encoding: .utf8)
        chmod(bin + "/cargo", 0o755)
        let killed = try repo.shiplane(["bump", "patch", "--commit"], environment: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(killed.status != 0)
        #expect(repo.read("Cargo.lock") == "half written\n")
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        let status = try repo.git("status", "--porcelain")
        #expect(status.isEmpty, "Cargo.lock restored from the saved copy, Cargo.toml too: \(status)")
    }

    @Test func aDryRunRunsNoTool() throws {
        let repo = try TemporaryRepository()
        try crate(repo)
        let result = try repo.shiplane(["bump", "patch", "--commit", "--dry-run"], environment: try toolEnvironment("cargo", repo))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would run `cargo update --workspace --offline`"), "\(result.stdout)")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }
}
