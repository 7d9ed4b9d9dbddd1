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
    /// - a path's commit counts when the path's stop is not among the stops the commit reaches;
    /// - where git's commit-graph file has changed-path Bloom filters (`git commit-graph write
    ///   --changed-paths`, or `fetch.writeCommitGraph` and `gc` with `commitGraph.changedPaths`),
    ///   a commit whose filter says that none of the folders leading to a path still open at that
    ///   commit changed is not read at all; "maybe", or no filter, reads the trees as above.
    /// - Throws: `GitError` `.notFound` when `head`, a stop or a commit or tree they reach is missing.
    public func messagesChanging(_ paths: [String], since stops: [ObjectID?], from head: ObjectID) throws -> [[String]] {
        lock.lock(); defer { lock.unlock() }
        return try messagesChanging(paths, since: stops, from: head, readingFilters: true).messages
    }

    /// What a walk did, for tests: commits whose trees were compared, and commits the changed-path
    /// filters settled without a read.
    struct PathWalkCounts: Equatable {
        var compared = 0
        var skippedByFilter = 0
    }

    /// `messagesChanging`, with the changed-path filters read or not (`readingFilters: false`
    /// compares trees wherever a commit is unsettled, as without a commit-graph file), keeping at
    /// most about `treeCacheLimit` trees between two commits (a test makes it small).
    func messagesChanging(_ paths: [String], since stops: [ObjectID?], from head: ObjectID,
                          readingFilters: Bool, treeCacheLimit: Int = 4096) throws -> (messages: [[String]], counts: PathWalkCounts) {
        precondition(paths.count == stops.count, "one stop per path")
        var walk = PathWalkCounts()
        guard !paths.isEmpty else { return ([], walk) }
        let file = CommitGraphFile.open(repository: self)
        let graph = try CommitGraph(repository: self, keepingTrees: true, file: file)
        // Everything head reaches is parsed below.
        graph.reserveForWholeHistory()

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
        let filterSettings = readingFilters ? file?.changedPaths : nil
        // Masks are kept for the count below and for asking filters only of the paths still open
        // at a commit; more than 4 chunks (256 distinct stops) would cost 32 bytes a commit, so
        // then filters are asked of every path.
        let keepsMasks = chunks <= (filterSettings == nil ? 1 : 4)
        var settled = [Bool](repeating: everyPathStops, count: graph.keys.count)
        var kept: [Int: [UInt64]] = [:]
        if everyPathStops || (filterSettings != nil && keepsMasks) {
            for chunk in 0..<chunks {
                let full: UInt64 = chunk == chunks - 1 && distinct.count % 64 != 0 ? (1 << UInt64(distinct.count % 64)) - 1 : ~0
                let mask = masks(chunk: chunk)
                if everyPathStops { for node in order where mask[Int(node)] != full { settled[Int(node)] = false } }
                if keepsMasks { kept[chunk] = mask }
            }
        }

        // Each unsettled commit of head's history against its first parent, along the paths' folders.
        let trie = PathTrie(paths)
        let filters = filterSettings.map { settings in
            ChangedPathQuery(trie: trie, settings: settings, pathStops: stopNodes.map { $0.flatMap { bit[$0] } },
                             chunks: keepsMasks ? chunks : 0)
        }
        var trees = try TreeCache(repository: self, limit: treeCacheLimit)
        var touches: [(node: CommitGraph.Node, path: Int)] = []
        var touched: [Int] = []
        func tree(_ node: CommitGraph.Node) throws -> ObjectKey {
            try file?.tree(graph.keys[Int(node)]) ?? graph.treeKey(node)
        }
        for node in order where graph.flags[Int(node)] & fromHead != 0 && !settled[Int(node)] {
            if let filters, let file,
               file.withChangedPathFilter(of: graph.keys[Int(node)], { !filters.mayTouch($0, at: Int(node), reaching: kept) }) == true {
                walk.skippedByFilter += 1
                continue
            }
            walk.compared += 1
            trees.trim()
            let mine = TreeCache.Entry(key: try tree(node), isTree: true)
            let theirs = try graph.parents(of: node).first { _ in true }.map { TreeCache.Entry(key: try tree($0), isTree: true) }
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
        return (messages, walk)
    }
}

