import Foundation
import Testing
@testable import Git

@Suite("History walks and describe, against git log and git describe", .offThePool)
struct HistoryTests {
    /// A readable history: main, a side branch with a tag merged back, equal timestamps.
    ///
    ///     A(100) - B(200) - C(300) ---------- M(500) - E(500)
    ///                \                       /
    ///                 S1(250, tag side-1) - S2(300, tag v0.9)
    private func sideBranchHistory() throws -> (TemporaryRepository, [String: String]) {
        let repo = try TemporaryRepository(commit: false)
        var ids: [String: String] = [:]
        ids["A"] = try GitFixture.commit(repo, "A", at: 1_600_000_100)
        try repo.git("tag", "-a", "-m", "first", "v0.1")
        ids["B"] = try GitFixture.commit(repo, "B", at: 1_600_000_200)
        try repo.git("checkout", "-q", "-b", "side")
        ids["S1"] = try GitFixture.commit(repo, "S1", at: 1_600_000_250)
        try repo.git("tag", "side-1")
        ids["S2"] = try GitFixture.commit(repo, "S2", at: 1_600_000_300)
        try repo.git("tag", "-a", "-m", "side release", "v0.9")
        try repo.git("checkout", "-q", "main")
        ids["C"] = try GitFixture.commit(repo, "C", at: 1_600_000_300)
        let date = "@1600000500 +0000"
        try GitFixture.git(repo, ["merge", "-q", "--no-ff", "-m", "Merge side", "side"], environment: ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date])
        ids["M"] = try repo.git("rev-parse", "HEAD")
        ids["E"] = try GitFixture.commit(repo, "E", at: 1_600_000_500)
        return (repo, ids)
    }

    private func walkIDs(_ repository: Repository, from: String, hiding: [String] = [], firstParentOnly: Bool = false) throws -> [String] {
        var ids: [String] = []
        try repository.walk(from: try GitFixture.id(from), hiding: try hiding.map { try GitFixture.id($0) }, firstParentOnly: firstParentOnly) { record in
            ids.append(record.id.hex)
            return true
        }
        return ids
    }

    @Test func rangesMatchGitLogOnASideBranchHistory() throws {
        let (repo, ids) = try sideBranchHistory()
        let repository = try Repository.open(repo.path)
        let ranges: [(String, [String])] = [("E", []), ("E", ["A"]), ("E", ["B"]), ("E", ["S2"]), ("E", ["C"]),
                                            ("M", ["S1", "C"]), ("S2", ["C"]), ("E", ["E"]), ("C", ["S2"])]
        for (to, hidden) in ranges {
            let from = try #require(ids[to])
            let hiddenIDs = try hidden.map { try #require(ids[$0]) }
            let expected = try GitFixture.logIDs(repo, [from] + hiddenIDs.map { "^" + $0 })
            #expect(try walkIDs(repository, from: from, hiding: hiddenIDs) == expected, "\(hidden)..\(to)")
            let firstParent = try GitFixture.logIDs(repo, ["--first-parent", from] + hiddenIDs.map { "^" + $0 })
            #expect(try walkIDs(repository, from: from, hiding: hiddenIDs, firstParentOnly: true) == firstParent, "first parent \(hidden)..\(to)")
        }
    }

    @Test func recordsCarryWhatGitLogShows() throws {
        let (repo, ids) = try sideBranchHistory()
        let repository = try Repository.open(repo.path)
        var records: [CommitRecord] = []
        try repository.walk(from: try GitFixture.id(try #require(ids["E"]))) { records.append($0); return true }
        let log = try repo.git("log", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%ct%x1f%B%x1e")
        let expected = log.split(separator: "\u{1e}").map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
        let actual = records.map { record in
            [record.id.hex, record.parents.map(\.hex).joined(separator: " "), record.authorName, record.authorEmail,
             String(Int(record.authorDate.timeIntervalSince1970)), String(Int(record.committerDate.timeIntervalSince1970)),
             record.message].joined(separator: "\u{1f}").trimmingCharacters(in: .newlines)
        }
        #expect(actual == expected)
        #expect(records.allSatisfy { $0.parentCount == $0.parents.count })
        #expect(records.first(where: { $0.parentCount == 2 })?.subject == "Merge side")
    }

    @Test func stopsWhenTheBodySaysSo() throws {
        let (repo, ids) = try sideBranchHistory()
        var seen = 0
        try Repository.open(repo.path).walk(from: try GitFixture.id(try #require(ids["E"]))) { _ in
            seen += 1
            return seen < 3
        }
        #expect(seen == 3)
    }

    @Test func invalidUTF8InAMessageIsReplacedNotFatal() throws {
        let repo = try TemporaryRepository()
        // `git commit` would re-encode invalid bytes as Latin-1, so the object is written raw.
        let parent = try repo.git("rev-parse", "HEAD")
        let tree = try repo.git("rev-parse", "HEAD^{tree}")
        let header = "tree \(tree)\nparent \(parent)\nauthor A <a@example.com> 1700000000 +0000\n"
            + "committer C <c@example.com> 1700000000 +0000\n\n"
        let file = repo.root + "/commit.bin"
        try Data([UInt8](header.utf8) + [UInt8]("fix: broken ".utf8) + [0xFF, 0xFE] + [UInt8](" bytes\n\nbody \u{e9}\n".utf8))
            .write(to: URL(fileURLWithPath: file))
        let written = try repo.git("hash-object", "-t", "commit", "-w", file)
        try repo.git("update-ref", "refs/heads/main", written)
        #expect(try repo.git("cat-file", "commit", "HEAD").utf8.count > 0)
        let head = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        var message: String?
        try Repository.open(repo.path).walk(from: head) { record in
            message = record.message
            return false
        }
        #expect(message == "fix: broken \u{FFFD}\u{FFFD} bytes\n\nbody \u{e9}\n")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func generatedHistoriesWalkLikeGitLog(seed: UInt64) throws {
        let repo = try TemporaryRepository(commit: false)
        let history = GeneratedHistory(seed: seed, count: 70)
        let ids = try history.write(to: repo)
        let repository = try Repository.open(repo.path)
        var random = SeededGenerator(seed: seed &* 7919)
        for round in 0..<12 {
            let to = ids[Int.random(in: ids.count / 2..<ids.count, using: &random)]
            let hidden = (0..<Int.random(in: 0...2, using: &random)).map { _ in ids[Int.random(in: 0..<ids.count, using: &random)] }
            let expected = try GitFixture.logIDs(repo, [to] + hidden.map { "^" + $0 })
            #expect(try walkIDs(repository, from: to, hiding: hidden) == expected, "seed \(seed) round \(round)")
            let firstParent = try GitFixture.logIDs(repo, ["--first-parent", to] + hidden.map { "^" + $0 })
            #expect(try walkIDs(repository, from: to, hiding: hidden, firstParentOnly: true) == firstParent, "seed \(seed) round \(round) first parent")
        }
        #expect(try repository.commitCount(from: try GitFixture.id(ids[ids.count - 1]))
            == Int(try repo.git("rev-list", "--count", ids[ids.count - 1])))
    }

    // MARK: - Describe

    @Test func lastTagMatchesGitDescribeOnASideBranchHistory() throws {
        let (repo, ids) = try sideBranchHistory()
        let repository = try Repository.open(repo.path)
        for (name, id) in ids {
            let all = try GitFixture.gitResult(repo, ["describe", "--tags", "--abbrev=0", id])
            #expect(try repository.lastTag(reachableFrom: try GitFixture.id(id))?.name
                == (all.status == 0 ? all.stdout.trimmingCharacters(in: .newlines) : nil), "\(name)")
            let matching = try GitFixture.gitResult(repo, ["describe", "--tags", "--abbrev=0", "--match", "v*", id])
            #expect(try repository.lastTag(reachableFrom: try GitFixture.id(id), where: { $0.name.hasPrefix("v") })?.name
                == (matching.status == 0 ? matching.stdout.trimmingCharacters(in: .newlines) : nil), "\(name) v*")
        }
        // The side branch's tag is nearer to E than v0.1 on main.
        #expect(try repository.lastTag(reachableFrom: try GitFixture.id(try #require(ids["E"])))?.name == "v0.9")
    }

    @Test func lastTagsListsEveryTagOnTheChosenCommit() throws {
        let repo = try TemporaryRepository()
        try repo.git("tag", "zz-light")
        try repo.git("tag", "a-light")
        try GitFixture.git(repo, ["tag", "-a", "-m", "older", "m-old"], environment: ["GIT_COMMITTER_DATE": "@1600000000 +0000"])
        try GitFixture.git(repo, ["tag", "-a", "-m", "newer", "n-new"], environment: ["GIT_COMMITTER_DATE": "@1700000000 +0000"])
        let head = try repo.git("rev-parse", "HEAD")
        try GitFixture.commit(repo, "later", at: 1_700_000_500)
        let later = try GitFixture.id(repo.git("rev-parse", "HEAD"))
        let tags = try Repository.open(repo.path).lastTags(reachableFrom: later)
        #expect(tags.map(\.name) == ["n-new", "a-light", "m-old", "zz-light"])
        #expect(tags.allSatisfy { $0.target.hex == head })
        #expect(tags.first?.name == (try repo.git("describe", "--tags", "--abbrev=0", "HEAD")))
    }

    @Test(arguments: [11, 12, 13, 14, 15] as [UInt64])
    func generatedHistoriesDescribeLikeGit(seed: UInt64) throws {
        let repo = try TemporaryRepository(commit: false)
        let history = GeneratedHistory(seed: seed, count: 60, tagEvery: seed % 2 == 0 ? 3 : 7)
        let ids = try history.write(to: repo)
        let repository = try Repository.open(repo.path)
        for (index, id) in ids.enumerated() where index % 2 == 0 || index > 40 {
            let all = try GitFixture.gitResult(repo, ["describe", "--tags", "--abbrev=0", id])
            let found = try repository.lastTag(reachableFrom: try GitFixture.id(id))?.name
            #expect(found == (all.status == 0 ? all.stdout.trimmingCharacters(in: .newlines) : nil), "seed \(seed) commit \(index)")
            let matching = try GitFixture.gitResult(repo, ["describe", "--tags", "--abbrev=0", "--match", "v*", id])
            let foundMatching = try repository.lastTag(reachableFrom: try GitFixture.id(id), where: { $0.name.hasPrefix("v") })?.name
            #expect(foundMatching == (matching.status == 0 ? matching.stdout.trimmingCharacters(in: .newlines) : nil), "seed \(seed) commit \(index) v*")
        }
    }

    @Test func manyLightweightTagsGiveUpAfterTenCandidatesLikeGit() throws {
        let repo = try TemporaryRepository(commit: false)
        let ids = try GeneratedHistory(seed: 21, count: 60, tagEvery: 2, lightweightOnly: true).write(to: repo)
        let repository = try Repository.open(repo.path)
        var gaveUp = 0
        for id in ids.suffix(20) {
            let git = try GitFixture.gitResult(repo, ["describe", "--tags", "--abbrev=0", "--debug", id])
            if git.stderr.contains("more than 10 tags found") { gaveUp += 1 }
            let found = try repository.lastTag(reachableFrom: try GitFixture.id(id))?.name
            #expect(found == (git.status == 0 ? git.stdout.trimmingCharacters(in: .newlines) : nil), "\(id)")
        }
        // The history is made so that git gives up on more candidates; otherwise this tests less.
        #expect(gaveUp > 0)
    }
}
