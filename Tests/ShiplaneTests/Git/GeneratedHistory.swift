import Foundation
@testable import Git

/// A random commit graph with merges, several roots, equal and skewed committer dates and tags,
/// written with `git fast-import`: the material for comparing walks and describe with git.
struct GeneratedHistory {
    struct Commit {
        var parents: [Int]
        var date: Int
    }

    struct TagSpec {
        var name: String
        var commit: Int
        /// nil for a lightweight tag.
        var taggerDate: Int?
    }

    var commits: [Commit] = []
    var tags: [TagSpec] = []

    init(seed: UInt64, count: Int, tagEvery: Int = 6, lightweightOnly: Bool = false) {
        var random = SeededGenerator(seed: seed)
        let base = 1_600_000_000
        for index in 0..<count {
            var parents: [Int] = []
            if index > 0 && Int.random(in: 0..<100, using: &random) >= 4 {
                let recent = max(0, index - 8)
                parents.append(Int.random(in: 0..<100, using: &random) < 65 ? index - 1 : Int.random(in: recent..<index, using: &random))
                let mergeRoll = Int.random(in: 0..<100, using: &random)
                let extra = mergeRoll < 4 ? 2 : (mergeRoll < 28 ? 1 : 0)
                for _ in 0..<extra {
                    let candidate = Int.random(in: 0..<index, using: &random)
                    if !parents.contains(candidate) { parents.append(candidate) }
                }
            }
            let parentDate = parents.map { commits[$0].date }.max() ?? base
            let date: Int
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55: date = parentDate + Int.random(in: 1...600, using: &random)
            case 55..<75: date = parentDate  // ties with the parent
            case 75..<88: date = commits.isEmpty ? base : commits[Int.random(in: 0..<commits.count, using: &random)].date  // ties elsewhere
            default: date = parentDate - Int.random(in: 1...3000, using: &random)  // clock skew: older than a parent
            }
            commits.append(Commit(parents: parents, date: date))
        }
        for index in 0..<count where Int.random(in: 0..<tagEvery, using: &random) == 0 {
            let many = Int.random(in: 0..<4, using: &random) == 0 ? 3 : 1
            for extra in 0..<many {
                let prefix = Int.random(in: 0..<3, using: &random) == 0 ? "rc-" : "v"
                let annotated = Int.random(in: 0..<2, using: &random) == 0 && !lightweightOnly
                let taggerDate = base + Int.random(in: 0..<4, using: &random) * 1000
                tags.append(TagSpec(name: "\(prefix)\(index).\(extra)", commit: index, taggerDate: annotated ? taggerDate : nil))
            }
        }
    }

    /// The fast-import stream; commit `i` gets mark `i + 1`, the last commit is `main`.
    var stream: String {
        var out = ""
        for (index, commit) in commits.enumerated() {
            if commit.parents.isEmpty { out += "reset refs/heads/scratch\n" }
            out += "commit refs/heads/scratch\nmark :\(index + 1)\n"
            out += "author Author \(index % 3) <a\(index % 3)@example.com> \(commit.date - 7) +0100\n"
            out += "committer Committer <c@example.com> \(commit.date) +0000\n"
            out += GitFixture.data("commit \(index)\n\nbody of \(index)\n")
            for (position, parent) in commit.parents.enumerated() {
                out += (position == 0 ? "from" : "merge") + " :\(parent + 1)\n"
            }
            out += "M 644 inline file-\(index % 5).txt\n" + GitFixture.data("\(index)")
            out += "\n"
        }
        for tag in tags {
            if let date = tag.taggerDate {
                out += "tag \(tag.name)\nfrom :\(tag.commit + 1)\ntagger Tagger <t@example.com> \(date) +0000\n"
                out += GitFixture.data("tag \(tag.name)\n")
            } else {
                out += "reset refs/tags/\(tag.name)\nfrom :\(tag.commit + 1)\n\n"
            }
        }
        out += "reset refs/heads/main\nfrom :\(commits.count)\n\n"
        return out
    }

    /// Imports the history into `repo` and returns the commit ids by index.
    func write(to repo: TemporaryRepository) throws -> [String] {
        let marks = try GitFixture.fastImport(repo, stream)
        return try commits.indices.map { index in
            guard let id = marks[index + 1] else { throw TestFailure("no mark for commit \(index)") }
            return id
        }
    }
}
