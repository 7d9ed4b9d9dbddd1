import Foundation
internal import CLibgit2

/// One commit as a changelog needs it.
public struct CommitRecord: Equatable, Sendable {
    public var id: ObjectID
    /// Parents in order (the first is the branch the commit was made on); none for a root commit.
    public var parents: [ObjectID]
    public var authorName: String
    public var authorEmail: String
    public var authorDate: Date
    public var committerDate: Date
    /// The raw message (subject, blank line, body) decoded as UTF-8; invalid bytes become U+FFFD.
    public var message: String

    public var parentCount: Int { parents.count }

    /// The first line of the message.
    public var subject: String {
        String(message.prefix { $0 != "\n" && $0 != "\r\n" })
    }

    public init(id: ObjectID, parents: [ObjectID], authorName: String, authorEmail: String, authorDate: Date, committerDate: Date, message: String) {
        self.id = id
        self.parents = parents
        self.authorName = authorName
        self.authorEmail = authorEmail
        self.authorDate = authorDate
        self.committerDate = committerDate
        self.message = message
    }

    /// Parses a raw commit object.
    init(id: ObjectID, raw: UnsafeRawBufferPointer, dropParents: Bool) {
        var header = CommitHeader(raw)
        let parentKeys = header.parents()
        let none: (name: String, email: String, seconds: Int64, offset: Int) = ("", "", 0, 0)
        let author = header.identLine("author").map { header.ident($0) } ?? none
        let committer = header.identLine("committer").map { header.ident($0) } ?? none
        let start = header.messageStart()
        self.init(
            id: id, parents: dropParents ? [] : parentKeys.map(\.objectID),
            authorName: author.name, authorEmail: author.email,
            authorDate: Date(timeIntervalSince1970: TimeInterval(author.seconds)),
            committerDate: Date(timeIntervalSince1970: TimeInterval(committer.seconds)),
            message: String(decoding: UnsafeRawBufferPointer(rebasing: raw[start...]), as: UTF8.self))
    }
}

extension Repository {
    /// Calls `body` for each commit of `git log <from> ^<hiding>...`, in `git log`'s order, until
    /// `body` returns false. See `HistoryWalker.walk` for the order; several walks of one history
    /// share their reads through one `HistoryWalker`.
    /// - Throws: `GitError` `.notFound` when a commit the walk needs is missing.
    public func walk(
        from start: ObjectID, hiding hidden: [ObjectID] = [], firstParentOnly: Bool = false,
        _ body: (CommitRecord) throws -> Bool
    ) throws {
        lock.lock(); defer { lock.unlock() }
        return try HistoryWalker(repository: self).walk(from: start, hiding: hidden, firstParentOnly: firstParentOnly, body)
    }

    /// The commits among `candidates` that are reachable from `commit` (itself included), found in
    /// one traversal that reads no messages.
    public func reachable(_ candidates: [ObjectID], from commit: ObjectID) throws -> Set<ObjectID> {
        lock.lock(); defer { lock.unlock() }
        return try HistoryWalker(repository: self).reachable(candidates, from: commit, keepingMessages: false)
    }

    /// The number of commits reachable from `commit`, itself included (`git rev-list --count`).
    public func commitCount(from commit: ObjectID) throws -> Int {
        lock.lock(); defer { lock.unlock() }
        let graph = try CommitGraph(repository: self, file: CommitGraphFile.open(repository: self))
        var pending = [try graph.commitNode(for: commit, in: self)]
        graph.flags[Int(pending[0])] = 1
        var count = 0
        while let node = pending.popLast() {
            count += 1
            try graph.parse(node)
            for parent in graph.parents(of: node) where graph.flags[Int(parent)] == 0 {
                graph.flags[Int(parent)] = 1
                pending.append(parent)
            }
        }
        return count
    }
}

