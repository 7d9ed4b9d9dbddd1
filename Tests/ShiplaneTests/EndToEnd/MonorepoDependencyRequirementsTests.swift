import Foundation
import Testing
@testable import Shiplane

/// A dependent's manifests require the version of a dependency released before it (issue 42,
/// item 4): `bump --package` of the dependent rewrites its package.json and Cargo.toml ranges
/// of the repository's other packages, in its own release commit. The built binary on a
/// monorepo shaped like a real one: an npm workspace (`@acme/core`, `@acme/app`) and a Cargo
/// workspace (`acme-engine`, `acme-cli`); git as the oracle.
@Suite("Monorepo dependents require their dependencies' new versions", .offThePool)
struct MonorepoDependencyRequirementsTests {
    static let appManifest = """
    {
      "name": "@acme/app",
      "version": "1.0.0",
      "private": false,
      "dependencies": {
        "@acme/core": "^1.4.0",
        "left-pad": "^1.3.0"
      },
      "devDependencies": {
        "@acme/core-testing": "workspace:*",
        "typescript": "~5.4.0"
      },
      "peerDependencies": {
        "@acme/core": ">=1.0.0 <3"
      }
    }

    """

    static let cliManifest = """
    [package]
    name = "acme-cli"
    version = "0.2.0"
    edition = "2021"

    [dependencies]
    acme-engine = { path = "../engine", version = "0.3.0" }
    serde = { version = "1.0", features = ["derive"] }

    [dev-dependencies]
    acme-engine = "=0.3.0"

    [target.'cfg(unix)'.dependencies.acme-engine]
    path = "../engine"
    version = "~0.3"

    """

    private func monorepo() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", """
        packages:
          - { name: core, path: packages/core }
          - { name: core-testing, path: packages/core-testing }
          - { name: app, path: packages/app }
          - { name: engine, path: crates/engine }
          - { name: cli, path: crates/cli }
        """)
        try repo.write("package.json", "{\n  \"name\": \"acme\",\n  \"private\": true,\n  \"workspaces\": [\"packages/*\"]\n}\n")
        try repo.write("packages/core/package.json", "{\n  \"name\": \"@acme/core\",\n  \"version\": \"1.4.0\",\n  \"main\": \"index.js\"\n}\n")
        try repo.write("packages/core/index.js", "module.exports = 1\n")
        try repo.write("packages/core-testing/package.json", "{\n  \"name\": \"@acme/core-testing\",\n  \"version\": \"0.1.0\"\n}\n")
        try repo.write("packages/app/package.json", Self.appManifest)
        try repo.write("Cargo.toml", "[workspace]\nmembers = [\"crates/engine\", \"crates/cli\"]\nresolver = \"2\"\n")
        try repo.write("crates/engine/Cargo.toml", "[package]\nname = \"acme-engine\"\nversion = \"0.3.0\"\nedition = \"2021\"\n")
        try repo.write("crates/engine/src/lib.rs", "pub fn run() {}\n")
        try repo.write("crates/cli/Cargo.toml", Self.cliManifest)
        try repo.write("crates/cli/src/main.rs", "fn main() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: start")
        for tag in ["core-v1.4.0", "core-testing-v0.1.0", "app-v1.0.0", "engine-v0.3.0", "cli-v0.2.0"] { try repo.git("tag", "-a", tag, "-m", tag) }
        try repo.write("packages/core/index.js", "module.exports = 2\n")
        try repo.write("crates/engine/src/lib.rs", "pub fn run() { }\npub fn stop() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat!: core and engine change their API")
        return repo
    }

    /// core goes to 2.0.0, then app's release requires `^2.0.0` of it in the same commit that
    /// makes app 1.0.1; its registry, workspace and peer requirements stay. engine goes to 0.4.0,
    /// then cli's release requires it in all three forms, operators kept.
    @Test func aDependentsReleaseRequiresTheVersionsItsDependenciesWereReleasedAt() throws {
        let repo = try monorepo()
        let core = try repo.shiplane(["bump", "major", "--package", "core", "--commit", "--tag"])
        #expect(core.status == 0, "\(core.all)")
        #expect(try repo.git("show", "HEAD:packages/app/package.json") == Self.appManifest.trimmingCharacters(in: .newlines),
                "core's release leaves app's manifest to app's release")

        let dry = try repo.shiplane(["--dry-run", "bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(dry.status == 0 && dry.all.contains("would require in packages/app/package.json: @acme/core ^1.4.0 → ^2.0.0"), "\(dry.all)")
        #expect(repo.read("packages/app/package.json") == Self.appManifest, "a dry run writes nothing")

        let app = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(app.status == 0, "\(app.all)")
        let expected = Self.appManifest
            .replacingOccurrences(of: "\"version\": \"1.0.0\"", with: "\"version\": \"1.0.1\"")
            .replacingOccurrences(of: "\"@acme/core\": \"^1.4.0\"", with: "\"@acme/core\": \"^2.0.0\"")
        let appReleased = try repo.git("show", "app-v1.0.1:packages/app/package.json")
        #expect(appReleased == expected.trimmingCharacters(in: .newlines), "\(appReleased)")
        #expect(try repo.git("show", "--name-only", "--format=", "app-v1.0.1^{commit}") == "packages/app/package.json", "one release commit, app's manifest alone")
        #expect(try repo.git("status", "--porcelain") == "")

        let engine = try repo.shiplane(["bump", "minor", "--package", "engine", "--commit", "--tag"])
        #expect(engine.status == 0, "\(engine.all)")
        let cli = try repo.shiplane(["bump", "patch", "--package", "cli", "--commit", "--tag"])
        #expect(cli.status == 0, "\(cli.all)")
        let cliExpected = Self.cliManifest
            .replacingOccurrences(of: "version = \"0.2.0\"", with: "version = \"0.2.1\"")
            .replacingOccurrences(of: "version = \"0.3.0\" }", with: "version = \"0.4.0\" }")
            .replacingOccurrences(of: "acme-engine = \"=0.3.0\"", with: "acme-engine = \"=0.4.0\"")
            .replacingOccurrences(of: "version = \"~0.3\"", with: "version = \"~0.4.0\"")
        let cliReleased = try repo.git("show", "cli-v0.2.1:crates/cli/Cargo.toml")
        #expect(cliReleased == cliExpected.trimmingCharacters(in: .newlines), "\(cliReleased)")
        #expect(try repo.git("show", "cli-v0.2.1:crates/cli/Cargo.toml").contains("serde = { version = \"1.0\", features = [\"derive\"] }"))

        // Up to date: a second release of app changes no requirement.
        try repo.write("packages/app/index.js", "fix\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix(app): a fix")
        let again = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(again.status == 0 && again.all.contains("every requirement of the other packages is up to date"), "\(again.all)")
        #expect(try repo.git("show", "app-v1.0.2:packages/app/package.json").contains("\"@acme/core\": \"^2.0.0\""))
    }

    static let goApp = """
    module example.com/acme/app

