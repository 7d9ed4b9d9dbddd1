import Foundation
import Testing
import Shiplane

@Suite(".shiplane.yml: changelog settings, and every mistake named with its line", .offThePool)
struct ProjectSettingsTests {
    @Test func everyKeyIsRead() throws {
        let settings = try ProjectSettings.parse("""
        changelog:
          groups:
            - { title: New, types: [feat] }
            - title: Fixed
              types: [fix, perf]
            - { title: Dependencies, types: [] }
          hidden_types: [chore, CI]
          show_hidden: true
          non_conventional: drop
          include_merges: true
          breaking_title: Breaking
          miscellaneous_title: Misc
          other_title: Rest
          summary_limit: 80
          scope: plain
          skip: ['\\[skip changelog\\]']
          parsers:
            - { message: '^chore\\(deps\\)', group: Dependencies }
            - { author: 'bot$', skip: true }
          tags: { pattern: 'v*', ignore: 'nightly', include_prereleases: false }
          links: { commit: 'https://git.example.com/c/{id}', issue: 'https://git.example.com/i/{number}' }
        """, file: ".shiplane.yml")
        let changelog = settings.changelog
        #expect(changelog.groups.map(\.title) == ["New", "Fixed", "Dependencies"])
        #expect(changelog.groups[1].types == ["fix", "perf"])
        #expect(changelog.hiddenTypes == ["chore", "ci"])
        #expect(changelog.hiddenTypeHandling == .miscellaneous && changelog.nonConventional == .drop && changelog.includeMergeCommits)
        #expect(changelog.breakingChangesTitle == "Breaking" && changelog.miscellaneousTitle == "Misc" && changelog.otherTitle == "Rest")
        #expect(changelog.summaryCharacterLimit == 80 && changelog.scopeDisplay == .plain)
        #expect(changelog.skipPatterns == [#"\[skip changelog\]"#])
        #expect(changelog.parsers == [.init(message: #"^chore\(deps\)"#, group: "Dependencies"), .init(author: "bot$", skip: true)])
        #expect(settings.releaseTags == ReleaseTags(pattern: "v*", includePrereleases: false, ignore: "nightly"))
        #expect(changelog.commitLinkTemplate == "https://git.example.com/c/{id}" && changelog.issueLinkTemplate == "https://git.example.com/i/{number}")
    }

    @Test(arguments: [
        ("changelog:\n  grops: []\n", ".shiplane.yml:2: unknown key `grops` in changelog", "did you mean `groups`?"),
        ("changelog:\n  skip: ['(unclosed']\n", ".shiplane.yml:2: `skip`: `(unclosed` is not a valid regular expression", "escape"),
        ("changelog:\n  groups: [{ title: Features, types: [feat] }]\n  parsers:\n    - { message: '^deps', group: Dependencies }\n",
         ".shiplane.yml:4: the group `Dependencies` does not exist", "add it under `groups`"),
        ("changelog:\n  scope: italic\n", ".shiplane.yml:2: `scope` is `italic`", "bold, plain, hidden"),
        ("changelog:\n  show_hidden: maybe\n", ".shiplane.yml:2: `show_hidden` must be true or false", "true"),
        ("changelog:\n  parsers:\n    - { message: '^x' }\n", ".shiplane.yml:3: a parser neither files nor skips", "skip: true"),
        ("changelog: [\n", ".shiplane.yml: not valid YAML", "YAML syntax"),
        ("changlog:\n  groups: []\n", ".shiplane.yml:1: unknown key `changlog` in the file", "did you mean `changelog`?"),
    ])
    func mistakesAreNamedWithTheirLine(text: String, message: String, hint: String) throws {
        do {
            _ = try ProjectSettings.parse(text, file: ".shiplane.yml")
            Issue.record("no error for:\n\(text)")
        } catch let error as SettingsError {
            #expect(error.message.hasPrefix(message), "\(error.message)")
            #expect(error.suggestion?.contains(hint) == true, "\(error.suggestion ?? "")")
            #expect(error.category == .usage)
        }
    }
}

