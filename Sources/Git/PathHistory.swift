import Foundation
internal import CLibgit2

extension Repository {
    /// For each of `paths` (folders or files, relative to the work tree), the messages of the
    /// commits of `git log <head> ^<stops[i]>` (all of `head`'s history where `stops[i]` is nil)
    /// whose object at that path differs from their first parent's — in one walk of the history,
    /// however many paths and stops there are.
    ///
    /// This is what a monorepo's release plan asks of every package since its last release tag.
    /// A walk per stop re-reads the history below the newest stop once per stop, and a tree read
    /// per path per commit costs ten thousand reads a commit for ten thousand packages. Here:
    /// - the commits reachable from `head` and the stops are parsed once (`CommitGraph`), put in
    ///   an order that has every child before its parents, and each commit learns which stops it
    ///   is an ancestor of by passing masks of 64 stops from children to parents (one pass per 64
    ///   distinct stops);
    /// - a commit that every path's stop reaches is never read further; every other commit's tree
    ///   is compared with its first parent's once, only along the folders that lead to a path
    ///   (a prefix tree of the paths), entry by entry where the two trees list the same names,
    ///   so a commit that touches one package in `packages/g042/` costs three tree reads;
    /// - a path's commit counts when the path's stop is not among the stops the commit reaches.
    /// - Throws: `GitError` `.notFound` when `head`, a stop or a commit or tree they reach is missing.
    public func messagesChanging(_ paths: [String], since stops: [ObjectID?], from head: ObjectID) throws -> [[String]] {
        precondition(paths.count == stops.count, "one stop per path")
        guard !paths.isEmpty else { return [] }
        let graph = try CommitGraph(repository: self, keepingTrees: true, file: CommitGraphFile.open(repository: self))

        // The subgraph: everything reachable from head and from the stops, each parsed once.
        let headNode = try graph.commitNode(for: head, in: self)
        var stopNodes: [CommitGraph.Node?] = []
        for stop in stops { stopNodes.append(try stop.map { try graph.commitNode(for: $0, in: self) }) }
        let reachable: UInt32 = 1, fromHead: UInt32 = 2
        graph.resetFlags()
        var pending: [CommitGraph.Node] = [headNode]
        graph.flags[Int(headNode)] = reachable | fromHead
        var all: [CommitGraph.Node] = []
        func explore(_ mark: UInt32) throws {
            while let node = pending.popLast() {
                all.append(node)
                try graph.parse(node)
                for parent in graph.parents(of: node) where graph.flags[Int(parent)] & reachable == 0 {
                    graph.flags[Int(parent)] |= mark
                    pending.append(parent)
                }
            }
        }
        try explore(reachable | fromHead)
        // Stops' own ancestry (usually inside head's already): marked reachable, not from head.
        for node in Set(stopNodes.compactMap { $0 }) where graph.flags[Int(node)] & reachable == 0 {
            graph.flags[Int(node)] |= reachable
            pending.append(node)
            try explore(reachable)
        }

        // Children before parents (Kahn's order over the subgraph).
        var childCount = [Int32](repeating: 0, count: graph.keys.count)
        for node in all { for parent in graph.parents(of: node) { childCount[Int(parent)] += 1 } }
        var order: [CommitGraph.Node] = []
        order.reserveCapacity(all.count)
        var ready = all.filter { childCount[Int($0)] == 0 }
        while let node = ready.popLast() {
            order.append(node)
            for parent in graph.parents(of: node) {
                childCount[Int(parent)] -= 1
                if childCount[Int(parent)] == 0 { ready.append(parent) }
            }
        }

        // The stops, 64 to a mask; which commits every path's stop reaches (nothing to read there).
        let distinct = Array(Set(stopNodes.compactMap { $0 })).sorted()
        let bit = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, $0) })
        let chunks = (distinct.count + 63) / 64
        func masks(chunk: Int) -> [UInt64] {
            var mask = [UInt64](repeating: 0, count: graph.keys.count)
            for node in order {
                if let index = bit[node], index / 64 == chunk { mask[Int(node)] |= 1 << UInt64(index % 64) }
                let value = mask[Int(node)]
                if value != 0 { for parent in graph.parents(of: node) { mask[Int(parent)] |= value } }
            }
            return mask
        }
        let everyPathStops = !stopNodes.contains(nil)
        var settled = [Bool](repeating: everyPathStops, count: graph.keys.count)
        var kept: [Int: [UInt64]] = [:]
        if everyPathStops {
            for chunk in 0..<chunks {
                let full: UInt64 = chunk == chunks - 1 && distinct.count % 64 != 0 ? (1 << UInt64(distinct.count % 64)) - 1 : ~0
                let mask = masks(chunk: chunk)
                for node in order where mask[Int(node)] != full { settled[Int(node)] = false }
                if chunks == 1 { kept[chunk] = mask }
            }
        }

        // Each unsettled commit of head's history against its first parent, along the paths' folders.
        let trie = PathTrie(paths)
        var trees = TreeCache(repository: self)
        var touches: [(node: CommitGraph.Node, path: Int)] = []
        var touched: [Int] = []
        for node in order where graph.flags[Int(node)] & fromHead != 0 && !settled[Int(node)] {
            let mine = TreeCache.Entry(key: try graph.treeKey(node), isTree: true)
            let theirs = try graph.parents(of: node).first { _ in true }.map { TreeCache.Entry(key: try graph.treeKey($0), isTree: true) }
            touched.removeAll(keepingCapacity: true)
            try trees.compare(mine, theirs, at: trie.root, in: trie, into: &touched)
            for path in touched { touches.append((node, path)) }
        }

        // A touch counts when its path's stop does not reach the commit.
        var counts = [Bool](repeating: true, count: touches.count)
        for chunk in 0..<chunks {
            let mask = kept[chunk] ?? masks(chunk: chunk)
            for (position, touch) in touches.enumerated() {
                guard let stop = stopNodes[touch.path], let index = bit[stop], index / 64 == chunk else { continue }
                if mask[Int(touch.node)] & (1 << UInt64(index % 64)) != 0 { counts[position] = false }
            }
        }
        var messages = [[String]](repeating: [], count: paths.count)
        var read: [CommitGraph.Node: String] = [:]
        for (position, touch) in touches.enumerated() where counts[position] {
            let message: String
            if let known = read[touch.node] {
                message = known
            } else {
                message = try graph.record(touch.node).message
                read[touch.node] = message
            }
            messages[touch.path].append(message)
        }
        return messages
    }
}

