import Foundation
import Testing
@testable import Shiplane

private let registryLane = #"""
import Shiplane

struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.publishToSwiftRegistry("acme.Rocket", version: lane.environment["VERSION"] ?? "1.2.0",
                                              registry: lane.environment["REGISTRY"] ?? "")
    }
}
"""#

private let rocketManifest = """
// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Rocket",
    products: [.library(name: "Rocket", targets: ["Rocket"])],
    targets: [.target(name: "Rocket")]
)

"""

@Suite("Swift package registry: the shiplane binary publishes, SwiftPM resolves and builds against it", .serialized, .offThePool)
struct SwiftRegistryTests {
    /// A library package `Rocket` in a git repository, with the lane, metadata, a file marked
    /// export-ignore and a version-specific manifest.
    private func package() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Package.swift", rocketManifest)
        try repo.write("Package@swift-5.10.swift", rocketManifest.replacingOccurrences(of: "5.9", with: "5.10"))
        try repo.write("Sources/Rocket/Rocket.swift", "public enum Rocket {\n    public static func launch() -> String { \"liftoff from the registry\" }\n}\n")
        try repo.write("Internal/notes.md", "not for the archive\n")
        try repo.write(".gitattributes", "Internal export-ignore\n")
        try repo.write(".gitignore", ".build/\n")
        try repo.write("package-metadata.json", #"{"description": "Rockets.", "repositoryURLs": ["https://github.com/acme/rocket"], "licenseURL": "https://www.apache.org/licenses/LICENSE-2.0", "author": {"name": "Acme"}}"#)
        try repo.write("Lanes/Publish.swift", registryLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: rockets")
        return repo
    }

    /// The archive holds what `swift package archive-source` puts in (entry for entry), the
    /// registry serves it, and SwiftPM itself resolves `.package(id: "acme.Rocket", from: "1.2.0")`
    /// against it and builds a program that calls the package; the run again sends nothing.
    @Test func swiftPMResolvesAndBuildsAConsumerOfThePublishedReleaseAndARerunSendsNothing() async throws {
        let registry = FakeSwiftRegistry(token: "registry-token-s3cret-0123")
        try await registry.start()
        defer { registry.stop() }
        let repo = try package()
        let environment = ["REGISTRY": registry.baseURL, "SWIFTPM_REGISTRY_TOKEN": "registry-token-s3cret-0123"]
        let published = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(published.status == 0, "\(published.all)")
        #expect(!published.all.contains("registry-token-s3cret-0123"))
        #expect(registry.violations.isEmpty, "\(registry.violations)")
        let release = try #require(registry.release("acme.Rocket", "1.2.0"), "\(registry.log)")
        #expect(release.folder == "Rocket")
        #expect(release.metadata["description"] as? String == "Rockets.")
        #expect(Set(release.manifests.keys) == ["Package.swift", "Package@swift-5.10.swift"])

        // The same entries as SwiftPM's own source archive of the commit (git archive underneath).
        let ours = repo.root + "/ours.zip", theirs = repo.root + "/Rocket.zip"
        try release.archive.write(to: URL(fileURLWithPath: ours))
        let made = try runProgram("/usr/bin/env", ["swift", "package", "archive-source", "--output", theirs], in: repo.path, environment: repo.environment)
        #expect(made.status == 0, "\(made.all)")
        let ourEntries = try runTool(["unzip", "-Z1", ours]).output.split(separator: "\n").sorted()
        let theirEntries = try runTool(["unzip", "-Z1", theirs]).output.split(separator: "\n").sorted()
        #expect(ourEntries == theirEntries)
        #expect(!ourEntries.contains { $0.contains("Internal") } && ourEntries.contains("Rocket/Sources/Rocket/Rocket.swift"))
        #expect(try runTool(["unzip", "-p", ours, "Rocket/Sources/Rocket/Rocket.swift"]).output == repo.read("Sources/Rocket/Rocket.swift"))

        // A consumer that depends on the package by registry identity.
        let consumer = repo.root + "/consumer"
        try FileManager.default.createDirectory(atPath: consumer + "/Sources/Launcher", withIntermediateDirectories: true)
        try Data("""
        // swift-tools-version:5.9
        import PackageDescription
        let package = Package(
            name: "Launcher",
            dependencies: [.package(id: "acme.Rocket", from: "1.2.0")],
            targets: [.executableTarget(name: "Launcher", dependencies: [.product(name: "Rocket", package: "acme.Rocket")])]
        )

        """.utf8).write(to: URL(fileURLWithPath: consumer + "/Package.swift"))
        try Data("import Rocket\nprint(Rocket.launch())\n".utf8).write(to: URL(fileURLWithPath: consumer + "/Sources/Launcher/main.swift"))
        // SwiftPM's own folders (its checksum TOFU store above all) go with the test, not in the user's home.
        let swiftPM = ["--cache-path", repo.root + "/swiftpm/cache", "--config-path", repo.root + "/swiftpm/configuration",
                       "--security-path", repo.root + "/swiftpm/security"]
        let set = try await runProgramAsync("/usr/bin/env", ["swift", "package-registry", "set"] + swiftPM + ["--allow-insecure-http", registry.baseURL],
                                            in: consumer, environment: repo.environment)
        #expect(set.status == 0, "\(set.all)")
        let built = try await runProgramAsync("/usr/bin/env", ["swift", "run"] + swiftPM + ["Launcher"], in: consumer, environment: repo.environment, timeout: 900)
        #expect(built.status == 0, "\(built.all)\n\(registry.log)")
        #expect(built.stdout.contains("liftoff from the registry"), "\(built.all)")
        #expect(registry.log.contains("GET /acme/Rocket/1.2.0.zip"), "SwiftPM downloaded the archive: \(registry.log)")
        #expect(registry.violations.isEmpty, "SwiftPM's requests follow the specification too: \(registry.violations)")
        #expect(FileManager.default.fileExists(atPath: repo.root + "/swiftpm/security/fingerprints/acme.Rocket.json"), "SwiftPM kept the archive's checksum in the test's folder")
        let resolved = try #require(FileManager.default.contents(atPath: consumer + "/Package.resolved"))
        #expect(String(decoding: resolved, as: UTF8.self).lowercased().contains("\"identity\" : \"acme.rocket\""))

        let again = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("acme.Rocket 1.2.0 is already in \(registry.baseURL) with checksum \(release.checksum): nothing sent"), "\(again.all)")
        #expect(registry.puts == 1)
    }

    /// Another commit at a published version is refused before anything is sent; a dry run and bad
    /// metadata send nothing; an asynchronous registry (202, polled) publishes; a wrong token is
    /// a clear error that does not show it.
    @Test func otherBytesAtAPublishedVersionDryRunBadMetadataAsynchronousAndAWrongToken() async throws {
        let registry = FakeSwiftRegistry(token: "right-token-0123456789")
        registry.asynchronous = true
        try await registry.start()
        defer { registry.stop() }
        let repo = try package()
        var environment = ["REGISTRY": registry.baseURL, "SWIFTPM_REGISTRY_TOKEN": "right-token-0123456789"]

        let dry = try await repo.shiplaneAsync(["--dry-run", "publish"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("would PUT \(registry.baseURL)/acme/Rocket/1.2.0: source-archive Rocket/"), "\(dry.all)")
        #expect(dry.all.contains("metadata (author, description, licenseURL, repositoryURLs)"), "\(dry.all)")
        #expect(registry.puts == 0)

        let published = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(published.status == 0, "\(published.all)")
        #expect(registry.log.contains { $0.hasPrefix("GET /submissions/") }, "the 202's status location was polled: \(registry.log)")
        #expect(registry.release("acme.Rocket", "1.2.0") != nil)

        try repo.write("Sources/Rocket/Rocket.swift", "public enum Rocket {}\n")
        try repo.git("commit", "-q", "-am", "fix: smaller rocket")
        let changed = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(changed.status != 0)
        #expect(changed.all.contains("acme.Rocket 1.2.0 is already in") && changed.all.contains("a published release never changes"), "\(changed.all)")
        #expect(registry.puts == 1)

        try repo.write("package-metadata.json", #"{"author": {"email": "a@b.c"}, "licenseURL": 3, "homepage": "x"}"#)
        environment["VERSION"] = "1.3.0"
        let bad = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(bad.status != 0)
        for problem in ["homepage is not a metadata property", "licenseURL must be a string", "author.name is required"] {
            #expect(bad.all.contains(problem), "\(problem)\n\(bad.all)")
        }
        #expect(registry.puts == 1)

        try repo.write("package-metadata.json", #"{"description": "Rockets."}"#)
        environment["SWIFTPM_REGISTRY_TOKEN"] = "wrong-token-9876543210"
        let refused = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.all.contains("HTTP 401") && refused.all.contains("SWIFTPM_REGISTRY_TOKEN"), "\(refused.all)")
        #expect(refused.status != 75, "a refused PUT published nothing: the run is not past its point of no return\n\(refused.all)")
        #expect(repo.read(".git/shiplane/run.json") == nil, "the run finished (rolled back), no record left")
        #expect(!refused.all.contains("wrong-token-9876543210"))
        #expect(registry.release("acme.Rocket", "1.3.0") == nil)
        #expect(registry.violations.isEmpty, "\(registry.violations)")
    }

    /// The lane program SIGKILLed while the registry has taken the release but not yet answered:
    /// the run is past its point of no return (exit 75, the record stays), and the same command
    /// run again finds the release with the same checksum and sends nothing.
    @Test func killedWhileTheRegistryAnswersThenRunAgainSendsNothing() async throws {
        let registry = FakeSwiftRegistry()
        registry.answerDelay = 20
        try await registry.start()
        defer { registry.stop() }
        let repo = try package()
        let environment = repo.environment.merging(["REGISTRY": registry.baseURL]) { $1 }
        let run = try SupervisedRun(["publish"], in: repo.path, environment: environment)
        run.wait { registry.release("acme.Rocket", "1.2.0") != nil }
        #expect(registry.release("acme.Rocket", "1.2.0") != nil, "the registry took the release")
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 75, "past the point of no return: resumable\n\(all)")
        #expect(repo.read(".git/shiplane/run.json")?.contains("swiftRegistry.release") == true)
        registry.answerDelay = 0

        let again = try await repo.shiplaneAsync(["publish"], environment: ["REGISTRY": registry.baseURL])
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already in \(registry.baseURL) with checksum"), "\(again.all)")
        #expect(registry.puts == 1)
        #expect(registry.violations.isEmpty, "\(registry.violations)")
    }
}