@Suite("shiplane changelog with .shiplane.yml", .offThePool)
struct ProjectSettingsChangelogTests {
    @Test func groupsParsersSkipsScopesLinksAndIgnoredTagsApply() throws {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", """
        changelog:
          groups:
            - { title: Fixed, types: [fix] }
            - { title: Added, types: [feat] }
            - { title: Dependencies, types: [] }
          scope: plain
          skip: ['\\[skip changelog\\]']
          parsers:
            - { message: '^chore\\(deps\\)', group: Dependencies }
            - { author: '^Renovate', skip: true }
          tags: { ignore: 'nightly' }
          links: { commit: 'https://git.example.com/c/{shortId}', issue: 'https://git.example.com/i/{number}' }
        """)
        try repo.git("add", ".shiplane.yml")
        try repo.git("commit", "-q", "-m", "chore: settings")
        try repo.git("tag", "v1.0.0")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat(api): wings (#7)")
        try repo.git("tag", "v1.1.0-nightly")
        try repo.git("commit", "-q", "--allow-empty", "-m", "fix: landing")
        try repo.git("commit", "-q", "--allow-empty", "-m", "chore(deps): bump left-pad")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: secret [skip changelog]")
        try repo.git("-c", "user.name=Renovate Bot", "commit", "-q", "--allow-empty", "--author=Renovate Bot <bot@example.com>", "-m", "fix: pin everything")
        let result = try repo.shiplane(["changelog"])
        #expect(result.status == 0, "\(result.all)")
        let text = result.stdout
        let fixed = try #require(text.range(of: "### Fixed")), added = try #require(text.range(of: "### Added"))
        #expect(fixed.lowerBound < added.lowerBound, "groups in the configured order: \(text)")
        #expect(text.contains("### Dependencies\n\n- deps: bump left-pad"), "a parser files it; its scope shows plain: \(text)")
        #expect(text.contains("- api: wings ([#7](https://git.example.com/i/7))"), "plain scope and the issue template: \(text)")
        #expect(text.contains("](https://git.example.com/c/"), "the commit template")
        #expect(!text.contains("secret") && !text.contains("pin everything"), "skip pattern and author parser: \(text)")
        #expect(text.contains("wings"), "v1.1.0-nightly is ignored, so its commit belongs to this release: \(text)")
    }

    @Test func aMistakeIsExitTwoAndWritesNothing() throws {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", "changelog:\n  groups:\n    - { title: Features, types: [feat] }\n  parsers:\n    - { message: '^deps', group: Deps }\n")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: wings")
        let result = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "1.0.0"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains(".shiplane.yml:5: the group `Deps` does not exist"), "\(result.stderr)")
        #expect(repo.read("CHANGELOG.md") == nil, "nothing written")
    }
}

@Suite("Bump rules: which commit types release, and what 0.x does with a breaking change", .offThePool)
struct BumpRulesTests {
    @Test func rulesDecideTheLevel() {
        let rules = BumpRules(minorTypes: ["feat"], patchTypes: ["fix", "perf", "refactor"], breakingBeforeOne: .major)
        #expect(ConventionalCommit.bumpLevel(for: ["refactor: tidy"], currentMajorIsZero: false) == nil, "by default refactor does not release")
        #expect(ConventionalCommit.bumpLevel(for: ["refactor: tidy"], currentMajorIsZero: false, rules: rules) == .patch)
        #expect(ConventionalCommit.bumpLevel(for: ["fix!: drop v1"], currentMajorIsZero: true) == .minor, "commitizen's major_version_zero")
        #expect(ConventionalCommit.bumpLevel(for: ["fix!: drop v1"], currentMajorIsZero: true, rules: rules) == .major, "semantic-release's way")
    }

    @Test func versionsAreReadAndAMistakeIsNamed() throws {
        let settings = try ProjectSettings.parse("versions:\n  patch_types: [fix, perf, refactor, docs]\n  breaking_before_1: major\n", file: ".shiplane.yml")
        #expect(settings.bumpRules == BumpRules(patchTypes: ["fix", "perf", "refactor", "docs"], breakingBeforeOne: .major))
        #expect(throws: SettingsError.self) { _ = try ProjectSettings.parse("versions:\n  patch_types: [feat]\n", file: ".shiplane.yml") }
        #expect(throws: SettingsError.self) { _ = try ProjectSettings.parse("versions:\n  breaking_before_1: huge\n", file: ".shiplane.yml") }
    }

    @Test func aRefactorOnlyRangeReleasesWhenTheProjectSaysSo() throws {
        let repo = try versionedRepository()
        try repo.git("commit", "-q", "--allow-empty", "-m", "refactor: split the parser")
        let refused = try repo.shiplane(["bump", "auto"])
        #expect(refused.status == 5, "\(refused.all)")
        #expect(refused.stderr.contains("feat, fix or perf commit"), "\(refused.stderr)")
        try repo.write(".shiplane.yml", "versions:\n  patch_types: [fix, perf, refactor]\n")
        let released = try repo.shiplane(["bump", "auto"])
        #expect(released.status == 0, "\(released.all)")
        #expect(repo.read("VERSION") == "1.2.4\n")
    }
}