    go 1.22

    require example.com/acme/core v1.4.0

    require (
    \tgithub.com/google/uuid v1.6.0
    \texample.com/acme/core v1.4.0 // indirect
    )

    replace example.com/acme/core => ../core

    """

    /// A Go workspace: `example.com/acme/core` and `example.com/acme/app`, whose go.mod requires
    /// core (alone and in a block, `// indirect`) and replaces it with its folder; versions in tags.
    private func goMonorepo() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", "packages:\n  - { name: core, path: packages/core }\n  - { name: app, path: packages/app }\n")
        try repo.write("packages/core/go.mod", "module example.com/acme/core\n\ngo 1.22\n")
        try repo.write("packages/core/core.go", "package core\n")
        try repo.write("packages/app/go.mod", Self.goApp)
        try repo.write("packages/app/main.go", "package main\n")
        try repo.write("Lanes/Requirements.swift", """
        import Shiplane

        struct Requirements: Lane {
            func run(_ lane: LaneContext) async throws {
                try lane.package("app").updateDependencyRequirements()
                try await lane.sh("false")
            }
        }

        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: start")
        for tag in ["core-v1.4.0", "app-v1.0.0"] { try repo.git("tag", "-a", tag, "-m", tag) }
        try repo.write("packages/core/core.go", "package core\n\nfunc Run() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat(core): Run")
        return repo
    }

    /// core is released at 1.5.0 (a tag: go.mod holds no version); app's release requires v1.5.0
    /// in both places in its release commit, its comment, registry requirement and local
    /// replacement kept; a lane that fails after the rewrite puts go.mod back. core then released
    /// at 2.0.0 from a path without /v2: app's release stops with the line and the fix, nothing
    /// written, no commit, no tag.
    @Test func aGoDependentRequiresItsDependencysReleaseAndNeverAnInvalidMajor() throws {
        let repo = try goMonorepo()
        let core = try repo.shiplane(["bump", "minor", "--package", "core", "--commit", "--tag"])
        #expect(core.status == 0, "\(core.all)")
        #expect(try repo.git("tag", "--list", "core-v1.5.0") == "core-v1.5.0")

        let dry = try repo.shiplane(["--dry-run", "bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(dry.status == 0 && dry.all.contains("would require in packages/app/go.mod: example.com/acme/core v1.4.0 → v1.5.0"), "\(dry.all)")
        #expect(repo.read("packages/app/go.mod") == Self.goApp, "a dry run writes nothing")

        let failed = try repo.shiplane(["requirements"])
        #expect(failed.status != 0 && failed.all.contains("packages/app/go.mod: example.com/acme/core v1.4.0 → v1.5.0")
                && failed.all.contains("undone: restore packages/app/go.mod"), "the lane rewrote go.mod, then failed: \(failed.all)")
        #expect(repo.read("packages/app/go.mod") == Self.goApp, "the rollback restored go.mod: \(failed.all)")
        #expect(try repo.git("status", "--porcelain") == "")

        let app = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(app.status == 0, "\(app.all)")
        let expected = Self.goApp.replacingOccurrences(of: "example.com/acme/core v1.4.0", with: "example.com/acme/core v1.5.0")
        #expect(try repo.git("show", "app-v1.0.1:packages/app/go.mod") == expected.trimmingCharacters(in: .newlines))
        #expect(expected.contains("\texample.com/acme/core v1.5.0 // indirect\n") && expected.contains("replace example.com/acme/core => ../core\n"))
        #expect(try repo.git("show", "--name-only", "--format=", "app-v1.0.1^{commit}") == "packages/app/go.mod")

        try repo.write("packages/core/core.go", "package core\n\nfunc Run(n int) {}\n")
        try repo.write("packages/app/main.go", "package main\n\nfunc main() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat!: Run takes a count")
        let major = try repo.shiplane(["bump", "major", "--package", "core", "--commit", "--tag"])
        #expect(major.status == 0, "\(major.all)")
        let head = try repo.git("rev-parse", "HEAD")
        let refused = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(refused.status == 2, "\(refused.all)")
        #expect(refused.all.contains("packages/app/go.mod:5: requires example.com/acme/core, which core released as 2.0.0 (tag core-v2.0.0)"), "\(refused.all)")
        #expect(refused.all.contains("example.com/acme/core/v2"), "the fix names the path Go wants: \(refused.all)")
        #expect(repo.read("packages/app/go.mod") == expected)
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list", "app-v1.0.2") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    static let swiftApp = """
    // swift-tools-version:5.9
    import PackageDescription

    let package = Package(
        name: "App",
        dependencies: [
            .package(url: "git@github.com:acme/core.git", from: "1.4.0"),
            .package(path: "../testing"),
            .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
            // .package(url: "https://github.com/acme/core", exact: "1.0.0"),
        ],
        targets: [.executableTarget(name: "App", dependencies: [.product(name: "Core", package: "core")])]
    )

    """

    /// A Swift package `core`, published from its own repository (`repository:` in .shiplane.yml),
    /// released at 1.5.0 by its tag: app's release requires `from: "1.5.0"` of it by that URL,
    /// written as an scp-style URL; its path dependency, a registry dependency and a commented-out
    /// line stay. A `.package(` never closed stops the release naming the line, nothing written.
    @Test func aSwiftDependentRequiresItsDependencysReleaseByItsRepositoryURL() throws {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", """
        packages:
          - { name: core, path: packages/core, repository: "https://github.com/acme/core" }
          - { name: testing, path: packages/testing }
          - { name: app, path: packages/app }
        """)
        try repo.write("packages/core/Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Core\")\n")
        try repo.write("packages/core/Sources/Core/Core.swift", "public func run() {}\n")
        try repo.write("packages/testing/Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Testing\")\n")
        try repo.write("packages/app/Package.swift", Self.swiftApp)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: start")
        for tag in ["core-v1.4.0", "testing-v0.1.0", "app-v1.0.0"] { try repo.git("tag", "-a", tag, "-m", tag) }
        try repo.write("packages/core/Sources/Core/Core.swift", "public func run() {}\npublic func stop() {}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat(core): stop")
        let core = try repo.shiplane(["bump", "minor", "--package", "core", "--commit", "--tag"])
        #expect(core.status == 0, "\(core.all)")

        let app = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(app.status == 0, "\(app.all)")
        #expect(app.all.contains("packages/app/Package.swift: git@github.com:acme/core.git from: \"1.4.0\" → from: \"1.5.0\""), "\(app.all)")
        let expected = Self.swiftApp.replacingOccurrences(of: "\"git@github.com:acme/core.git\", from: \"1.4.0\"", with: "\"git@github.com:acme/core.git\", from: \"1.5.0\"")
        #expect(try repo.git("show", "app-v1.0.1:packages/app/Package.swift") == expected.trimmingCharacters(in: .newlines))

        try repo.write("packages/core/Sources/Core/Core.swift", "public func run() {}\n")
        try repo.write("packages/app/Package.swift", String(expected.replacingOccurrences(of: "from: \"1.5.0\"),", with: "from: \"1.5.0\",").dropLast(2)))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix(core): stop goes; app's manifest broken")
        #expect(try repo.shiplane(["bump", "patch", "--package", "core", "--commit", "--tag"]).status == 0)
        let head = try repo.git("rev-parse", "HEAD")
        let broken = repo.read("packages/app/Package.swift")
        let refused = try repo.shiplane(["bump", "patch", "--package", "app", "--commit", "--tag"])
        #expect(refused.status == 2 && refused.all.contains("packages/app/Package.swift:7: this `.package(` is never closed"), "\(refused.all)")
        #expect(repo.read("packages/app/Package.swift") == broken)
        #expect(try repo.git("rev-parse", "HEAD") == head)
    }

    /// Each SwiftPM requirement form, unit by unit: only a raise, the form kept, a range's upper
    /// bound moved past the release; branches and revisions left.
    @Test(arguments: [
        (#"from: "1.4.0""#, #"from: "1.5.0""#), (#"exact: "1.4.0""#, #"exact: "1.5.0""#), (#".upToNextMajor(from: "1.4.0")"#, #".upToNextMajor(from: "1.5.0")"#),
        (#".upToNextMinor(from: "1.4.0")"#, #".upToNextMinor(from: "1.5.0")"#), (#".exact("1.4.0")"#, #".exact("1.5.0")"#),
        (#""1.0.0"..<"2.0.0""#, #""1.5.0"..<"2.0.0""#), (#""1.0.0"..<"1.5.0""#, #""1.5.0"..<"2.0.0""#), (#""1.0.0"..."1.4.9""#, #""1.5.0"..."1.5.0""#),
        (#"from: "1.5.0""#, nil), (#"from: "2.0.0""#, nil), (#"branch: "main""#, nil), (#"revision: "abc""#, nil),
    ] as [(String, String?)])
    func swiftRequirementForms(_ before: String, _ after: String?) throws {
        let text = "let p = Package(dependencies: [\n    .package(url: \"https://github.com/acme/core.git/\", \(before)),\n])\n"
        let core = SwiftPackageRequirements.Dependency(package: "core", url: "https://GitHub.com/acme/core", version: SemanticVersion(unchecked: 1, 5, 0))
        let edit = try SwiftPackageRequirements.edited(text, file: "Package.swift", dependencies: [core])
        #expect(edit.text == (after.map { text.replacingOccurrences(of: before, with: $0) } ?? text))
        #expect(edit.changed.count == (after == nil ? 0 : 1))
    }

    /// A version SwiftPM refuses is named with its file and line; nothing is edited.
    @Test func aSwiftVersionSwiftPMRefusesIsNamedWithItsLine() {
        let core = SwiftPackageRequirements.Dependency(package: "core", url: "https://github.com/acme/core", version: SemanticVersion(unchecked: 1, 5, 0))
        #expect {
            try SwiftPackageRequirements.edited("let p = Package(dependencies: [\n  .package(url: \"https://github.com/acme/core\", from: \"1.4\"),\n])\n",
                                                file: "Package.swift", dependencies: [core])
        } throws: { error in
            (error as? ManifestRequirementError)?.message == "Package.swift:2: `1.4` (the version required of https://github.com/acme/core) is not a version SwiftPM reads"
        }
    }

    /// The rewriting of each form, unit by unit: operators kept; protocols, tags and compound
    /// ranges left.
    @Test(arguments: [
        ("^1.4.0", "^2.0.0"), ("~1.4.0", "~2.0.0"), ("1.4.0", "2.0.0"), (">=1.4.0", ">=2.0.0"), ("=1.4.0", "=2.0.0"),
        ("2.0.0", nil), ("workspace:*", nil), ("file:../core", nil), ("*", nil), ("latest", nil), (">=1 <3", nil), ("1.x || 2.x", nil),
    ] as [(String, String?)])
    func requirementForms(_ before: String, _ after: String?) {
        #expect(UpdateDependencyRequirements.requirement(before, setTo: "2.0.0") == after)
    }
}
