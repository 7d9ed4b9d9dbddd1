import Foundation
import Testing
@testable import Git

/// git's changed-path Bloom filters (`git commit-graph write --changed-paths`) as the monorepo
/// plan's walk reads them: the hashes against git's own vectors, and the walk's messages with the
/// filters, without them and as `git log STOP..HEAD -- PATH` lists them, package by package.
@Suite("Changed-path Bloom filters of git's commit-graph, against git log", .offThePool)
struct ChangedPathFilterTests {
    /// Package folders (two with a byte of 0x80 or more in the last bytes of their key, where
    /// version 1 filters hash differently from murmur3), a folder package holding another, and a
    /// file.
    private static let packages = ["packages/g0/alpha", "packages/g0/beta", "packages/g1/gamma", "packages/é", "packages/abé",
                                   "packages/g1", "README.md"]
    private static let files = ["packages/g0/alpha/src.txt", "packages/g0/alpha/deep/more.txt", "packages/g0/beta/b.txt",
                                "packages/g1/gamma/c.txt", "packages/g1/other.txt", "packages/é/e.txt", "packages/abé/x.txt",
                                "README.md", "other.txt", "tools/run.sh"]

    @Test func hashesAndKeysAreGits() {
        // t0095-bloom.sh: murmur3 with seed 0, and the keys and two-byte filters of generate_filter.
        #expect(ChangedPathKey.murmur3([], seed: 0) == 0)
        #expect(ChangedPathKey.murmur3(Array("Hello world!".utf8), seed: 0) == 0x627b_0c2c)
        #expect(ChangedPathKey.murmur3(Array("The quick brown fox jumps over the lazy dog".utf8), seed: 0) == 0x2e4f_f723)
        let highBits: [UInt8] = [0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]
        #expect(ChangedPathKey.murmur3(highBits, seed: 0) == 0xa183_ccfd, "get_murmur3_seven_highbit (version 2)")
        #expect(ChangedPathKey.murmur3(highBits, seed: 0, signedTail: true) != 0xa183_ccfd, "version 1 reads the tail as signed")
        #expect(ChangedPathKey.murmur3(Array("file.txt".utf8), seed: 7, signedTail: true) == ChangedPathKey.murmur3(Array("file.txt".utf8), seed: 7))
        for (text, hashes, filter) in [
            ("Hello world!", [0xb270_de9b, 0x1bb6_f26e, 0x84fd_0641] as [UInt32], [0x92, 0x6c] as [UInt8]),
            ("file.txt", [0x20ab_385b, 0xf523_7fe2, 0xc99b_c769], [0xa5, 0x4a]),
            ("", [0x5615_800c, 0x5b96_6560, 0x6117_4ab4], [0x11, 0x11]),
        ] {
            let key = ChangedPathKey(text, version: 2)
            #expect([key.first, key.first &+ key.second, key.first &+ 2 &* key.second] == hashes, "keys of '\(text)'")
            var bytes: [UInt8] = [0, 0]
            for index in 0..<7 {
                let position = Int((key.first &+ UInt32(index) &* key.second) % 16)
                bytes[position / 8] |= 1 << UInt8(position % 8)
            }
            #expect(bytes == filter, "filter of '\(text)'")
            bytes.withUnsafeBytes { #expect(ChangedPathFilter(bytes: $0, hashCount: 7).mayContain(key)) }
            // With one of its bits cleared, the filter rules the path out.
            let position = Int(key.first % 16)
            bytes[position / 8] &= ~(1 << UInt8(position % 8))
            bytes.withUnsafeBytes { #expect(!ChangedPathFilter(bytes: $0, hashCount: 7).mayContain(key)) }
        }
    }

    /// A history touching the packages' files (added, changed, folders deleted, a file where a
    /// folder was, empty commits); with `merges`, side branches merged back every 20 commits.
    private func write(seed: UInt64, count: Int, merges: Bool, to repo: TemporaryRepository) throws -> [String] {
        var random = SeededGenerator(seed: seed)
        var out = ""
        var mark = 0
        var mainline: [Int] = []
        for index in 0..<count {
            let merging = merges && index % 20 == 19 && mainline.count > 6
            var side: Int?
            if merging, let base = mainline.dropLast(5).last {
                mark += 1
                side = mark
                out += "commit refs/heads/side\nmark :\(mark)\ncommitter C <c@example.com> \(1_600_000_000 + index) +0000\n"
                out += GitFixture.data("side \(index)\n") + "from :\(base)\n"
                out += "M 644 inline \(Self.files.randomElement(using: &random) ?? "other.txt")\n" + GitFixture.data("side \(index)") + "\n"
            }
            mark += 1
            out += "commit refs/heads/main\nmark :\(mark)\ncommitter C <c@example.com> \(1_600_000_000 + index) +0000\n"
            out += GitFixture.data("commit \(index)\n")
            if let previous = mainline.last { out += "from :\(previous)\n" }
            if let side { out += "merge :\(side)\n" }
            switch index == 0 ? 9 : Int.random(in: 0..<12, using: &random) {
            case 0: out += "D \(["packages/g0/beta", "packages/g1", "packages/é"].randomElement(using: &random) ?? "packages/g1")\n"
            case 1: out += "M 644 inline packages/g0/beta\n" + GitFixture.data("a file where a folder was \(index)")
            case 2: break
            default:
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    out += "M 644 inline \(Self.files.randomElement(using: &random) ?? "other.txt")\n" + GitFixture.data("\(index)")
                }
            }
            out += "\n"
            mainline.append(mark)
        }
        let marks = try GitFixture.fastImport(repo, out)
        try repo.git("reset", "-q", "--hard", "main")
        return try mainline.map { mark in
            guard let id = marks[mark] else { throw TestFailure("no mark \(mark)") }
            return id
        }
    }

    private func messages(_ repository: Repository, _ stops: [String?], head: String, filters: Bool) throws -> ([[String]], Repository.PathWalkCounts) {
        let (found, counts) = try repository.messagesChanging(
            Self.packages, since: try stops.map { try $0.map(GitFixture.id) }, from: try GitFixture.id(head), readingFilters: filters)
        return (found.map { $0.map { $0.trimmingCharacters(in: .newlines) }.sorted() }, counts)
    }

    /// Stops for the packages: earlier commits, some shared, some none.
    private func stops(_ ids: [String], _ random: inout SeededGenerator) -> [String?] {
        let shared = ids[Int.random(in: 0..<ids.count, using: &random)]
        return Self.packages.map { _ in
            switch Int.random(in: 0..<5, using: &random) {
            case 0: nil
            case 1: shared
            default: ids[Int.random(in: 0..<ids.count - 10, using: &random)]
            }
        }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func eachPackageIsWhatGitLogListsWithAndWithoutFilters(seed: UInt64) throws {
        let repo = try TemporaryRepository(commit: false)
        let ids = try write(seed: seed, count: 160, merges: false, to: repo)
        try repo.git("commit-graph", "write", "--reachable", "--changed-paths")
        let repository = try Repository.open(repo.path)
        let file = try #require(CommitGraphFile.open(repository: repository))
        #expect(file.changedPaths == ChangedPathSettings(version: 1, hashCount: 7), "git 2.39 writes version 1 filters")
        var random = SeededGenerator(seed: seed &* 11)
        for round in 0..<3 {
            let head = ids[Int.random(in: ids.count - 20..<ids.count, using: &random)]
            let stops = stops(ids, &random)
            let (filtered, counts) = try messages(repository, stops, head: head, filters: true)
            let (read, readCounts) = try messages(repository, stops, head: head, filters: false)
            #expect(filtered == read, "seed \(seed) round \(round): the same with and without filters")
            #expect(counts.skippedByFilter > 0 && counts.compared < readCounts.compared, "the filters spared reads: \(counts) against \(readCounts)")
            #expect(readCounts.skippedByFilter == 0)
            for (index, package) in Self.packages.enumerated() {
                let range = stops[index].map { "\($0)..\(head)" } ?? head
                let listed = try repo.git("log", "--format=%s", range, "--", package).split(separator: "\n").map(String.init).sorted()
                #expect(filtered[index] == listed, "seed \(seed) round \(round) \(package) since \(stops[index] ?? "the start")")
            }
        }
    }

    @Test(arguments: [3, 4] as [UInt64])
    func mergesAChainAndMissingFiltersGiveWhatTheTreesGive(seed: UInt64) throws {
        let repo = try TemporaryRepository(commit: false)
        var ids = try write(seed: seed, count: 100, merges: true, to: repo)
        // The lower layer with filters, a top layer without (its commits read their trees).
        try repo.git("commit-graph", "write", "--reachable", "--split", "--changed-paths")
        let older = ids
        for index in 0..<15 { ids.append(try GitFixture.commit(repo, "commit \(100 + index)", at: 1_700_000_000 + index, file: "packages/g0/alpha/new-\(index).txt")) }
        try repo.git("commit-graph", "write", "--reachable", "--split=no-merge", "--no-changed-paths")
        let repository = try Repository.open(repo.path)
        var random = SeededGenerator(seed: seed &* 13)
        for round in 0..<3 {
            let stops = stops(older, &random)
            let (filtered, counts) = try messages(repository, stops, head: ids[ids.count - 1], filters: true)
            let (read, readCounts) = try messages(repository, stops, head: ids[ids.count - 1], filters: false)
            #expect(filtered == read, "seed \(seed) round \(round)")
            #expect(counts.skippedByFilter > 0 && readCounts.skippedByFilter == 0, "\(counts), \(readCounts)")
            // The top layer's 15 commits (one package each) have no filter: always compared.
            #expect(counts.compared >= 15)
        }
    }

    @Test func filtersAreReadOnlyWhereGitWouldReadThem() throws {
        let repo = try TemporaryRepository(commit: false)
        let ids = try write(seed: 5, count: 80, merges: false, to: repo)
        var random = SeededGenerator(seed: 55)
        let stops = stops(ids, &random)
        func walk() throws -> ([[String]], Repository.PathWalkCounts) {
            try messages(try Repository.open(repo.path), stops, head: ids[ids.count - 1], filters: true)
        }
        // A commit-graph without filters: every unsettled commit is compared.
        try repo.git("commit-graph", "write", "--reachable")
        let (plain, plainCounts) = try walk()
        #expect(plainCounts.skippedByFilter == 0 && plainCounts.compared > 0)
        try repo.git("commit-graph", "write", "--reachable", "--changed-paths")
        let (filtered, counts) = try walk()
        #expect(filtered == plain && counts.skippedByFilter > 0)
        // commitGraph.changedPathsVersion: 0 reads none, another version than the file's none,
        // the file's own (or -1) reads them; the deprecated readChangedPaths=false reads none.
        for (name, value, reads) in [("commitGraph.changedPathsVersion", "0", false), ("commitGraph.changedPathsVersion", "2", false),
                                     ("commitGraph.changedPathsVersion", "1", true), ("commitGraph.changedPathsVersion", "-1", true),
                                     ("commitGraph.readChangedPaths", "false", false)] {
            try repo.git("config", name, value)
            let (found, counted) = try walk()
            #expect(found == plain, "\(name)=\(value)")
            #expect((counted.skippedByFilter > 0) == reads, "\(name)=\(value): \(counted)")
            try repo.git("config", "--unset", name)
        }
    }
}
