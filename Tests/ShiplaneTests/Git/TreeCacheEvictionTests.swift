import Foundation
import Testing
@testable import Git

/// The monorepo walk's tree cache frees the trees it keeps once it holds too many: between two
/// commits' comparisons, never inside one. The 10,000-package plan of issue 42 listed 733
/// packages where 731 was right because the cache was emptied while reading the parent's tree,
/// freeing the commit's own tree still in use (a `packages/` folder of thousands of entries is
/// larger than libgit2's 4 KiB tree cache keeps, so it was freed for real and read after).
/// Here the same shape, small: 240 packages under one folder (a tree of about 8 KiB), a history
/// touching a few at a time, and a cache of one tree, so that a tree is evicted at every read
/// where the old placement freed the sibling still referenced. Every package's messages must be
/// what `git log STOP..HEAD -- PATH` lists.
@Suite("The monorepo walk's tree cache against git log", .offThePool)
struct TreeCacheEvictionTests {
    @Test func everyPackageAgreesWithGitLogWhileTheCacheEvictsAtEveryRead() throws {
        let count = ProcessInfo.processInfo.environment["SHIPLANE_SCALE"] == "1" ? 2000 : 240
        let packages = (0..<count).map { String(format: "packages/p%04d", $0) }
        let repo = try TemporaryRepository(commit: false)
        var random = SeededGenerator(seed: 42)
        var out = "commit refs/heads/main\nmark :1\ncommitter C <c@example.com> 1600000000 +0000\n" + GitFixture.data("chore: start\n")
        for package in packages { out += "M 644 inline \(package)/src.txt\n" + GitFixture.data("start") }
        out += "\n"
        let commits = 150
        for index in 1..<commits {
            out += "commit refs/heads/main\nmark :\(index + 1)\ncommitter C <c@example.com> \(1_600_000_000 + index) +0000\n"
            out += GitFixture.data("commit \(index)\n") + "from :\(index)\n"
            if index % 7 == 0 {
                out += "M 644 inline other.txt\n" + GitFixture.data("chore \(index)")
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let package = packages[Int.random(in: 0..<count, using: &random)]
                    out += "M 644 inline \(package)/src.txt\n" + GitFixture.data("\(index)")
                }
            }
            out += "\n"
        }
        let marks = try GitFixture.fastImport(repo, out)
        try repo.git("reset", "-q", "--hard", "main")
        let ids = try (1...commits).map { mark in
            guard let id = marks[mark] else { throw TestFailure("no mark \(mark)") }
            return id
        }
        let head = ids[ids.count - 1]
        let stops: [String?] = packages.map { _ in
            Int.random(in: 0..<4, using: &random) == 0 ? nil : ids[Int.random(in: 0..<ids.count - 10, using: &random)]
        }
        var listed: [[String]] = []
        for (index, package) in packages.enumerated() {
            let range = stops[index].map { "\($0)..\(head)" } ?? head
            listed.append(try repo.git("log", "--format=%s", range, "--", package).split(separator: "\n").map(String.init).sorted())
        }
        let repository = try Repository.open(repo.path)
        for limit in [1, 4096] {
            let (found, _) = try repository.messagesChanging(
                packages, since: try stops.map { try $0.map(GitFixture.id) }, from: try GitFixture.id(head), readingFilters: false,
                treeCacheLimit: limit)
            var wrong: [String] = []
            for (index, package) in packages.enumerated() {
                let walked = found[index].map { $0.trimmingCharacters(in: .newlines) }.sorted()
                if walked != listed[index] { wrong.append("\(package): walked \(walked), git log \(listed[index])") }
            }
            #expect(wrong.isEmpty, "cache of \(limit): \(wrong.count) of \(count) packages differ from git log: \(wrong.prefix(5))")
        }
    }
}
