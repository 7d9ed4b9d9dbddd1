import Foundation
import Testing
@testable import Shiplane

/// A monorepo dependent's `.package(id:)` registry requirements of the repository's other Swift
/// packages (issue 42, item 4): a package's `registry-id:` in `.shiplane.yml` (`scope.name`) is
/// what a dependent's `.package(id:)` names, compared case-insensitively as SwiftPM compares
/// registry identities; and `.shiplane.yml` values SwiftPM could not use are refused before
/// anything changes. The built binary on a monorepo; git as the oracle.
@Suite("Monorepo Swift registry requirements", .offThePool)
struct SwiftRegistryRequirementsTests {
    static let app = """
    // swift-tools-version:5.9
    import PackageDescription

    let package = Package(
        name: "App",
        dependencies: [
            .package(id: "ACME.Core", from: "1.4.0"),
            .package(id: "acme.core-testing", "0.1.0"..<"0.2.0"),
            .package(id: "apple.swift-log", from: "1.5.0"),
            // .package(id: "acme.core", exact: "1.0.0"),
        ],
        targets: [.executableTarget(name: "App", dependencies: [.product(name: "Core", package: "acme.core")])]
    )

    """

    private func monorepo(_ settings: String) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", settings)
        for (name, type) in [("core", "Core"), ("testing", "Testing")] {
            try repo.write("packages/\(name)/Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"\(type)\")\n")
            try repo.write("packages/\(name)/Sources/\(type)/\(type).swift", "public func run() {}\n")
        }
        try repo.write("packages/app/Package.swift", Self.app)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: start")
        for tag in ["core-v1.4.0", "testing-v0.1.0", "app-v1.0.0"] { try repo.git("tag", "-a", tag, "-m", tag) }
        return repo
    }

    /// core (`registry-id: acme.core`) released at 1.5.0 and testing at 0.2.0: app's release
    /// raises `.package(id: "ACME.Core", from: "1.4.0")` to 1.5.0 and the range of
    /// `acme.core-testing` past 0.2.0, each form kept; another scope's registry dependency and
    /// the commented-out line stay. Before, `.package(id:)` was never rewritten.
    @Test func aDependentsRegistryRequirementIsRaisedByItsIdentity() throws {
        let repo = try monorepo("""
        packages:
          - { name: core, path: packages/core, registry-id: acme.Core }
          - { name: testing, path: packages/testing, registry-id: Acme.Core-Testing }
          - { name: app, path: packages/app }
        """)
        try repo.write("packages/core/Sources/Core/Core.swift", "public func run() {}\npublic func stop() {}\n")
        try repo.write("packages/testing/Sources/Testing/Testing.swift", "public func run() {}\npublic func check() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: stop and check")
        for package in ["core", "testing"] {
            let ran = try repo.shiplane(["bump", "minor", "--package", package, "--commit", "--tag"])
            #expect(ran.status == 0, "\(package): \(ran.all)")
        }
        let app = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(app.status == 0, "\(app.all)")
        #expect(app.all.contains("packages/app/Package.swift: ACME.Core from: \"1.4.0\" → from: \"1.5.0\""), "\(app.all)")
        #expect(app.all.contains("packages/app/Package.swift: acme.core-testing \"0.1.0\"..<\"0.2.0\" → \"0.2.0\"..<\"1.0.0\""), "\(app.all)")
        let expected = Self.app
            .replacingOccurrences(of: "\"ACME.Core\", from: \"1.4.0\"", with: "\"ACME.Core\", from: \"1.5.0\"")
            .replacingOccurrences(of: "\"0.1.0\"..<\"0.2.0\"", with: "\"0.2.0\"..<\"1.0.0\"")
        #expect(try repo.git("show", "app-v1.0.1:packages/app/Package.swift") == expected.trimmingCharacters(in: .newlines))
        let files = try repo.git("show", "--name-only", "--format=", "app-v1.0.1").split(separator: "\n")
        #expect(files.contains("packages/app/Package.swift") && !files.contains { $0.hasPrefix("packages/core/") || $0.hasPrefix("packages/testing/") },
                "the release commit holds app's manifest, not its dependencies': \(files)")
    }

    /// Every requirement form of a registry dependency, the identity matched whatever its case;
    /// a URL requirement is not taken for a registry one, nor the other way round.
    @Test(arguments: [
        (#"from: "1.4.0""#, #"from: "1.5.0""#), (#"exact: "1.4.0""#, #"exact: "1.5.0""#), (#".upToNextMajor(from: "1.4.0")"#, #".upToNextMajor(from: "1.5.0")"#),
        (#".upToNextMinor(from: "1.4.0")"#, #".upToNextMinor(from: "1.5.0")"#), (#".exact("1.4.0")"#, #".exact("1.5.0")"#),
        (#""1.0.0"..<"2.0.0""#, #""1.5.0"..<"2.0.0""#), (#""1.0.0"..<"1.5.0""#, #""1.5.0"..<"2.0.0""#), (#""1.0.0"..."1.4.9""#, #""1.5.0"..."1.5.0""#),
        (#"from: "1.5.0""#, nil), (#"from: "2.0.0""#, nil),
    ] as [(String, String?)])
    func registryRequirementForms(_ before: String, _ after: String?) throws {
        let text = "let p = Package(dependencies: [\n    .package(id: \"Acme.CORE\", \(before)),\n    .package(url: \"https://example.com/acme.core\", \(before)),\n])\n"
        let core = SwiftPackageRequirements.Dependency(package: "core", url: nil, registryID: "acme.core", version: SemanticVersion(unchecked: 1, 5, 0))
        let edit = try SwiftPackageRequirements.edited(text, file: "Package.swift", dependencies: [core])
        let expected = after.map { text.replacingOccurrences(of: "\"Acme.CORE\", \(before)", with: "\"Acme.CORE\", \($0)") } ?? text
        #expect(edit.text == expected)
        #expect(edit.changed.count == (after == nil ? 0 : 1))
    }

    /// What a Package.swift names, which decides whose release tags the step reads: the URLs
    /// (SwiftPM's identity of a URL) and registry identities (lowercased) of its `.package(…)`
    /// calls, a commented-out one and a `path:` not among them.
    @Test func onlyWhatTheManifestNamesIsLookedUp() throws {
        let named = try SwiftPackageRequirements.named(in: Self.app + "let more = [.package(url: \"git@github.com:acme/core.git\", from: \"1.0.0\"), .package(path: \"../x\")]\n",
                                                       file: "Package.swift")
        #expect(named.ids == ["acme.core", "acme.core-testing", "apple.swift-log"])
        #expect(named.urls == ["github.com/acme/core"])
    }

    /// Registry identities as SwiftPM accepts them (SE-0292), and those it refuses.
    @Test func registryIdentitiesFollowSwiftPMsRules() {
        for good in ["acme.core", "Acme-Corp.swift_core", "a.b", String(repeating: "a", count: 39) + "." + String(repeating: "b", count: 100)] {
            #expect(ProjectPackage.isRegistryID(good), "\(good)")
        }
        for bad in ["acme", "acme.", ".core", "acme.core.x", "-acme.core", "acme-.core", "ac--me.core", "acme_x.core", "acme._core", "acme.core-",
                    "acme.co__re", "acmé.core", "acme.core swift", String(repeating: "a", count: 40) + ".core", "acme." + String(repeating: "b", count: 101)] {
            #expect(!ProjectPackage.isRegistryID(bad), "\(bad)")
        }
    }

    /// A `repository:` that is empty or holds a space, or a `registry-id:` SwiftPM would refuse,
    /// is a settings error naming the file, line and what to write: exit 2, and nothing is
    /// changed (no commit, no tag, the manifest as it was).
    @Test(arguments: [
        (#"repository: """#, "`repository` of `core` must be the URL SwiftPM users give for it"),
        (#"repository: "https://github.com/acme/my core""#, "`repository` of `core` must be the URL SwiftPM users give for it"),
        ("registry-id: acme", "`registry-id` of `core` must be its identity in a Swift package registry, `scope.name`"),
        ("registry-id: -acme.core", "`registry-id` of `core` must be its identity in a Swift package registry, `scope.name`"),
    ])
    func aBadRepositoryOrRegistryIDIsASettingsErrorAndChangesNothing(_ field: String, _ message: String) throws {
        let repo = try monorepo("""
        packages:
          - { name: core, path: packages/core, \(field) }
          - { name: testing, path: packages/testing }
          - { name: app, path: packages/app }
        """)
        try repo.write("packages/core/Sources/Core/Core.swift", "public func run() {}\npublic func stop() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat(core): stop")
        let head = try repo.git("rev-parse", "HEAD")
        let tags = try repo.git("tag", "--list")
        for package in ["core", "app"] {
            let ran = try repo.shiplane(["bump", "minor", "--package", package, "--commit", "--tag"])
            #expect(ran.status == 2, "\(package): \(ran.all)")
            #expect(ran.all.contains(".shiplane.yml:2") && ran.all.contains(message), "\(package): \(ran.all)")
        }
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list") == tags)
        #expect(try repo.git("status", "--porcelain") == "")
        #expect(repo.read("packages/app/Package.swift") == Self.app)
    }
}