/// Walks of one history that share one commit graph, so a commit's parents and date are read
/// once however many walks pass it.
///
/// A whole-history changelog walks once per release (`git log v1.1.0..v1.2.0`, then
/// `v1.0.0..v1.1.0`, …). With a graph per walk, every walk re-read the commits below its hidden
/// boundary that git's algorithm visits before it stops: on git/git's 738 releases that was about
/// 24 object reads per commit. Sharing the graph leaves one header read per commit (none when git's
/// commit-graph file has the commit) plus one read of each shown commit's message. Raw objects a
/// walk read but did not show are freed when the walk ends, so memory holds the graph and at most
/// one release's objects.
public final class HistoryWalker {
    private let repository: Repository
    private let graph: CommitGraph
    /// The last `reachable` pass's start and the candidates it found: every ancestor of those is
    /// parsed, so `ancestry` can be computed over them.
    private var reachedRoot: CommitGraph.Node?
    private var reachedCandidates: [CommitGraph.Node] = []
    /// Which of `reachedCandidates` each node descends from, made by the first walk hiding one.
    private var ancestry: Ancestry?
    private var ancestryTried = false
    /// Off: every walk marks its hidden commits as it goes, as before the ancestry (tests compare the two).
    var usesAncestry = true

    /// Raw commit objects the `reachable` pass of a changelog keeps for the walks that show them
    /// (freed as each is shown): each of those commits is inflated once instead of twice. About
    /// a quarter of git/git's commit objects (62 MB in all); the bound keeps its whole changelog
    /// under 120 MB peak.
    static let prefetchBytes = 16 << 20

    public init(repository: Repository) throws {
        repository.lock.lock(); defer { repository.lock.unlock() }
        self.repository = repository
        graph = try CommitGraph(repository: repository, keepingObjects: true, file: CommitGraphFile.open(repository: repository))
    }

    /// Calls `body` for each commit of `git log <from> ^<hiding>...`, in `git log`'s order, until
    /// `body` returns false.
    ///
    /// The order is git's default: a queue by committer date, newest first, where a commit's
    /// parents join the queue when it is shown and commits with the same date leave it in the
    /// order they joined. That is what `git log` does; it differs from a plain sort by date when a
    /// parent is dated after its child (clock skew) and from libgit2's `GIT_SORT_TIME`, which
    /// sorts the whole set and breaks ties arbitrarily. With hidden commits, git first finds the
    /// whole set (stopping, as git does, a few commits after only hidden ones remain) and then
    /// shows it; this does the same. `firstParentOnly` follows only first parents of shown
    /// commits, like `--first-parent`; hidden commits still hide all their ancestors.
    /// - Throws: `GitError` `.notFound` when a commit the walk needs is missing.
    public func walk(
        from start: ObjectID, hiding hidden: [ObjectID] = [], firstParentOnly: Bool = false,
        _ body: (CommitRecord) throws -> Bool
    ) throws {
        repository.lock.lock(); defer { repository.lock.unlock() }
        graph.resetFlags()
        defer { graph.releaseKeptObjects() }
        var walk = HistoryWalk(graph: graph, firstParentOnly: firstParentOnly)
        if hidden.count == 1 && usesAncestry {
            let node = try graph.commitNode(for: hidden[0], in: repository)
            if let ancestry = ancestryIncluding(node), let bit = ancestry.bits[node] {
                walk.hiddenAncestry = (ancestry, bit)
            }
        }
        try walk.start(from: [start] + hidden, hiddenCount: hidden.count, in: repository)
        if hidden.isEmpty {
            while let node = try walk.next() {
                guard try body(graph.record(node)) else { return }
            }
            return
        }
        for node in try walk.limited() where !walk.isHidden(node) {
            guard try body(graph.record(node)) else { return }
        }
    }

