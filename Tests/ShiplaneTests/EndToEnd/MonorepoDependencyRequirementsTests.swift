import Foundation
import Testing
import Shiplane

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