/// The paths' folders as changed-path filter keys, and which stops each folder leads to: asks a
/// commit's filter whether any path still open at that commit may have changed.
///
/// git adds every leading folder of a changed path to the filter, so a folder the filter rules
/// out rules out everything under it: the walk goes down the prefix tree only through folders
/// that may have changed and that lead to a path whose stop does not reach the commit.
struct ChangedPathQuery {
    private let keys: [ChangedPathKey?]
    private let children: [[Int]]
    private let endsPath: [Bool]
    /// Per trie node, the stops of the paths at or under it: up to 4 masks of 64 stops.
    private let stopsBelow: [SIMD4<UInt64>]
    /// Per trie node: a path at or under it has no stop (open at every commit).
    private let unstoppedBelow: [Bool]
    private let chunks: Int
    /// A path at the root ("."): every commit may touch it, so filters cannot rule one out.
    private let rootIsPath: Bool

    /// `pathStops[i]` is the bit of path i's stop among the distinct stops (nil: no stop);
    /// `chunks` (at most 4) 0 means the masks are not kept and every path counts as open.
    init(trie: PathTrie, settings: ChangedPathSettings, pathStops: [Int?], chunks: Int) {
        precondition(chunks <= 4, "at most 4 chunks of stops")
        self.chunks = chunks
        let count = trie.nodes.count
        var keys = [ChangedPathKey?](repeating: nil, count: count)
        var children = [[Int]](repeating: [], count: count)
        var parent = [Int](repeating: -1, count: count)
        var pending: [(node: Int, path: String)] = [(trie.root, "")]
        var visit: [Int] = []
        while let (node, path) = pending.popLast() {
            visit.append(node)
            for (name, child) in trie.nodes[node].children {
                let childPath = path.isEmpty ? name : path + "/" + name
                keys[child] = ChangedPathKey(childPath, version: settings.version)
                children[node].append(child)
                parent[child] = node
                pending.append((child, childPath))
            }
        }
        var stopsBelow = [SIMD4<UInt64>](repeating: .zero, count: count)
        var unstoppedBelow = [Bool](repeating: false, count: count)
        // Children after their parents in `visit`: fold from the leaves up.
        for node in visit.reversed() {
            for path in trie.nodes[node].paths {
                if let bit = pathStops[path], chunks > 0 {
                    stopsBelow[node][bit / 64] |= 1 << UInt64(bit % 64)
                } else {
                    unstoppedBelow[node] = true
                }
            }
            let up = parent[node]
            guard up >= 0 else { continue }
            unstoppedBelow[up] = unstoppedBelow[up] || unstoppedBelow[node]
            stopsBelow[up] |= stopsBelow[node]
        }
        self.keys = keys
        self.children = children
        self.endsPath = trie.nodes.map { !$0.paths.isEmpty }
        self.stopsBelow = stopsBelow
        self.unstoppedBelow = unstoppedBelow
        rootIsPath = !trie.nodes[trie.root].paths.isEmpty
    }

    /// False when `filter` (of commit `commit`) rules out every path open at that commit:
    /// `reaching[chunk][commit]` holds the stops that reach it.
    func mayTouch(_ filter: ChangedPathFilter, at commit: Int, reaching: [Int: [UInt64]]) -> Bool {
        if rootIsPath { return true }
        var open = SIMD4<UInt64>.zero
        for chunk in 0..<chunks { open[chunk] = ~(reaching[chunk]?[commit] ?? 0) }
        return mayTouch(filter, under: 0, open: open)
    }

    private func mayTouch(_ filter: ChangedPathFilter, under node: Int, open: SIMD4<UInt64>) -> Bool {
        for child in children[node] where isOpen(child, open) {
            guard let key = keys[child], filter.mayContain(key) else { continue }
            if endsPath[child] || mayTouch(filter, under: child, open: open) { return true }
        }
        return false
    }

