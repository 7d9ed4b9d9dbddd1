import Foundation
import Testing

/// The package root, found from this file's path.
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
}()

/// The `shiplane` binary the end-to-end tests run: `SHIPLANE_TEST_BINARY` when set (an unpacked
/// release bundle's `bin/shiplane`: `Scripts/bundle --check` runs the bundle suite with it), else
/// the one `swift build` produced beside the test bundle (whatever `--scratch-path` was used),
/// else `.build/debug/shiplane`.
let shiplaneBinary: String = {
    if let chosen = ProcessInfo.processInfo.environment["SHIPLANE_TEST_BINARY"], !chosen.isEmpty { return chosen }
    let beside = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent().appendingPathComponent("shiplane").path
    return FileManager.default.isExecutableFile(atPath: beside) ? beside : packageRoot + "/.build/debug/shiplane"
}()

/// A lane cache shared by the end-to-end tests, so identical lane folders compile once; removed
/// when the test process exits.
let sharedLaneCache: String = {
    // Scripts/test runs two test processes that share one cache (and removes it afterwards).
    if let shared = ProcessInfo.processInfo.environment["SHIPLANE_TEST_LANE_CACHE"], !shared.isEmpty {
        try? FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        return shared
    }
    let folder = NSTemporaryDirectory() + "shiplane-test-cache-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // A C function pointer captures nothing: the folder is named again from the pid.
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "shiplane-test-cache-\(getpid())") }
    return folder
}()

/// One clang module cache for every compiler the tests start (`CLANG_MODULE_CACHE_PATH`, which
/// `swiftc` and `clang` read and nothing else does). Each test has a `HOME` of its own, and a
/// compiler given no module cache builds the C modules a lane imports (Glibc, SwiftShims,
/// Foundation's, libgit2's, BoringSSL's…) into `$HOME/.cache/clang/ModuleCache`: every lane compile
/// of the suite built them all again, about 1.8 of its 2.3 CPU-seconds (an empty lane, `/usr/bin/time`:
/// 2.3 CPU-seconds with an empty module cache, 0.5 with a warm one). Clang's module cache is made
/// for concurrent compilers (a lock per module, each written whole and renamed into place). Tests
/// that need a compile as slow as a first one remove the variable (`coldModuleCache`).
/// `SHIPLANE_TEST_MODULE_CACHE` names it (Scripts/test: in the run's folder); otherwise a folder
/// of this process, removed when it exits.
let sharedModuleCache: String = {
    if let shared = ProcessInfo.processInfo.environment["SHIPLANE_TEST_MODULE_CACHE"], !shared.isEmpty {
        try? FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        return shared
    }
    let folder = NSTemporaryDirectory() + "shiplane-test-modules-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "shiplane-test-modules-\(getpid())") }
    return folder
}()

/// `environment` without the shared module cache: a lane compile there builds its C modules in
/// its own `HOME`, as a first compile on a machine does (about 2 CPU-seconds), long enough for a
/// test to signal or kill it while it runs.
func coldModuleCache(_ environment: [String: String]) -> [String: String] {
    var cold = environment
    cold["CLANG_MODULE_CACHE_PATH"] = nil
    return cold
}

/// What a finished command left.
struct CommandOutput {
    var status: Int32
    var stdout: String
    var stderr: String
    var all: String { stdout + stderr }
}

/// An environment isolated from the machine's git configuration.
func isolatedEnvironment(home: String, extra: [String: String] = [:]) -> [String: String] {
    var environment: [String: String] = [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        "HOME": home,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer", "GIT_COMMITTER_EMAIL": "committer@example.com",
        "NO_COLOR": "1",
        "SHIPLANE_CACHE_DIR": sharedLaneCache,
        "CLANG_MODULE_CACHE_PATH": sharedModuleCache,
        "LANG": "C.UTF-8",
        // What a program leaves in its temporary folder when a test kills it (an archive's
        // scratch file, the compiler's folders) goes with the test's own folder.
        "TMPDIR": home,
    ]
    for (key, value) in extra { environment[key] = value }
    return environment
}

/// Runs a program to completion and collects its output (bounded by `timeout` seconds).
@discardableResult
func runProgram(
    _ executable: String, _ arguments: [String], in directory: String, environment: [String: String],
    timeout: TimeInterval = 300
) throws -> CommandOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    group.wait()
    return CommandOutput(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self)
    )
}

