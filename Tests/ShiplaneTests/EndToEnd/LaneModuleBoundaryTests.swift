import Foundation
import Testing
@testable import ShiplaneCLI

/// The lane module's boundary, end to end: the built `shiplane` compiles `Lanes/` and a lane
/// names the lane API only. Importing a module of Shiplane's build (the parser, the HTTP client,
/// YAML, crypto, libgit2, the command line) is an error at the import's line before the compiler
/// runs; naming their types or the engine's without an import does not compile; a lane that
/// uses every part of the lane API the README shows (options of each kind, an option group, a
/// validation error, an effect, hooks) compiles and runs.
@Suite("The lane module: what a lane can import and name", .offThePool)
struct LaneModuleBoundaryTests {
    /// The modules whose names the Shiplane module's interface may carry: the system's, and the
    /// parser for `Lane: ParsableArguments` and the option types (its names reach lanes only
    /// through the scoped re-exports of Shiplane.swift).
    static let publiclyImported: Set<String> = ["Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Musl", "Darwin", "ArgumentParser"]

    @Test("the Shiplane module imports its dependencies `internal`, the parser publicly only where its interface needs it")
    func dependenciesAreInternalImports() throws {
        let folder = packageRoot + "/Sources/Shiplane"
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        var parserFiles: [String] = []
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            // Read as the lane compiler reads imports: every form of the grammar.
            for found in LaneImports.imports(in: SwiftLexer.tokens(of: text)) {
                let written = "Sources/Shiplane/\(file):\(found.line): import of \(found.path.joined(separator: "."))"
                if ["internal", "package", "fileprivate", "private"].contains(found.accessLevel ?? "") || found.attributes.contains("_implementationOnly") { continue }
                #expect(Self.publiclyImported.contains(found.module), "\(written) gives the module's interface \(found.module)'s names: write `internal import \(found.module)`")
                if found.module == "ArgumentParser", !found.attributes.contains("_exported") { parserFiles.append(file) }
                if found.attributes.contains("_exported") {
                    #expect(file == "Shiplane.swift" && found.module == "ArgumentParser" && found.path.count > 1,
                            "\(written) re-exports to lanes; only Shiplane.swift re-exports, one parser declaration at a time")
                }
            }
        }
        #expect(Set(parserFiles) == ["Lane/Lane.swift", "Secrets/Secret.swift", "Versioning/BumpVersion.swift"], "\(parserFiles)")
    }

    @Test("importing a module of Shiplane's build is a compile error at its line (exit 3)",
          arguments: [
            "import ArgumentParser",
            "import struct ArgumentParser.ExitCode",
            "@_exported import Yams",
            "public import Crypto",
            "import AsyncHTTPClient",
            "import NIOCore",
            "import Mustache",
            "import Git",
            "import CLibgit2",
            "import ShiplaneCLI",
            "@testable import Yams",
            "internal import NIOCore",
            "import func Yams.load",
            "@_spi(Internal) @preconcurrency package import AsyncHTTPClient",
            "import struct Git.ObjectID",
          ])
    func buildModuleImportIsRejected(line: String) throws {
        let module = line.split(separator: " ").last!.split(separator: ".").first!
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": """
                import Shiplane
                \(line)

                struct Release: Lane {
                    func run(_ lane: LaneContext) async throws {}
                }
                """,
        ])
        let result = try repo.shiplane(["lanes"])
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderr.contains("Lanes/Release.swift:2:1: error: lane code cannot import \(module): it is part of Shiplane's build, not the lane API"), "\(result.all)")
        #expect(!result.stderr.contains("swiftc"), "rejected before the compiler runs: \(result.all)")
    }

    @Test("the advice for the parser names what Shiplane gives lanes of it")
    func parserAdvice() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": """
                import ArgumentParser
                import Shiplane
                struct Release: Lane { func run(_ lane: LaneContext) async throws {} }
                """,
        ])
        let result = try repo.shiplane(["lanes"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("`import Shiplane` gives lanes what they name of swift-argument-parser (@Option, @Flag"), "\(result.all)")
    }

    @Test("the parser's commands, the HTTP client, YAML, crypto and the engine's types are not in a lane's scope",
          arguments: [
            ("ParsableCommand", "func a(_ x: any ParsableCommand) {}"),
            ("CommandConfiguration", "func b() { _ = CommandConfiguration() }"),
            ("ExitCode", "func c() { _ = ExitCode.success }"),
            ("HTTPClient", "func d(_ x: HTTPClient) {}"),
            ("Yams", "func e() { _ = Yams.YAMLDecoder() }"),
            ("Crypto", "func f() { _ = Crypto.SHA256.self }"),
            ("SHA256", "func g() { _ = SHA256.self }"),
            ("ByteBuffer", "func h(_ x: ByteBuffer) {}"),
            ("RunState", "func i(_ x: RunState) {}"),
            ("Journal", "func j(_ x: Journal) {}"),
            ("RunRecord", "func k(_ x: RunRecord) {}"),
            ("Repository", "func l(_ x: Repository) {}"),
            ("journal", "func m(_ lane: LaneContext) { _ = lane.journal }"),
          ])
    func nameBeyondTheLaneAPIDoesNotCompile(name: String, use: String) throws {
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": "import Foundation\nimport Shiplane\n\nstruct Release: Lane { func run(_ lane: LaneContext) async throws {} }\n" + use + "\n",
        ])
        let result = try repo.shiplane(["lanes"])
        #expect(result.status == 3, "\(result.all)")
        let reported = result.stderr.components(separatedBy: "\n").contains {
            $0.contains("Lanes/Release.swift:5:") && $0.contains("error:") && $0.contains("'\(name)'")
        }
        #expect(reported, "\(name) was not reported at line 5: \(result.stderr)")
    }

    /// Scoped imports of the system's modules, with attributes and access levels, are lane code
    /// like any other: neither refused nor read as declarations (issue 39: `import struct
    /// Foundation.Date` before the lane ended in "no lanes found", exit 4).
    @Test("a lane with scoped and attributed imports of system modules compiles and runs")
    func scopedSystemImportsCompile() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": #"""
                import struct Foundation.Date
                import class Foundation.JSONEncoder
                @preconcurrency import enum Foundation.ComparisonResult
                #if canImport(Glibc)
                import func Glibc.exit
                #endif
                internal import Dispatch
                import Shiplane

                struct Release: Lane {
                    static let summary = "Scoped imports"
                    func run(_ lane: LaneContext) async throws {
                        let order: ComparisonResult = Date(timeIntervalSince1970: 0) < Date() ? .orderedAscending : .orderedDescending
                        _ = JSONEncoder()
                        _ = DispatchQueue.self
                        try await lane.sh("echo", "scoped imports: \(order == .orderedAscending)")
                    }
                }
                """#,
        ])
        let lanes = try repo.shiplane(["lanes"])
        #expect(lanes.status == 0, "\(lanes.all)")
        #expect(lanes.stdout.contains("release") && lanes.stdout.contains("Scoped imports"), "\(lanes.all)")
        let result = try repo.shiplane(["release"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("scoped imports: true"), "\(result.all)")
    }

    @Test("a lane using the lane API the README shows compiles and runs")
    func laneAPICompiles() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Release.swift": #"""
                import Foundation
                import Dispatch
                import Shiplane

                enum Channel: String, ExpressibleByArgument, CaseIterable { case beta, production }
                enum Speed: EnumerableFlag { case fast, careful }

                struct Shared: ParsableArguments {
                    @Option(name: .shortAndLong, help: ArgumentHelp("Who signs", valueName: "name"))
                    var signer = "ci"
                }

                struct Stamp: Effect {
                    static let kind = "acme.stamp"
                    var path: String
                    var reach: EffectReach { .local }
                    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
                        try context.fileSystem.remove(path)
                    }
                }

                struct Release: Lane {
                    static let summary = "Uses the lane API"
                    @Option(help: "Where to publish") var channel: Channel = .beta
                    @Flag var speed: Speed = .careful
                    @Flag(help: "Mark as prerelease") var prerelease = false
                    @Argument var notes: [String] = []
                    @OptionGroup var shared: Shared

                    func validate() throws {
                        if notes.contains("") { throw ValidationError("a note is empty") }
                    }

                    func run(_ lane: LaneContext) async throws {
                        try lane.ensureGitBranch(matching: "main")
                        _ = lane.environment.variables["CI"]
                        _ = lane.isDryRun
                        try await lane.sh("echo", "channel=\(channel.rawValue) speed=\(speed) signer=\(shared.signer)")
                    }
                }

                struct ReleaseHooks: LaneHooks {
                    func beforeLane(_ lane: LaneInfo, context: LaneContext) async throws {}
                }
                """#,
        ])
        let result = try repo.shiplane(["release", "--channel", "production", "--fast", "-s", "bot"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("channel=production speed=fast signer=bot"), "\(result.all)")
    }
}