    private func isOpen(_ node: Int, _ open: SIMD4<UInt64>) -> Bool {
        unstoppedBelow[node] || chunks == 0 || stopsBelow[node] & open != .zero
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
///
/// Trees are read as raw objects (`git_odb_read`) and their entries scanned in place, two trees
/// side by side: a walk compares hundreds of thousands of trees and looks at one or two entries of
/// each, where `git_tree_lookup` parses every entry of every tree into an allocated array first
/// (on the 10,000-package plan of issue 42, the parse and its allocations were a fifth of the
/// plan's CPU).
struct TreeCache: ~Copyable {
    private let odb: OpaquePointer
    private var trees: [ObjectKey: OpaquePointer] = [:]
    /// How many trees are kept before `trim` frees them all.
    private let limit: Int

    init(repository: Repository, limit: Int = 4096) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer), "open the object database")
        guard let odb else { throw GitError(code: .other(-1), operation: "open the object database", message: "no database returned") }
        self.odb = odb
        self.limit = max(1, limit)
    }

    deinit {
        for tree in trees.values { git_odb_object_free(tree) }
        git_odb_free(odb)
    }

    /// Frees every kept tree once there are `limit` (4,096): called between two commits'
    /// comparisons, never inside one, where a tree just read would be freed while its sibling is
    /// in use (`TreeCacheEvictionTests`).
    mutating func trim() {
        guard trees.count >= limit else { return }
        for tree in trees.values { git_odb_object_free(tree) }
        trees.removeAll(keepingCapacity: true)
    }

    /// The raw tree `key`, read once while kept.
    private mutating func tree(_ key: ObjectKey) throws -> UnsafeRawBufferPointer {
        if let known = trees[key] { return Self.bytes(of: known) }
        var oid = key.oid
        var object: OpaquePointer?
        let result = git_odb_read(&object, odb, &oid)
        if result < 0 { throw GitError(result: result, operation: "read tree \(key.objectID.hex)") }
        guard let object else { throw GitError(code: .other(-1), operation: "read tree \(key.objectID.hex)", message: "no tree returned") }
        guard git_odb_object_type(object) == GIT_OBJECT_TREE else {
            git_odb_object_free(object)
            throw GitError(code: .invalid, operation: "read tree \(key.objectID.hex)", message: "the object is not a tree")
        }
        trees[key] = object
        return Self.bytes(of: object)
    }

    private static func bytes(of object: OpaquePointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object))
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
        let left = try mine.flatMap { $0.isTree ? try tree($0.key) : nil }
        let right = try theirs.flatMap { $0.isTree ? try tree($0.key) : nil }
        var pairs: [(child: Int, mine: Entry?, theirs: Entry?)] = []
        var sameNames = false
        if let left, let right {
            // Usually the same names in the same order: compare ids entry by entry.
            sameNames = true
            var a = RawTreeEntries(left), b = RawTreeEntries(right)
            while true {
                let x = a.next(), y = b.next()
                guard let x, let y else {
                    sameNames = x == nil && y == nil
                    break
                }
                guard x.nameCount == y.nameCount, memcmp(x.name, y.name, x.nameCount) == 0 else {
                    sameNames = false
                    break
                }
                if memcmp(x.id, y.id, 20) == 0 { continue }
                if let child = children[x.nameString] { pairs.append((child, x.entry, y.entry)) }
            }
        }
        if !sameNames {
            let mineByName = left.map { Self.entries($0, named: children) } ?? [:]
            let theirsByName = right.map { Self.entries($0, named: children) } ?? [:]
            pairs = children.map { name, child in (child, mineByName[name], theirsByName[name]) }
        }
        for pair in pairs { try compare(pair.mine, pair.theirs, at: pair.child, in: trie, into: &touched) }
    }

    /// The entries of `tree` whose names are keys of `names`.
    private static func entries(_ tree: UnsafeRawBufferPointer, named names: [String: Int]) -> [String: Entry] {
        var found: [String: Entry] = [:]
        var entries = RawTreeEntries(tree)
        while let entry = entries.next() {
            let name = entry.nameString
            if names[name] != nil { found[name] = entry.entry }
        }
        return found
    }
}

/// The entries of a raw tree object (`MODE SP NAME NUL ID`, repeated), read in place; a malformed
/// tail ends the sequence.
struct RawTreeEntries {
    struct Item {
        var name: UnsafeRawPointer
        var nameCount: Int
        var id: UnsafeRawPointer
        var isTree: Bool

        var nameString: String { String(decoding: UnsafeRawBufferPointer(start: name, count: nameCount), as: UTF8.self) }
        var entry: TreeCache.Entry { TreeCache.Entry(key: ObjectKey(bytes: id), isTree: isTree) }
    }

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> Item? {
        let count = bytes.count
        var index = offset
        // The mode in octal: a folder's is 40000 (040000 in some old trees).
        var mode = 0
        while index < count, bytes[index] != 0x20 {
            mode = mode << 3 | Int(bytes[index] &- UInt8(ascii: "0")) & 7
            index += 1
        }
        let isTree = mode == 0o40000
        index += 1
        let nameStart = index
        while index < count, bytes[index] != 0 { index += 1 }
        let nameEnd = index
        index += 1
        guard nameEnd > nameStart, index + 20 <= count, let base = bytes.baseAddress else { return nil }
        offset = index + 20
        return Item(name: base + nameStart, nameCount: nameEnd - nameStart, id: base + index, isTree: isTree)
    }
}

extension ObjectKey {
    /// The key of the 20 raw bytes at `bytes` (an id inside a raw object).
    init(bytes: UnsafeRawPointer) {
        high = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        middle = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        low = bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
    }
}
