import Foundation
import Testing

/// A history with conventional and plain commits, a merge, and a tag on a side branch.
func historyRepository() throws -> TemporaryRepository {
    let repo = try TemporaryRepository()
    var counter = 0
    func commit(_ message: String) throws {
        counter += 1
        try repo.write("file\(counter).txt", "\(counter)\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", message)
    }
    try repo.git("remote", "add", "origin", "git@github.com:acme/rocket.git")
    try commit("feat: first feature")
    try repo.git("tag", "-a", "v0.1.0", "-m", "Release 0.1.0")
    try commit("fix(core): handle empty input\n\nCloses #12")
    try repo.git("checkout", "-q", "-b", "side")
    try commit("feat(api): side feature")
    try repo.git("tag", "side-experiment")
    try repo.git("checkout", "-q", "main")
    try commit("perf: faster parsing")
    try repo.git("merge", "-q", "--no-ff", "side", "-m", "Merge branch 'side'")
    try repo.git("tag", "v0.2.0")
    try commit("feat!: new config format\n\nBREAKING CHANGE: the config file moved")
    try commit("Update the docs")
    return repo
}

@Suite("shiplane changelog: the commits of git log A..B, rendered", .offThePool)
struct ChangelogCommandTests {
    func ids(_ repo: TemporaryRepository, _ range: String) throws -> [String] {
        try repo.git("log", "--format=%h", range).split(separator: "\n").map(String.init)
    }

