import Foundation
import Testing
@testable import Git

/// `Repository.messagesChanging` (the monorepo plan's one walk) against git: for each path and
/// stop, the commits `git rev-list HEAD` lists and `git rev-list STOP` does not whose object at
/// the path (`git ls-tree`) differs from their first parent's.
@Suite("One history walk for many paths, against git rev-list and git ls-tree", .offThePool)
struct PathHistoryTests {
    /// Package folders, nested ones and files; commits change, add, delete and replace them.
    private static let paths = ["packages/a", "packages/b", "packages/b/inner", "packages/c", "tools/x", "tools", "README.md", "."]
    private static let files = ["packages/a/src.txt", "packages/a/deep/more.txt", "packages/b/main.txt", "packages/b/inner/i.txt",
                                "packages/c/c.txt", "tools/x/run.sh", "tools/y.txt", "README.md", "other.txt"]

    /// The generated commit graph (merges, several roots, skewed dates) with files of our own.
    private func write(seed: UInt64, to repo: TemporaryRepository) throws -> [String] {
        let history = GeneratedHistory(seed: seed, count: 60, lightweightOnly: true)
        var random = SeededGenerator(seed: seed &* 31)
        var out = ""
        for (index, commit) in history.commits.enumerated() {
            if commit.parents.isEmpty { out += "reset refs/heads/scratch\n" }
            out += "commit refs/heads/scratch\nmark :\(index + 1)\n"
            out += "committer C <c@example.com> \(commit.date) +0000\n"
            out += GitFixture.data("commit \(index)\n")
            for (position, parent) in commit.parents.enumerated() {
                out += (position == 0 ? "from" : "merge") + " :\(parent + 1)\n"
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0: out += "D \(["packages/b", "tools", "packages/a/deep"].randomElement(using: &random) ?? "tools")\n"
            case 1: out += "M 644 inline packages/c\n" + GitFixture.data("a file where a folder was \(index)")
            case 2: break  // an empty commit: changes nothing
            default:
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    out += "M 644 inline \(Self.files.randomElement(using: &random) ?? "other.txt")\n" + GitFixture.data("\(index)")
                }
            }
            out += "\n"
        }
        out += "reset refs/heads/main\nfrom :\(history.commits.count)\n\n"
        let marks = try GitFixture.fastImport(repo, out)
        return try history.commits.indices.map { index in
            guard let id = marks[index + 1] else { throw TestFailure("no mark for commit \(index)") }
            return id
        }
    }

    /// Every path's object (tree or blob) at `commit`, the root as ".".
    private func objects(_ repo: TemporaryRepository, _ commit: String, cache: inout [String: [String: String]]) throws -> [String: String] {
        if let known = cache[commit] { return known }
        var result = [".": try repo.git("rev-parse", commit + "^{tree}")]
        for line in try repo.git("ls-tree", "-r", "-t", "--full-tree", commit).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, let id = parts[0].split(separator: " ").last else { continue }
            result[String(parts[1])] = String(id)
        }
        cache[commit] = result
        return result
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func messagesMatchGit(seed: UInt64) throws {
        let repo = try TemporaryRepository(commit: false)
        let ids = try write(seed: seed, to: repo)
        let repository = try Repository.open(repo.path)
        var random = SeededGenerator(seed: seed &* 7)
        var cache: [String: [String: String]] = [:]
        var firstParents: [String: [String]] = [:]
        var lists: [String: [String]] = [:]
        func reachable(_ commit: String) throws -> [String] {
            if let known = lists[commit] { return known }
            let listed = try repo.git("rev-list", commit).split(separator: "\n").map(String.init)
            lists[commit] = listed
            return listed
        }
        for round in 0..<4 {
            let head = ids[Int.random(in: ids.count / 2..<ids.count, using: &random)]
            // Stops anywhere (also off head's history, also none), some paths sharing one.
            let shared = ids[Int.random(in: 0..<ids.count, using: &random)]
            let stops: [String?] = Self.paths.map { _ in
                switch Int.random(in: 0..<4, using: &random) {
                case 0: nil
                case 1: shared
                default: ids[Int.random(in: 0..<ids.count, using: &random)]
                }
            }
            let found = try repository.messagesChanging(Self.paths, since: try stops.map { try $0.map(GitFixture.id) }, from: try GitFixture.id(head))
            for (index, path) in Self.paths.enumerated() {
                var expected: [String] = []
                // `git rev-list HEAD` less `git rev-list STOP`: exact ancestry. (`git log HEAD ^STOP`
                // may list a hidden commit when committer dates are skewed, as git's walk stops
                // marking hidden commits a few commits after only hidden ones remain.)
                let hidden = try Set(stops[index].map { try reachable($0) } ?? [])
                for commit in try reachable(head) where !hidden.contains(commit) {
                    if firstParents[commit] == nil {
                        firstParents[commit] = try repo.git("rev-list", "--parents", "-n", "1", commit).split(separator: " ").dropFirst().prefix(1).map(String.init)
                    }
                    let mine = try objects(repo, commit, cache: &cache)[path]
                    let theirs = try firstParents[commit]?.first.flatMap { try objects(repo, $0, cache: &cache)[path] }
                    if mine != theirs, let number = ids.firstIndex(of: commit) { expected.append("commit \(number)") }
                }
                #expect(found[index].map { $0.trimmingCharacters(in: .newlines) }.sorted() == expected.map { $0.trimmingCharacters(in: .newlines) }.sorted(),
                        "seed \(seed) round \(round) path \(path) stop \(stops[index] ?? "none")")
            }
        }
    }
}