/// Runs a program to completion without holding a thread of Swift's cooperative pool while it
/// waits: tests that talk to servers in this process (whose handlers need that pool) use it.
func runProgramAsync(
    _ executable: String, _ arguments: [String], in directory: String, environment: [String: String],
    timeout: TimeInterval = 300
) async throws -> CommandOutput {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do {
                continuation.resume(returning: try runProgram(executable, arguments, in: directory, environment: environment, timeout: timeout))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// A temporary folder with a git repository made by the `git` command (the oracle).
final class TemporaryRepository: @unchecked Sendable {
    let root: String
    let home: String
    var path: String { root + "/repo" }

    init(branch: String = "main", commit: Bool = true, bare: Bool = false) throws {
        root = NSTemporaryDirectory() + "shiplane-test-\(UUID().uuidString)"
        home = root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/repo", withIntermediateDirectories: true)
        if bare {
            try git("init", "-q", "--bare", "-b", branch)
        } else {
            try git("init", "-q", "-b", branch)
            if commit {
                try write("README.md", "# test\n")
                try git("add", "README.md")
                try git("commit", "-q", "-m", "Initial commit")
            }
        }
    }

    /// A copy of `template`'s whole folder (its repository, home and anything beside them, by
    /// `cp -a`: modes, links and the git folder as they are) under a root of its own. Each path in
    /// `paths` (a folder the repository's git configuration names, such as its origin's) is
    /// replaced by its value in `.git/config`. For suites that make the same repository again
    /// and again: the copy has the template's history, commits and ids included.
    init(copying template: TemporaryRepository, paths: [String: String] = [:]) throws {
        root = NSTemporaryDirectory() + "shiplane-test-\(UUID().uuidString)"
        home = root + "/home"
        let copied = try runProgram("/bin/cp", ["-a", template.root, root], in: "/", environment: [:])
        guard copied.status == 0 else { throw TestFailure("cp -a \(template.root) \(root): \(copied.all)") }
        var replacements = paths
        replacements[template.root] = root
        let config = URL(fileURLWithPath: path + "/" + (FileManager.default.fileExists(atPath: path + "/.git") ? ".git/config" : "config"))
        var text = try String(contentsOf: config, encoding: .utf8)
        // Longest first, so a path inside another is replaced whole.
        for (old, new) in replacements.sorted(by: { $0.key.count > $1.key.count }) {
            text = text.replacingOccurrences(of: old, with: new)
        }
        try Data(text.utf8).write(to: config)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A repository made once in this test process by `make` and kept, under `name`, for
    /// `init(copying:)`: removed when the process exits. The `*.sample` files `git init` puts in
    /// its hooks folder (inert: git runs no hook named so) are left out, as each is a file every
    /// copy would make again.
    static func template(_ name: String, _ make: () throws -> TemporaryRepository) throws -> TemporaryRepository {
        try templates.withLock { made in
            if let repository = made[name] { return repository }
            let repository = try make()
            for hooks in [repository.path + "/.git/hooks", repository.path + "/hooks"] {
                for sample in ((try? FileManager.default.contentsOfDirectory(atPath: hooks)) ?? []) where sample.hasSuffix(".sample") {
                    try FileManager.default.removeItem(atPath: hooks + "/" + sample)
                }
            }
            made[name] = repository
            return repository
        }
    }

    var environment: [String: String] { isolatedEnvironment(home: home) }

    /// Runs `git` in the repository; throws when it fails.
    @discardableResult
    func git(_ arguments: String..., in subfolder: String? = nil) throws -> String {
        let folder = subfolder.map { path + "/" + $0 } ?? path
        let output = try runProgram("/usr/bin/git", arguments, in: folder, environment: environment)
        guard output.status == 0 else {
            throw TestFailure("git \(arguments.joined(separator: " ")) failed: \(output.stderr)")
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs the built `shiplane` binary, waiting off the cooperative pool (see `runProgramAsync`).
    func shiplaneAsync(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CommandOutput {
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        return try await runProgramAsync(shiplaneBinary, arguments, in: path, environment: environment)
    }

    /// Runs the built `shiplane` binary in the repository (or a subfolder).
    @discardableResult
    func shiplane(_ arguments: [String], in subfolder: String? = nil, environment extra: [String: String] = [:]) throws -> CommandOutput {
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        return try runProgram(shiplaneBinary, arguments, in: subfolder.map { path + "/" + $0 } ?? path, environment: environment)
    }
}

/// The templates of `TemporaryRepository.template`, by name. A static's value is never released,
/// so the folders go when the process exits.
private let templates: LockedValue<[String: TemporaryRepository]> = {
    atexit {
        for repository in templates.withLock({ $0.values }) { try? FileManager.default.removeItem(atPath: repository.root) }
    }
    return LockedValue([:])
}()

/// A value behind a lock.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads a golden file; set SHIPLANE_UPDATE_GOLDEN=1 to write it from the actual text instead.
func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = packageRoot + "/Tests/ShiplaneTests/Fixtures/Golden/" + name
    if ProcessInfo.processInfo.environment["SHIPLANE_UPDATE_GOLDEN"] == "1" {
        try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        Issue.record("golden file \(name) is missing (run with SHIPLANE_UPDATE_GOLDEN=1 to create it)", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == String(decoding: data, as: UTF8.self), sourceLocation: sourceLocation)
}

extension Tag {
    /// A slow end-to-end suite: a release killed at every step or at random moments, signals
    /// with their grace periods, races. `SHIPLANE_SKIP_SLOW=1` leaves them out of a run.
    @Tag static var slow: Self
}

/// False when `SHIPLANE_SKIP_SLOW=1`: the suites tagged `.slow` are then skipped (CI runs them all).
let slowSuitesRun = ProcessInfo.processInfo.environment["SHIPLANE_SKIP_SLOW"] != "1"
