import Foundation
import Testing
import Shiplane

@Suite("Monorepos: per-package versions, tags, bumps and changelogs", .offThePool)
struct MonorepoTests {
    /// Three packages — core (VERSION), cli (tag-only, `cli@X`), web (package.json) — and commits
    /// that touch one, two, all, and none of them.
    func monorepo() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", """
        packages:
          - { name: core, path: packages/core }
          - { name: cli, path: packages/cli/, tag: '{name}@{version}' }
          - { name: web, path: ./packages/web }
        """)
        try repo.write("packages/core/VERSION", "1.0.0\n")
        try repo.write("packages/cli/main.go", "package main\n")
        try repo.write("packages/web/package.json", "{\n  \"name\": \"web\",\n  \"version\": \"2.0.0\"\n}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: start")
        for tag in ["core-v1.0.0", "cli@0.3.0", "web-v2.0.0"] { try repo.git("tag", "-a", tag, "-m", tag) }
        func commit(_ message: String, _ files: [String]) throws {
            for file in files { try repo.write(file, message + "\n") }
            try repo.git("add", ".")
            try repo.git("commit", "-q", "-m", message)
        }
        try commit("feat(core): wings", ["packages/core/wings.txt"])
        try commit("fix: cli and web", ["packages/cli/fix.txt", "packages/web/fix.txt"])
        try commit("feat: the top folder only", ["README.md"])
        try commit("perf: everywhere", ["packages/core/p.txt", "packages/cli/p.txt", "packages/web/p.txt"])
        return repo
    }

    @Test func versionAllListsEveryPackage() throws {
        let repo = try monorepo()
        let result = try repo.shiplane(["version", "--all"])
        #expect(result.status == 0, "\(result.all)")
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ") }
        #expect(lines == ["core 1.0.0 packages/core/VERSION", "cli 0.3.0 from", "web 2.0.0 packages/web/package.json"], "\(result.stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try repo.shiplane(["version", "--all", "--json"]).stdout.utf8)) as? [String: Any])
        let packages = try #require(json["packages"] as? [String: [String: Any]])
        #expect(packages["cli"]?["origin"] as? String == "tags" && packages["cli"]?["versionTag"] as? String == "cli@0.3.0")
    }

    @Test func aBumpAtTheRootRefusesAndNamesThePackages() throws {
        let repo = try monorepo()
        let head = try repo.git("rev-parse", "HEAD")
        let bump = try repo.shiplane(["bump", "auto", "--commit", "--tag"])
        #expect(bump.status == 2, "\(bump.all)")
        #expect(bump.all.contains("This repository declares 3 packages (core, cli, web) and has no version of its own at the root"), "\(bump.all)")
        #expect(bump.all.contains("--package core") && bump.all.contains("--all"))
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(!(try repo.git("tag", "--list").split(separator: "\n").contains("v0.1.0")))
        #expect(try repo.git("status", "--porcelain") == "")
        // `shiplane version` at the root lists each package instead of 0.0.0.
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["core", "cli", "web"], "\(version.stdout)")
    }

    @Test func bumpAllReleasesEachPackageWithItsOwnCommitAndTag() throws {
        let repo = try monorepo()
        let bump = try repo.shiplane(["bump", "auto", "--all", "--commit", "--tag"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(bump.all.contains("bumped core, cli, web"), "\(bump.all)")
        let tags = Set(try repo.git("tag", "--list").split(separator: "\n").map(String.init))
        #expect(tags.isSuperset(of: ["core-v1.1.0", "cli@0.3.1", "web-v2.0.1"]), "\(tags)")
        #expect(repo.read("packages/core/VERSION") == "1.1.0\n")
        #expect(try repo.git("log", "--format=%s", "-3").split(separator: "\n") == [
            "chore(release): web-v2.0.1", "chore(release): core-v1.1.0", "perf: everywhere",
        ])
    }

    @Test func changelogsListOnlyTheCommitsThatTouchThePackage() throws {
        let repo = try monorepo()
        let core = try repo.shiplane(["changelog", "--package", "core"]).stdout
        #expect(core.contains("wings") && core.contains("everywhere"))
        #expect(!core.contains("cli and web") && !core.contains("top folder"), "\(core)")
        let cli = try repo.shiplane(["changelog", "--package", "cli"]).stdout
        #expect(cli.contains("cli and web") && cli.contains("everywhere") && !cli.contains("wings"), "\(cli)")
        let whole = try repo.shiplane(["changelog"]).stdout
        #expect(whole.contains("top folder"), "without --package, every commit: \(whole)")
    }

    @Test func bumpsReleaseOnePackageEachWithItsOwnTag() throws {
        let repo = try monorepo()
        let core = try repo.shiplane(["bump", "auto", "--package", "core", "--commit", "--tag"])
        #expect(core.status == 0, "\(core.all)")
        #expect(repo.read("packages/core/VERSION") == "1.1.0\n", "feat(core) → minor")
        #expect(try repo.git("show", "--name-only", "--format=%s", "HEAD") == "chore(release): core-v1.1.0\n\npackages/core/VERSION")
        #expect(try repo.git("cat-file", "-t", "core-v1.1.0") == "tag")
        #expect(try repo.git("rev-parse", "core-v1.1.0^{commit}") == repo.git("rev-parse", "HEAD"))

        let web = try repo.shiplane(["bump", "auto", "--package", "web", "--commit", "--tag"])
        #expect(web.status == 0, "\(web.all)")
        #expect(repo.read("packages/web/package.json")?.contains("\"version\": \"2.0.1\"") == true, "fix and perf → patch")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "web-v2.0.1")

        let cli = try repo.shiplane(["bump", "auto", "--package", "cli"])
        #expect(cli.status == 0, "\(cli.all)")
        #expect(try repo.git("tag", "--list", "cli@*") == "cli@0.3.0\ncli@0.3.1", "tag-only package: the bump is its tag")
        try repo.git("fsck", "--strict")

        let after = try repo.shiplane(["version", "--package", "core"])
        #expect(after.stdout.hasPrefix("1.1.0\n"))
        let nothing = try repo.shiplane(["bump", "auto", "--package", "core"])
        #expect(nothing.status == 5, "no commit touched core since core-v1.1.0: \(nothing.all)")
    }

    @Test(arguments: [
        ("packages:\n  - { name: a, path: libs }\n  - { name: b, path: libs/b }\n", ".shiplane.yml:3: the paths of `a` (libs) and `b` (libs/b) overlap"),
        ("packages:\n  - { name: a, path: libs/a }\n  - { name: a, path: libs/b }\n", ".shiplane.yml:3: two packages are named `a`"),
        ("packages:\n  - { name: a, path: ../elsewhere }\n", ".shiplane.yml:2: `../elsewhere` is not a folder inside the repository"),
        ("packages:\n  - { name: a, path: libs/a, tag: 'v{version}-{name}' }\n", ".shiplane.yml:2: the tag format `v{version}-{name}` must end with {version}"),
    ])
    func badPackagesAreNamedWithTheirLine(text: String, message: String) throws {
        #expect(throws: SettingsError.self) { _ = try ProjectSettings.parse(text, file: ".shiplane.yml") }
        do { _ = try ProjectSettings.parse(text, file: ".shiplane.yml") } catch let error as SettingsError {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func anUnknownPackageIsAUsageErrorListingThePackages() throws {
        let repo = try monorepo()
        let result = try repo.shiplane(["bump", "patch", "--package", "api"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("no package is named `api`") && result.stderr.contains("core, cli, web"), "\(result.stderr)")
        #expect(repo.read("packages/core/VERSION") == "1.0.0\n")
    }
}