    @Test func defaultIsTheUnreleasedWorkSinceTheLastTag() throws {
        let repo = try historyRepository()
        let result = try repo.shiplane(["changelog"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("## [Unreleased]"))
        #expect(result.stdout.contains("BREAKING"))
        #expect(result.stdout.contains("the config file moved"))
        #expect(result.stdout.contains("Update the docs"))
        #expect(!result.stdout.contains("faster parsing"), "before the last tag")
        #expect(result.stdout.contains("https://github.com/acme/rocket/compare/v0.2.0...HEAD"))
    }

    struct Document: Decodable {
        struct Release: Decodable { struct Commit: Decodable { var shortId: String }; var title: String; var commits: [Commit] }
        var releases: [Release]
    }

    /// Each range, and each merge mode, against the `git log` that selects the same commits.
    @Test(arguments: [
        ("v0.1.0..v0.2.0", "exclude", ["--no-merges"]), ("v0.1.0..v0.2.0", "include", []), ("v0.1.0..v0.2.0", "only", ["--merges"]),
        ("v0.1.0..HEAD", "include", []), ("side-experiment..main", "include", []), ("side-experiment..main", "exclude", ["--no-merges"]),
        ("v0.2.0..side", "include", []),
    ])
    func rangesSelectExactlyTheCommitsOfGitLog(range: String, merges: String, gitFlags: [String]) throws {
        let repo = try historyRepository()
        let parts = range.components(separatedBy: "..")
        let result = try repo.shiplane(["changelog", "--from", parts[0], "--to", parts[1], "--merges", merges, "--json"])
        let expected = try runProgram("/usr/bin/git", ["log", "--format=%h"] + gitFlags + [range], in: repo.path, environment: repo.environment)
            .stdout.split(separator: "\n").map(String.init)
        if expected.isEmpty {
            #expect(result.status == 1)
            #expect(result.stderr.contains("no commits in \(range)"))
            return
        }
        #expect(result.status == 0, "\(result.all)")
        let document = try JSONDecoder().decode(Document.self, from: Data(result.stdout.utf8))
        #expect(document.releases.flatMap(\.commits).map(\.shortId) == expected)
    }

    @Test func tagPatternsAndPrereleasesChooseTheReleases() throws {
        let repo = try historyRepository()
        try repo.git("tag", "app-v0.3.0")
        try repo.write("later.txt", "x")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix: after the rc")
        try repo.git("tag", "v0.3.0-rc.1")
        let prefixed = try repo.shiplane(["changelog", "--all", "--tag-pattern", "app-v*", "--json"])
        #expect(prefixed.status == 0, "\(prefixed.all)")
        let titles = try JSONDecoder().decode(Document.self, from: Data(prefixed.stdout.utf8)).releases.map(\.title)
        #expect(titles == ["Unreleased", "0.3.0"], "only app-v* tags are releases")
        let withRC = try repo.shiplane(["changelog", "--all", "--json"])
        #expect(try JSONDecoder().decode(Document.self, from: Data(withRC.stdout.utf8)).releases.map(\.title) == ["0.3.0-rc.1", "0.2.0", "0.1.0"])
        let skipping = try repo.shiplane(["changelog", "--all", "--skip-prereleases", "--json"])
        #expect(try JSONDecoder().decode(Document.self, from: Data(skipping.stdout.utf8)).releases.map(\.title) == ["Unreleased", "0.2.0", "0.1.0"])
    }

    @Test func nonConventionalCommitsCanBeDropped() throws {
        let repo = try historyRepository()
        #expect(try repo.shiplane(["changelog"]).stdout.contains("Update the docs"))
        let dropped = try repo.shiplane(["changelog", "--drop-non-conventional"])
        #expect(dropped.status == 0)
        #expect(!dropped.stdout.contains("Update the docs"))
        #expect(dropped.stdout.contains("the config file moved"))
    }

    @Test func allSplitsTheHistoryIntoReleases() throws {
        let repo = try historyRepository()
        let result = try repo.shiplane(["changelog", "--all"])
        #expect(result.status == 0, "\(result.all)")
        let unreleased = try #require(result.stdout.range(of: "## [Unreleased]"))
        let second = try #require(result.stdout.range(of: "## [0.2.0]"))
        let first = try #require(result.stdout.range(of: "## [0.1.0]"))
        #expect(unreleased.lowerBound < second.lowerBound && second.lowerBound < first.lowerBound)
        #expect(result.stdout.contains("side feature"), "merged side-branch commits belong to 0.2.0")
        #expect(result.stdout.contains("[#12](https://github.com/acme/rocket/issues/12)"))
    }

    @Test func writeInsertsTheSectionAndRefusesADuplicate() throws {
        let repo = try historyRepository()
        try repo.write("CHANGELOG.md", "# Changelog\n\nNotes kept by hand.\n\n## [0.2.0] - 2026-01-01\n\n- old entry\n")
        let before = repo.read("CHANGELOG.md") ?? ""
        let dry = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "1.0.0", "--dry-run"])
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.stdout.contains("would write to CHANGELOG.md"))
        #expect(repo.read("CHANGELOG.md") == before)
        let written = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "1.0.0"])
        #expect(written.status == 0, "\(written.all)")
        let after = repo.read("CHANGELOG.md") ?? ""
        #expect(after.hasPrefix("# Changelog\n\nNotes kept by hand.\n\n## [1.0.0] - "))
        #expect(after.hasSuffix("## [0.2.0] - 2026-01-01\n\n- old entry\n") || after.contains("## [0.2.0] - 2026-01-01\n\n- old entry\n"))
        let again = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "1.0.0"])
        #expect(again.status == 1)
        #expect(repo.read("CHANGELOG.md") == after)
    }

    /// HEAD is already the release tag v0.3.0 and the run makes 0.3.1: no commit came since the
    /// tag, and that is what it says — not that the file already has 0.3.0's section. The tag's
    /// own version (a tag pipeline) still writes the tag's section.
    @Test func anotherVersionOnATaggedHeadHasNothingToWrite() throws {
        let repo = try historyRepository()
        _ = try repo.git("tag", "v0.3.0")
        try repo.write("CHANGELOG.md", "# Changelog\n")
        let newer = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "0.3.1"])
        #expect(newer.status != 0)
        #expect(newer.all.contains("no commits since v0.3.0: nothing to write"), "\(newer.all)")
        #expect(!newer.all.contains("already has a section"), "\(newer.all)")
        #expect(repo.read("CHANGELOG.md") == "# Changelog\n")
        let tagged = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "v0.3.0"])
        #expect(tagged.status == 0, "\(tagged.all)")
        #expect(repo.read("CHANGELOG.md")?.contains("## [0.3.0] - ") == true)
    }

    @Test func templatesRenderTheData() throws {
        let repo = try historyRepository()
        try repo.write("notes.mustache", "{{#releases}}Release {{title}}:{{#groups}} [{{title}}]{{/groups}}\n{{/releases}}")
        let result = try repo.shiplane(["changelog", "--template", "notes.mustache", "--from", "v0.1.0", "--to", "v0.2.0"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.hasPrefix("Release 0.2.0:"))
    }

    @Test func anUnknownRefIsNamed() throws {
        let repo = try historyRepository()
        let result = try repo.shiplane(["changelog", "--from", "v9.9.9"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("v9.9.9"))
    }

    @Test func invalidUTF8AndLongMessagesAreRenderedSafely() throws {
        let repo = try historyRepository()
        // `git commit` would transcode invalid bytes as Latin-1: write the commit object raw.
        let tree = try repo.git("rev-parse", "HEAD^{tree}")
        let parent = try repo.git("rev-parse", "HEAD")
        var object = Data("tree \(tree)\nparent \(parent)\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\n".utf8)
        object += Data("fix: caf".utf8) + Data([0xff, 0xfe]) + Data((" " + String(repeating: "long ", count: 5_000) + "\n").utf8)
        try object.write(to: URL(fileURLWithPath: repo.root + "/commit.bin"))
        let id = try repo.git("hash-object", "-t", "commit", "-w", repo.root + "/commit.bin")
        try repo.git("update-ref", "refs/heads/main", id)
        let result = try repo.shiplane(["changelog"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("caf\u{FFFD}"))
        #expect(result.stdout.contains("…"))
    }
}
