import Foundation
import Testing
@testable import Git

@Suite("Tags made and read with libgit2, checked with git", .offThePool)
struct TagTests {
    let tagger = Signature(name: "Rel Bot", email: "bot@example.com", date: Date(timeIntervalSince1970: 1_700_000_000), timeZoneOffsetMinutes: 60)

    @Test func annotatedTagIsWhatGitReads() throws {
        let repo = try TemporaryRepository()
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let repository = try Repository.open(repo.path)
        let tag = try repository.createTag(name: "v1.0.0", target: head, message: "Release 1.0.0\n\nNotes here.  ", tagger: tagger)

        #expect(try repo.git("cat-file", "-t", "v1.0.0") == "tag")
        #expect(try repo.git("rev-parse", "v1.0.0") == tag.object.hex)
        #expect(try repo.git("rev-parse", "v1.0.0^{commit}") == head.hex)
        #expect(try repo.git("cat-file", "-p", "v1.0.0") == """
            object \(head.hex)
            type commit
            tag v1.0.0
            tagger Rel Bot <bot@example.com> 1700000000 +0100

            Release 1.0.0

            Notes here.
            """)
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
        #expect(tag.isAnnotated && tag.target == head && tag.message == "Release 1.0.0\n\nNotes here.\n")
        #expect(tag.tagger == tagger)
        #expect(try repository.tag(named: "v1.0.0") == tag)
    }

    @Test func lightweightTagPointsAtTheCommit() throws {
        let repo = try TemporaryRepository()
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let tag = try Repository.open(repo.path).createTag(name: "build-7", target: head)
        #expect(try repo.git("cat-file", "-t", "build-7") == "commit")
        #expect(try repo.git("rev-parse", "refs/tags/build-7") == head.hex)
        #expect(!tag.isAnnotated && tag.object == head && tag.target == head && tag.message == nil && tag.tagger == nil)
    }

    @Test func existingTagIsRefusedUnlessForced() throws {
        let repo = try TemporaryRepository()
        let first = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        try repo.git("tag", "-a", "-m", "by git", "v1.0.0")
        let second = try GitFixture.id(GitFixture.commit(repo, "next", at: 1_700_000_500))
        let repository = try Repository.open(repo.path)

        let error = #expect(throws: GitError.self) { try repository.createTag(name: "v1.0.0", target: second, message: "again", tagger: tagger) }
        #expect(error?.code == .exists)
        #expect(try repo.git("rev-parse", "v1.0.0^{commit}") == first.hex)
        let lightweight = #expect(throws: GitError.self) { try repository.createTag(name: "v1.0.0", target: second) }
        #expect(lightweight?.code == .exists)

        let replaced = try repository.createTag(name: "v1.0.0", target: second, message: "moved", tagger: tagger, force: true)
        #expect(try repo.git("rev-parse", "v1.0.0^{commit}") == second.hex)
        #expect(replaced.target == second)
    }

    @Test(arguments: ["v1..2", "has space", "-leading", "end.lock", "a:b", "", "x~1", "a^b", "trailing/", "x@{1}"])
    func invalidNamesAreRefused(_ name: String) throws {
        let repo = try TemporaryRepository()
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let error = #expect(throws: GitError.self) { try Repository.open(repo.path).createTag(name: name, target: head) }
        #expect(error?.code == .invalid)
        // git refuses them as well.
        #expect(try GitFixture.gitResult(repo, ["tag", name]).status != 0)
    }

    @Test func tagsListsWhatGitLists() throws {
        let repo = try TemporaryRepository()
        try repo.git("tag", "v1")
        try repo.git("tag", "-a", "-m", "annotated", "v2")
        try repo.git("tag", "release/v3")
        try repo.git("tag", "B")
        let tree = try repo.git("rev-parse", "HEAD^{tree}")
        try repo.git("tag", "tree-tag", tree)
        try repo.git("pack-refs", "--all")
        try repo.git("tag", "v10")
        let names = try Repository.open(repo.path).tags().map(\.name)
        let expected = try repo.git("tag", "-l").split(separator: "\n").map(String.init).filter { $0 != "tree-tag" }
        #expect(names == expected)
        #expect(try Repository.open(repo.path).tag(named: "tree-tag") == nil)
        #expect(try Repository.open(repo.path).tag(named: "missing") == nil)
    }

    @Test func deleteTagRefusesWhenTheTagMoved() throws {
        let repo = try TemporaryRepository()
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let repository = try Repository.open(repo.path)
        let tag = try repository.createTag(name: "v1.0.0", target: head, message: "one", tagger: tagger)
        let other = try GitFixture.id(GitFixture.commit(repo, "other", at: 1_700_000_900))
        try repo.git("tag", "-f", "-a", "-m", "moved by someone", "v1.0.0", other.hex)

        #expect(try repository.deleteTag(name: "v1.0.0", ifPointsAt: tag.object) == false)
        #expect(try repository.deleteTag(name: "v1.0.0", ifPointsAt: head) == false)
        #expect(try repo.git("rev-parse", "v1.0.0^{commit}") == other.hex)

        let moved = try #require(try repository.tag(named: "v1.0.0"))
        #expect(try repository.deleteTag(name: "v1.0.0", ifPointsAt: moved.object))
        #expect(try GitFixture.gitResult(repo, ["rev-parse", "--verify", "-q", "refs/tags/v1.0.0"]).status != 0)
        #expect(try repository.deleteTag(name: "v1.0.0") == false)
    }

    @Test func deleteTagAcceptsThePeeledCommit() throws {
        let repo = try TemporaryRepository()
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let repository = try Repository.open(repo.path)
        try repository.createTag(name: "v2", target: head, message: "two", tagger: tagger)
        #expect(try repository.deleteTag(name: "v2", ifPointsAt: head))
        #expect(try repo.git("tag", "-l") == "")
    }

    // MARK: - Revisions and counts

    @Test func resolveCommitPeelsAndReportsUnknownRevisions() throws {
        let repo = try TemporaryRepository()
        let first = try repo.git("rev-parse", "HEAD")
        try repo.git("tag", "-a", "-m", "t", "v1")
        try GitFixture.commit(repo, "second", at: 1_700_000_000)
        let repository = try Repository.open(repo.path)
        #expect(try repository.resolveCommit("v1").hex == first)
        #expect(try repository.resolveCommit("HEAD~1").hex == first)
        #expect(try repository.resolveCommit(String(first.prefix(10))).hex == first)
        let error = #expect(throws: GitError.self) { try repository.resolveCommit("no-such-branch") }
        #expect(error?.code == .notFound)
        #expect(error?.description.contains("no-such-branch") == true)
        let tree = #expect(throws: GitError.self) { try repository.resolveCommit("HEAD^{tree}") }
        #expect(tree?.code == .invalid)
    }
}