/// Paths as a tree of their folder names: which entries of a tree lead to a path.
struct PathTrie {
    struct Node {
        var children: [String: Int] = [:]
        /// The paths that end here.
        var paths: [Int] = []
    }

    var nodes: [Node] = [Node()]
    var root: Int { 0 }

    init(_ paths: [String]) {
        for (index, path) in paths.enumerated() {
            var node = 0
            for part in path.split(separator: "/") where part != "." {
                let name = String(part)
                if let next = nodes[node].children[name] {
                    node = next
                } else {
                    nodes.append(Node())
                    nodes[node].children[name] = nodes.count - 1
                    node = nodes.count - 1
                }
            }
            nodes[node].paths.append(index)
        }
    }
}

/// Trees read by id, kept while a walk needs them: a commit's tree is its child's parent tree.
struct TreeCache: ~Copyable {
    private let repository: Repository
    private var trees: [ObjectKey: OpaquePointer] = [:]

    init(repository: Repository) { self.repository = repository }

    deinit { for tree in trees.values { git_tree_free(tree) } }

    private mutating func tree(_ key: ObjectKey) throws -> OpaquePointer {
        if let known = trees[key] { return known }
        if trees.count >= 4096 {
            for tree in trees.values { git_tree_free(tree) }
            trees.removeAll(keepingCapacity: true)
        }
        var oid = key.oid
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, repository.pointer, &oid), "read tree \(key.objectID.hex)")
        guard let tree else { throw GitError(code: .other(-1), operation: "read tree \(key.objectID.hex)", message: "no tree returned") }
        trees[key] = tree
        return tree
    }

    /// An object a tree names, and whether it is a folder.
    struct Entry: Equatable {
        var key: ObjectKey
        var isTree: Bool
    }

    /// Adds to `touched` the paths under `node` whose object differs between `mine` and
    /// `theirs` (nil: nothing there).
    mutating func compare(_ mine: Entry?, _ theirs: Entry?, at node: Int, in trie: PathTrie, into touched: inout [Int]) throws {
        guard mine?.key != theirs?.key else { return }
        touched.append(contentsOf: trie.nodes[node].paths)
        let children = trie.nodes[node].children
        guard !children.isEmpty else { return }
        // Read both sides' entries first: the recursion may empty the cache and free these trees.
        let left = try mine.flatMap { $0.isTree ? try tree($0.key) : nil }
        let right = try theirs.flatMap { $0.isTree ? try tree($0.key) : nil }
        var pairs: [(child: Int, mine: Entry?, theirs: Entry?)] = []
        var sameNames = false
        if let left, let right, git_tree_entrycount(left) == git_tree_entrycount(right) {
            // Usually the same names in the same order: compare ids entry by entry.
            sameNames = true
            for index in 0..<git_tree_entrycount(left) {
                guard let a = git_tree_entry_byindex(left, index), let b = git_tree_entry_byindex(right, index),
                      strcmp(git_tree_entry_name(a), git_tree_entry_name(b)) == 0
                else { sameNames = false; break }
                if let aID = git_tree_entry_id(a), let bID = git_tree_entry_id(b), git_oid_equal(aID, bID) != 0 { continue }
                if let child = children[String(cString: git_tree_entry_name(a))] { pairs.append((child, Self.entry(a), Self.entry(b))) }
            }
        }
        if !sameNames {
            pairs = children.map { name, child in
                (child, left.flatMap { Self.entry($0, name) }, right.flatMap { Self.entry($0, name) })
            }
        }
        for pair in pairs { try compare(pair.mine, pair.theirs, at: pair.child, in: trie, into: &touched) }
    }

    /// The object `name` names in `tree`.
    private static func entry(_ tree: OpaquePointer, _ name: String) -> Entry? {
        git_tree_entry_byname(tree, name).flatMap(entry)
    }

    private static func entry(_ entry: OpaquePointer) -> Entry? {
        guard let id = git_tree_entry_id(entry) else { return nil }
        return Entry(key: ObjectKey(id.pointee), isTree: git_tree_entry_type(entry) == GIT_OBJECT_TREE)
    }
}