    /// The commits among `candidates` that are reachable from `commit` (itself included), found in
    /// one traversal that reads no messages.
    ///
    /// It parses into the walks' graph on purpose. Later walks then mark a hidden boundary's whole
    /// ancestry at once, which ends each walk's search for hidden commits early; measured on
    /// git/git, a graph of its own for this pass (later walks parsing lazily) was slower, and so
    /// was marking only through commits the current walk parsed.
    public func reachable(_ candidates: [ObjectID], from commit: ObjectID) throws -> Set<ObjectID> {
        repository.lock.lock(); defer { repository.lock.unlock() }
        return try reachable(candidates, from: commit, keepingMessages: true)
    }

    /// `reachable`; with `keepingMessages`, up to `prefetchBytes` of the raw objects read are kept
    /// for the walks that follow.
    func reachable(_ candidates: [ObjectID], from commit: ObjectID, keepingMessages: Bool) throws -> Set<ObjectID> {
        graph.resetFlags()
        defer { graph.releaseKeptObjects() }
        reachedRoot = nil
        reachedCandidates = []
        ancestry = nil
        ancestryTried = false
        graph.prefetchBudget = keepingMessages ? Self.prefetchBytes : 0
        defer { graph.prefetchBudget = 0 }
        // Every ancestor of `commit` is parsed below.
        graph.reserveForWholeHistory()
        var wanted: [CommitGraph.Node: [ObjectID]] = [:]
        for candidate in candidates {
            wanted[try graph.commitNode(for: candidate, in: repository), default: []].append(candidate)
        }
        var pending = [try graph.commitNode(for: commit, in: repository)]
        graph.flags[Int(pending[0])] = 1
        let root = pending[0]
        var found = Set<ObjectID>()
        var foundNodes: [CommitGraph.Node] = []
        while let node = pending.popLast() {
            if let ids = wanted[node] {
                found.formUnion(ids)
                foundNodes.append(node)
            }
            // Only the header is needed here; the message is read again if a walk shows it,
            // unless the object fits in the prefetch budget.
            try graph.parse(node, keepingObject: false)
            for parent in graph.parents(of: node) where graph.flags[Int(parent)] == 0 {
                graph.flags[Int(parent)] = 1
                pending.append(parent)
            }
        }
        reachedRoot = root
        reachedCandidates = foundNodes
        return found
    }

    /// The ancestry of the last `reachable` pass's candidates, when `node` is one of them, made
    /// once (a few passes over the graph, no reads) and only while it fits in 32 MiB.
    private func ancestryIncluding(_ node: CommitGraph.Node) -> Ancestry? {
        if !ancestryTried {
            ancestryTried = true
            if let root = reachedRoot, !reachedCandidates.isEmpty,
               graph.keys.count * ((reachedCandidates.count + 63) / 64) <= (32 << 20) / 8,
               let order = graph.topologicalOrder(from: root) {
                ancestry = Ancestry(graph: graph, order: order, targets: reachedCandidates)
            }
        }
        guard let ancestry, ancestry.bits[node] != nil else { return nil }
        return ancestry
    }
}

/// For each commit of a fully parsed history, which of some target commits it is an ancestor of
/// (or is): one bit per target, set in one pass over the history in topological order.
///
/// A walk hiding a target then knows every hidden commit without marking the target's whole
/// ancestry first, which a whole-history changelog did once per release (git/git: 82,000 commits
/// times 800 releases).
final class Ancestry {
    /// The bit of each target.
    let bits: [CommitGraph.Node: Int]
    private let words: Int
    private let nodeCount: Int
    private var masks: [UInt64]

    init(graph: CommitGraph, order: [CommitGraph.Node], targets: [CommitGraph.Node]) {
        var bits: [CommitGraph.Node: Int] = [:]
        for target in targets where bits[target] == nil { bits[target] = bits.count }
        self.bits = bits
        words = (bits.count + 63) / 64
        nodeCount = graph.keys.count
        masks = [UInt64](repeating: 0, count: nodeCount * words)
        for (target, bit) in bits { masks[Int(target) * words + bit >> 6] |= 1 << UInt64(bit & 63) }
        let words = words
        masks.withUnsafeMutableBufferPointer { masks in
            for node in order {
                let from = Int(node) * words
                for parent in graph.parents(of: node) {
                    let to = Int(parent) * words
                    for word in 0..<words { masks[to + word] |= masks[from + word] }
                }
            }
        }
    }

