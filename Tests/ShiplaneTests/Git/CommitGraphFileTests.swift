import Foundation
import Testing
@testable import Git

/// git's commit-graph file, read by `CommitGraphFile`, against what `git log` says of the same
/// commits; and walks that share one graph (`HistoryWalker`), with and without the file.
@Suite("git's commit-graph file and shared history walks, against git log", .offThePool)
struct CommitGraphFileTests {
    /// A generated history (merges, octopus merges, clock skew) with `git commit-graph write`
    /// run on it; `split` writes two layers (a chain) instead of one file.
    private func history(seed: UInt64, split: Bool) throws -> (TemporaryRepository, [String]) {
        let repo = try TemporaryRepository(commit: false)
        var ids = try GeneratedHistory(seed: seed, count: 80).write(to: repo)
        if split {
            try repo.git("commit-graph", "write", "--reachable", "--split")
            // A second layer on top: a few commits and a merge after the first write.
            try repo.git("checkout", "-q", "-b", "topic")
            ids.append(try GitFixture.commit(repo, "topic work", at: 1_700_000_000))
            try repo.git("checkout", "-q", "main")
            ids.append(try GitFixture.commit(repo, "main work", at: 1_700_000_100))
            let date = "@1700000200 +0000"
            try GitFixture.git(repo, ["merge", "-q", "--no-ff", "-m", "Merge topic", "topic"], environment: ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date])
            ids.append(try repo.git("rev-parse", "HEAD"))
            try repo.git("commit-graph", "write", "--reachable", "--split=no-merge")
            let chain = try String(contentsOfFile: repo.path + "/.git/objects/info/commit-graphs/commit-graph-chain", encoding: .utf8)
            #expect(chain.split(separator: "\n").count == 2, "a chain of two layers")
        } else {
            try repo.git("commit-graph", "write", "--reachable")
            #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/objects/info/commit-graph"))
        }
        return (repo, ids)
    }

    /// Parents and committer date of every commit as `git log` prints them.
    private func gitParentsAndDates(_ repo: TemporaryRepository) throws -> [String: (parents: [String], date: Int64)] {
        var table: [String: (parents: [String], date: Int64)] = [:]
        for line in try repo.git("log", "--all", "--format=%H %ct %P").split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            table[fields[0]] = (Array(fields.dropFirst(2)), Int64(fields[1]) ?? -1)
        }
        return table
    }

    @Test(arguments: [(21, false), (22, false), (25, true), (24, true)] as [(UInt64, Bool)])
    func theFileGivesEveryCommitsParentsAndDateAsGitLogDoes(seed: UInt64, split: Bool) throws {
        let (repo, _) = try history(seed: seed, split: split)
        let repository = try Repository.open(repo.path)
        let file = try #require(CommitGraphFile.open(repository: repository))
        let expected = try gitParentsAndDates(repo)
        // Octopus merges put their parents in the file's EDGE chunk.
        #expect(expected.values.contains { $0.parents.count >= 3 }, "the history has an octopus merge")
        for (id, commit) in expected {
            let entry = try #require(file.commit(ObjectKey(try GitFixture.id(id))), "\(id) is in the file")
            #expect(entry.parents.map(\.objectID.hex) == commit.parents, "parents of \(id)")
            #expect(entry.date == commit.date, "date of \(id)")
        }
        #expect(file.commit(ObjectKey(try GitFixture.id(String(repeating: "0", count: 40)))) == nil)
    }

    @Test(arguments: [(31, false), (32, true), (33, nil)] as [(UInt64, Bool?)])
    func walksThatShareAGraphMatchGitLogRangeAfterRange(seed: UInt64, split: Bool?) throws {
        let repo: TemporaryRepository
        let ids: [String]
        if let split {
            (repo, ids) = try history(seed: seed, split: split)
        } else {
            // No commit-graph file: every header comes from the objects.
            repo = try TemporaryRepository(commit: false)
            ids = try GeneratedHistory(seed: seed, count: 80).write(to: repo)
        }
        let repository = try Repository.open(repo.path)
        let walker = try HistoryWalker(repository: repository)
        // Release-like ranges, newest first, the way a whole-history changelog asks for them;
        // then random ranges, so flags left by one walk would show in the next.
        var random = SeededGenerator(seed: seed)
        var ranges: [(String, [String])] = stride(from: ids.count - 1, to: 10, by: -9).map { (ids[$0], [ids[$0 - 9]]) }
        ranges += (0..<15).map { _ in
            (ids[Int.random(in: ids.count / 2..<ids.count, using: &random)],
             (0..<Int.random(in: 0...2, using: &random)).map { _ in ids[Int.random(in: 0..<ids.count, using: &random)] })
        }
        let tags = stride(from: 0, to: ids.count, by: 7).map { ids[$0] }
        let reachable = try walker.reachable(try tags.map { try GitFixture.id($0) }, from: try GitFixture.id(ids[ids.count / 2]))
        for tag in tags {
            let isAncestor = try GitFixture.gitResult(repo, ["merge-base", "--is-ancestor", tag, ids[ids.count / 2]]).status == 0
            #expect(reachable.contains(try GitFixture.id(tag)) == isAncestor, "reachability of \(tag)")
        }
        for (round, (to, hidden)) in ranges.enumerated() {
            var walked: [String] = []
            try walker.walk(from: try GitFixture.id(to), hiding: try hidden.map { try GitFixture.id($0) }) { record in
                walked.append(record.id.hex)
                return true
            }
            #expect(walked == (try GitFixture.logIDs(repo, [to] + hidden.map { "^" + $0 })), "seed \(seed) range \(round)")
        }
        #expect(try repository.commitCount(from: try GitFixture.id(ids[ids.count - 1]))
            == Int(try repo.git("rev-list", "--count", ids[ids.count - 1])))
    }

    /// A whole-history changelog's shape: one reachability pass over most commits as candidates,
    /// then walks each hiding one candidate, in release order and at random, some from commits
    /// the pass did not reach. A walk hiding a reached candidate takes its hidden commits from the
    /// ancestry made once; it must show what the same walk shows when it marks them as it goes
    /// (raw objects kept from the pass or not).
    @Test(arguments: [(41, false), (42, true), (43, nil)] as [(UInt64, Bool?)])
    func walksHidingACandidateOfTheReachabilityPassMatchTheMarkingWalk(seed: UInt64, split: Bool?) throws {
        let repo: TemporaryRepository
        let ids: [String]
        if let split {
            (repo, ids) = try history(seed: seed, split: split)
        } else {
            repo = try TemporaryRepository(commit: false)
            ids = try GeneratedHistory(seed: seed, count: 80).write(to: repo)
        }
        let repository = try Repository.open(repo.path)
        let root = ids.count * 3 / 4
        let candidates = try ids[..<root].map { try GitFixture.id($0) }
        let walker = try HistoryWalker(repository: repository)
        let marking = try HistoryWalker(repository: repository)
        marking.usesAncestry = false
        let reachable = try walker.reachable(candidates, from: try GitFixture.id(ids[root]))
        #expect(try marking.reachable(candidates, from: try GitFixture.id(ids[root]), keepingMessages: false) == reachable)
        var random = SeededGenerator(seed: seed)
        var ranges: [(String, String)] = stride(from: root, to: 8, by: -8).map { (ids[$0], ids[$0 - 8]) }
        ranges += (0..<20).map { _ in
            (ids[Int.random(in: 0..<ids.count, using: &random)], ids[Int.random(in: 0..<root, using: &random)])
        }
        var fromTheAncestry = 0
        for (round, (to, hidden)) in ranges.enumerated() {
            if reachable.contains(try GitFixture.id(hidden)) { fromTheAncestry += 1 }
            var walked: [String] = []
            try walker.walk(from: try GitFixture.id(to), hiding: [try GitFixture.id(hidden)]) { record in
                walked.append(record.id.hex + " " + record.message)
                return true
            }
            var marked: [String] = []
            try marking.walk(from: try GitFixture.id(to), hiding: [try GitFixture.id(hidden)]) { record in
                marked.append(record.id.hex + " " + record.message)
                return true
            }
            #expect(walked == marked, "seed \(seed) range \(round)")
        }
        #expect(fromTheAncestry >= ranges.count / 4, "a good part of the walks hide a commit the pass reached")
    }

    @Test func aLinkedWorktreeFindsTheFileInTheCommonFolder() throws {
        let (repo, ids) = try history(seed: 42, split: false)
        let worktree = repo.root + "/linked"
        try repo.git("worktree", "add", "-q", "--detach", worktree, ids[ids.count - 1])
        let repository = try Repository.open(worktree)
        let file = try #require(CommitGraphFile.open(repository: repository), "the worktree's objects are the main folder's")
        #expect(file.commit(ObjectKey(try GitFixture.id(ids[ids.count - 1]))) != nil)
    }

    @Test func aDamagedOrDisabledFileIsIgnoredAndWalksStillMatchGitLog() throws {
        let (repo, ids) = try history(seed: 41, split: false)
        let path = repo.path + "/.git/objects/info/commit-graph"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected = try GitFixture.logIDs(repo, [ids[ids.count - 1]])
        func walk() throws -> [String] {
            var walked: [String] = []
            try Repository.open(repo.path).walk(from: try GitFixture.id(ids[ids.count - 1])) { walked.append($0.id.hex); return true }
            return walked
        }
        var badSignature = original
        badSignature[0] = UInt8(ascii: "X")
        var chunkPastTheEnd = original
        // The second chunk's offset (bytes 8 + 12 + 4 ..< +8) pointed past the end of the file.
        chunkPastTheEnd.replaceSubrange(24..<32, with: [0x7F, 0, 0, 0, 0, 0, 0, 0])
        let damaged: [(String, Data)] = [
            ("truncated", original.prefix(original.count / 2)), ("empty", Data()),
            ("bad signature", badSignature), ("chunk past the end", chunkPastTheEnd),
        ]
        for (name, bytes) in damaged {
            try FileManager.default.removeItem(atPath: path)
            try bytes.write(to: URL(fileURLWithPath: path))
            #expect(CommitGraphFile.open(repository: try Repository.open(repo.path)) == nil, "\(name) file is not used")
            #expect(try walk() == expected, "\(name) file")
        }
        try FileManager.default.removeItem(atPath: path)
        try original.write(to: URL(fileURLWithPath: path))
        #expect(CommitGraphFile.open(repository: try Repository.open(repo.path)) != nil)
        try repo.git("config", "core.commitGraph", "false")
        #expect(CommitGraphFile.open(repository: try Repository.open(repo.path)) == nil, "core.commitGraph=false turns it off, as for git")
        #expect(try walk() == expected)
    }
}
