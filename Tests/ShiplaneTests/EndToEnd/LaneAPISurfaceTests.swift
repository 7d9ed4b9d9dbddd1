import Foundation
import Testing
@testable import ShiplaneCLI
import Shiplane

/// The lane API is small: lane code (compiled as `shiplane` compiles `Lanes/`, outside the
/// package) sees the actions and what custom actions and effects need, and not the runner's
/// machinery; the `Shiplane` module's public declarations stay under 700.
@Suite("The lane API: what lane code can and cannot reach", .offThePool)
struct LaneAPISurfaceTests {
    /// Type-checks `body` as a lane file, as the lane compiler does (no package name), and
    /// returns the compiler's status and messages.
    func typecheck(_ body: String) throws -> CommandOutput {
        let folder = NSTemporaryDirectory() + "shiplane-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ("import Foundation\nimport Shiplane\n\n" + body + "\n").write(toFile: folder + "/Lane.swift", atomically: true, encoding: .utf8)
        let build = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path
        var arguments = ["-typecheck", "-parse-as-library", "-swift-version", "5", "-module-name", "Lanes", "-I", build + "/Modules"]
        for map in CModuleMaps.find(libraryFolder: build) { arguments += ["-Xcc", "-fmodule-map-file=" + map] }
        arguments.append(folder + "/Lane.swift")
        let swiftc = findExecutable("swiftc", path: ProcessInfo.processInfo.environment["PATH"], workingDirectory: nil) ?? "/usr/bin/swiftc"
        return try runProgram(swiftc, arguments, in: folder, environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": folder]) { $1 })
    }

    @Test("a lane that uses the documented API compiles")
    func documentedAPICompiles() throws {
        let result = try typecheck("""
            func release(_ lane: LaneContext) async throws {
                try lane.ensureGitBranch(matching: "main")
                let version = try lane.bumpVersion(.minor)
                _ = try lane.fileSystem.contents(of: "VERSION")
                _ = lane.environment.variables["CI"]
                _ = lane.isDryRun
                _ = version.description
            }
            struct Stamp: Effect {
                static let kind = "acme.stamp"
                var path: String
                var reach: EffectReach { .local }
                func undo(in context: EffectContext, status: RecordedEffect.Status) async throws { try context.fileSystem.remove(path) }
            }
            """)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("the journal, the run state, the recorder and the runner are out of lane code's reach",
          arguments: [
            ("lane.journal", "func f(_ lane: LaneContext) { _ = lane.journal }"),
            ("lane.state", "func f(_ lane: LaneContext) { _ = lane.state }"),
            ("RunRecorder", "func f(_ recorder: RunRecorder) {}"),
            ("RunStore", "func f(_ store: RunStore) {}"),
            ("Journal", "func f(_ journal: Journal) {}"),
            ("LaneRunner", "func f(_ runner: LaneRunner) {}"),
            ("LaneContext.Dependencies", "func f(_ d: LaneContext.Dependencies) {}"),
            ("the retry policy", "func f(_ lane: LaneContext) { _ = lane.retryPolicy }"),
          ])
    func internalsAreHidden(name: String, code: String) throws {
        let result = try typecheck(code)
        #expect(result.status != 0, "\(name) compiled from lane code")
        #expect(result.stderr.contains("inaccessible") || result.stderr.contains("cannot find type") || result.stderr.contains("has no member"),
                "\(name): \(result.stderr)")
    }

    @Test("the Shiplane module declares fewer than 700 public declarations")
    func publicDeclarationCount() throws {
        let result = try runProgram(packageRoot + "/Scripts/api-count", [], in: packageRoot, environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let count = Int(result.stdout.split(separator: " ").first ?? "") ?? Int.max
        #expect(count > 300, "the count looks wrong: \(result.stdout)")
        #expect(count < 700, "\(result.stdout)")
    }
}