    /// Whether `node` is the target with `bit` or one of its ancestors; false for commits added
    /// to the graph after this was made (none of them is an ancestor of a target).
    @inline(__always)
    func contains(_ node: CommitGraph.Node, bit: Int) -> Bool {
        guard Int(node) < nodeCount else { return false }
        return masks[Int(node) * words + bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }
}

/// git's revision walk (`revision.c`: `limit_list`, `process_parents`, `still_interesting`) over a
/// `CommitGraph`, so the set and the order match `git log`.
struct HistoryWalk {
    typealias Node = CommitGraph.Node

    private static let seen: UInt32 = 1 << 0
    private static let added: UInt32 = 1 << 1
    private static let uninteresting: UInt32 = 1 << 2
    /// git's SLOP: commits walked past the point where only hidden ones remain, for clock skew.
    private static let slop = 5

    let graph: CommitGraph
    let firstParentOnly: Bool
    private var queue = DateQueue()
    /// Set when the hidden commit's whole ancestry is known: hidden commits are then those, and
    /// nothing needs marking (git marks them as it goes; with a fully parsed graph that marks the
    /// same commits).
    var hiddenAncestry: (ancestry: Ancestry, bit: Int)?

    init(graph: CommitGraph, firstParentOnly: Bool) {
        self.graph = graph
        self.firstParentOnly = firstParentOnly
    }

    func isHidden(_ node: Node) -> Bool {
        if graph.flags[Int(node)] & Self.uninteresting != 0 { return true }
        guard let hiddenAncestry else { return false }
        return hiddenAncestry.ancestry.contains(node, bit: hiddenAncestry.bit)
    }

    /// Queues the starting commits in the given order; the last `hiddenCount` are hidden.
    mutating func start(from ids: [ObjectID], hiddenCount: Int, in repository: Repository) throws {
        var nodes: [Node] = []
        for (position, id) in ids.enumerated() {
            let node = try graph.commitNode(for: id, in: repository)
            if position >= ids.count - hiddenCount {
                graph.flags[Int(node)] |= Self.uninteresting
                markParentsUninteresting(node)
            }
            nodes.append(node)
        }
        for node in nodes where graph.flags[Int(node)] & Self.seen == 0 {
            graph.flags[Int(node)] |= Self.seen
            queue.push(node, date: graph.dates[Int(node)])
        }
    }

    /// The next commit to show when nothing is hidden (git's streaming walk).
    mutating func next() throws -> Node? {
        guard let node = queue.pop() else { return nil }
        try processParents(node)
        return node
    }

    /// git's `limit_list`: every commit to show, in order, before showing any. Some may be marked
    /// hidden after they were listed; the caller skips those, as git does when it shows them.
    mutating func limited() throws -> [Node] {
        var shown: [Node] = []
        var lastDate = Int64.max
        var slop = Self.slop
        var interestingCache: Node = -1
        while let node = queue.pop() {
            if node == interestingCache { interestingCache = -1 }
            try processParents(node)
            if isHidden(node) {
                markParentsUninteresting(node)
                slop = stillInteresting(lastDate, slop, &interestingCache)
                if slop > 0 { continue }
                break
            }
            lastDate = graph.dates[Int(node)]
            shown.append(node)
        }
        return shown
    }

    private mutating func processParents(_ node: Node) throws {
        let flags = graph.flags[Int(node)]
        if flags & Self.added != 0 { return }
        graph.flags[Int(node)] |= Self.added
        if isHidden(node) {
            for parent in graph.parents(of: node) {
                graph.flags[Int(parent)] |= Self.uninteresting
                // A hidden commit's missing parent ends that line, as in git.
                guard (try? graph.parse(parent)) != nil else { continue }
                if !graph.parents(of: parent).isEmpty { markParentsUninteresting(parent) }
                if graph.flags[Int(parent)] & Self.seen != 0 { continue }
                graph.flags[Int(parent)] |= Self.seen
                queue.push(parent, date: graph.dates[Int(parent)])
            }
            return
        }
        for parent in graph.parents(of: node) {
            try graph.parse(parent)
            if graph.flags[Int(parent)] & Self.seen == 0 {
                graph.flags[Int(parent)] |= Self.seen
                queue.push(parent, date: graph.dates[Int(parent)])
            }
            if firstParentOnly { break }
        }
    }

