import Foundation
import Testing

/// Tags of two numbers (`v1.2`), as apps tag their releases (issue 38, item 6): a release, read
/// as 1.2.0 and written back in two numbers; before, a tag-only project read them as no release
/// at all and started again at 0.0.0.
@Suite("Two-number release tags", .offThePool)
struct TwoNumberTagTests {
    func tagged(_ tag: String) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("README.md", "Ferry\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: timetable")
        try repo.git("tag", "-a", tag, "-m", tag)
        try repo.write("NOTES.md", "late boats\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix: late boats")
        return repo
    }

    @Test func aTwoNumberTagIsTheCurrentVersion() throws {
        let repo = try tagged("v1.2")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("1.2\n"), "\(version.stdout)")
        #expect(version.stdout.contains("last release tag  v1.2"), "\(version.stdout)")
    }

    @Test("a bump goes on from it, tagged in two numbers where it can be", arguments: [
        ("minor", "v1.3"), ("patch", "v1.2.1"), ("major", "v2.0"),
    ])
    func aBumpGoesOnFromIt(_ level: String, _ tag: String) throws {
        let repo = try tagged("v1.2")
        let bump = try repo.shiplane(["bump", level])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("tag", "--list").split(separator: "\n").map(String.init) == ["v1.2", tag].sorted())
    }

    @Test func theChangelogCountsItAsARelease() throws {
        let repo = try tagged("7.76")
        let all = try repo.shiplane(["changelog", "--all"])
        #expect(all.status == 0, "\(all.all)")
        #expect(all.stdout.contains("## [7.76]"), "\(all.stdout)")
        let unreleased = try repo.shiplane(["changelog", "--unreleased"])
        #expect(unreleased.stdout.contains("late boats") && !unreleased.stdout.contains("timetable"), "\(unreleased.stdout)")
    }
}
