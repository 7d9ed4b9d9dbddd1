import Foundation

extension Repository {
    /// The tag `git describe --tags --abbrev=0` would name for `commit`, among tags that `matches`.
    ///
    /// This is git's describe search, not a plain "first tag in history order": the commit's own
    /// tag wins; otherwise history is walked newest first, up to ten candidate tags are collected
    /// and the one with the fewest commits between it and `commit` wins (ties: the one found
    /// first). When several tags name the same commit, git's rule picks one: an annotated tag
    /// over a lightweight one, then the newest tagger date, then the first by name. `lastTags`
    /// returns all of them.
    /// - Returns: nil when no matching tag is reachable from `commit`.
    public func lastTag(reachableFrom commit: ObjectID, where matches: (Tag) -> Bool = { _ in true }) throws -> Tag? {
        lock.lock(); defer { lock.unlock() }
        return try lastTags(reachableFrom: commit, where: matches).first
    }

    /// Every matching tag on the commit `lastTag` finds, the one `lastTag` returns first, the rest
    /// by name; empty when no matching tag is reachable.
    public func lastTags(reachableFrom commit: ObjectID, where matches: (Tag) -> Bool = { _ in true }) throws -> [Tag] {
        lock.lock(); defer { lock.unlock() }
        var byCommit: [ObjectID: [Tag]] = [:]
        for tag in try tags() where matches(tag) { byCommit[tag.target, default: []].append(tag) }
        guard !byCommit.isEmpty else { return [] }

        let graph = try CommitGraph(repository: self)
        var names: [CommitGraph.Node: [Tag]] = [:]
        for (target, tags) in byCommit { names[graph.node(ObjectKey(target))] = Self.describeOrder(tags) }
        let start = try graph.commitNode(for: commit, in: self)
        if let exact = names[start] { return exact }

        guard let best = try DescribeSearch(graph: graph, names: names).run(from: start) else { return [] }
        return names[best] ?? []
    }

    /// Tags of one commit, git describe's choice first (`replace_name`: annotated beats
    /// lightweight, then a newer tagger date wins, else the first by name stays), the rest by name.
    static func describeOrder(_ tags: [Tag]) -> [Tag] {
        let sorted = tags.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var best: Tag?
        for tag in sorted {
            guard let current = best else { best = tag; continue }
            if !current.isAnnotated && tag.isAnnotated {
                best = tag
            } else if current.isAnnotated && tag.isAnnotated,
                      (current.tagger?.date ?? .distantPast) < (tag.tagger?.date ?? .distantPast) {
                best = tag
            }
        }
        guard let best else { return [] }
        return [best] + sorted.filter { $0.name != best.name }
    }
}

/// `git describe`'s candidate search (`builtin/describe.c`: `describe_commit`, as of git 2.27+,
/// which walks on until the best candidates cover the last path), returning the best commit.
///
/// Only the choice matters here, so `finish_depth_computation` (the `-N-g<hash>` count) is left out.
private struct DescribeSearch {
    typealias Node = CommitGraph.Node

    let graph: CommitGraph
    let names: [Node: [Tag]]
    private static let seen: UInt32 = 1
    private static let maxCandidates = 10

    init(graph: CommitGraph, names: [Node: [Tag]]) {
        self.graph = graph
        self.names = names
    }

    private struct Candidate {
        var node: Node
        var depth: Int
        var flag: UInt32
        var foundOrder: Int
    }

    func run(from start: Node) throws -> Node? {
        var queue = DateQueue()
        graph.flags[Int(start)] = Self.seen
        queue.push(start, date: graph.dates[Int(start)])
        var candidates: [Candidate] = []
        var seenCommits = 0
        var annotatedCount = 0
        while let node = queue.pop() {
            seenCommits += 1
            if candidates.count == Self.maxCandidates { break }
            if let tags = names[node] {
                let flag = UInt32(1) << UInt32(candidates.count + 1)
                candidates.append(Candidate(node: node, depth: seenCommits - 1, flag: flag, foundOrder: candidates.count + 1))
                graph.flags[Int(node)] |= flag
                if tags.first?.isAnnotated == true { annotatedCount += 1 }
            }
            let flags = graph.flags[Int(node)]
            for index in candidates.indices where flags & candidates[index].flag == 0 {
                candidates[index].depth += 1
            }
            // Stop when the last remaining path is already covered by the best candidate(s).
            if annotatedCount > 0 && queue.peekDate == nil {
                let bestDepth = candidates.map(\.depth).min() ?? Int.max
                let bestWithin = candidates.filter { $0.depth == bestDepth }.reduce(UInt32(0)) { $0 | $1.flag }
                if flags & bestWithin == bestWithin { break }
            }
            try graph.parse(node)
            for parent in graph.parents(of: node) {
                try graph.parse(parent)
                if graph.flags[Int(parent)] & Self.seen == 0 {
                    queue.push(parent, date: graph.dates[Int(parent)])
                }
                graph.flags[Int(parent)] |= flags
            }
        }
        return candidates.min { ($0.depth, $0.foundOrder) < ($1.depth, $1.foundOrder) }?.node
    }
}