    /// Marks every known ancestor of `node` hidden (only through parsed commits, as git does).
    private func markParentsUninteresting(_ node: Node) {
        guard hiddenAncestry == nil else { return }
        graph.markAncestors(of: node, with: Self.uninteresting)
    }

    private func stillInteresting(_ lastDate: Int64, _ slop: Int, _ cache: inout Node) -> Int {
        guard let top = queue.peekDate else { return 0 }
        if lastDate <= top { return Self.slop }
        if cache >= 0 && !isHidden(cache) { return Self.slop }
        if let interesting = queue.first(where: { !isHidden($0) }) {
            cache = interesting
            return Self.slop
        }
        return slop - 1
    }
}

/// A priority queue of commits: newest committer date first, equal dates first in, first out
/// (git's `commit_list_insert_by_date` and `prio_queue` both keep that order).
struct DateQueue {
    private struct Entry {
        var date: Int64
        var sequence: Int
        var node: CommitGraph.Node
    }

    private var heap: [Entry] = []
    private var counter = 0

    var peekDate: Int64? { heap.first?.date }

    func first(where predicate: (CommitGraph.Node) -> Bool) -> CommitGraph.Node? {
        heap.first { predicate($0.node) }?.node
    }

    @inline(__always)
    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.date != b.date ? a.date > b.date : a.sequence < b.sequence
    }

    mutating func push(_ node: CommitGraph.Node, date: Int64) {
        heap.append(Entry(date: date, sequence: counter, node: node))
        counter += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> CommitGraph.Node? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { break }
                var best = left
                if left + 1 < heap.count && Self.before(heap[left + 1], heap[left]) { best = left + 1 }
                guard Self.before(heap[best], heap[parent]) else { break }
                heap.swapAt(best, parent)
                parent = best
            }
        }
        return top.node
    }
}

extension Repository {
    /// Whether `commit` changed anything under any of `paths` (files or folders, relative to the
    /// work tree) compared with `parent` (its first parent; nil for a root commit): the object
    /// each path names differs, or exists on one side only. Only tree entries are compared — no
    /// diff is computed — so it costs a few object reads per path.
    public func changes(_ commit: ObjectID, comparedTo parent: ObjectID?, under paths: [String]) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "compare \(commit.short) under \(paths.joined(separator: ", "))"
        let mine = try treeEntries(of: commit, paths: paths, operation)
        let theirs = try parent.map { try treeEntries(of: $0, paths: paths, operation) } ?? Array(repeating: nil, count: paths.count)
        return mine != theirs
    }

    private func treeEntries(of commitID: ObjectID, paths: [String], _ operation: String) throws -> [ObjectID?] {
        var id = commitID.raw
        var commit: OpaquePointer?
        try check(git_commit_lookup(&commit, pointer, &id), operation)
        defer { git_commit_free(commit) }
        var tree: OpaquePointer?
        try check(git_commit_tree(&tree, commit), operation)
        defer { git_tree_free(tree) }
        return paths.map { path in
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            if trimmed.isEmpty || trimmed == "." { return git_tree_id(tree).map { ObjectID($0.pointee) } }
            var entry: OpaquePointer?
            guard git_tree_entry_bypath(&entry, tree, trimmed) == 0 else {
                git_error_clear()
                return nil
            }
            defer { git_tree_entry_free(entry) }
            return git_tree_entry_id(entry).map { ObjectID($0.pointee) }
        }
    }
}
