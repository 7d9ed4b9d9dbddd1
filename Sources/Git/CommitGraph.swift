import Foundation
internal import CLibgit2

/// A 20-byte object id as three words: a cheap dictionary key for walks over many commits.
struct ObjectKey: Hashable {
    var high: UInt64
    var middle: UInt64
    var low: UInt32

    /// Object ids are already uniformly random: eight of their bytes are hash enough.
    func hash(into hasher: inout Hasher) {
        hasher.combine(high)
    }

    init(_ oid: git_oid) {
        var copy = oid
        (high, middle, low) = withUnsafeBytes(of: &copy.id) { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        }
    }

    init(_ id: ObjectID) { self.init(id.raw) }

    var oid: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { bytes in
            bytes.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: middle, toByteOffset: 8, as: UInt64.self)
            bytes.storeBytes(of: low, toByteOffset: 16, as: UInt32.self)
        }
        return oid
    }

    var objectID: ObjectID { ObjectID(oid) }
}

/// The commits of one walk: each read once from the object database, its parents and committer
/// date kept in flat arrays indexed by node number.
///
/// Walks read raw commit objects with `git_odb_read` and parse the header here instead of calling
/// `git_commit_lookup`, which builds a full commit object (every signature, the message) per
/// commit; on 100,000 commits that difference is most of the time. A shallow clone's boundary
/// commits (listed in `.git/shallow`) have no parents here, as in git.
final class CommitGraph {
    typealias Node = Int32

    private let odb: OpaquePointer
    private var nodes: [ObjectKey: Node] = Dictionary(minimumCapacity: 4096)
    private(set) var keys: [ObjectKey] = []
    /// Committer dates, valid once a node is parsed.
    private(set) var dates: [Int64] = []
    /// Per-walk flags; their meaning belongs to the algorithm using the graph.
    var flags: [UInt32] = []
    private var parentStart: [Int32] = []
    private var parentCount: [Int32] = []
    private var parentStore: [Node] = []
    private let shallow: Set<ObjectKey>
    /// Raw objects read by `parse` and not yet turned into records (walks keep them, so a commit
    /// is inflated once); every one left is freed in `deinit`.
    private var objects: [OpaquePointer?] = []
    /// The nodes whose raw object is kept in `objects`, some possibly taken by `record` since.
    private var keptNodes: [Node] = []
    private let keepsObjects: Bool
    /// Each parsed node's root tree, when the graph was made to keep them (a path's history
    /// needs them; other walks do not pay for them). Unset for commits the commit-graph file gave.
    private var trees: [ObjectKey?] = []
    private let keepsTrees: Bool
    /// git's commit-graph file, when the repository has one: parents and dates without reads.
    private let file: CommitGraphFile?
    /// Bytes of raw objects that `parse(_:keepingObject: false)` may still keep until each one's
    /// `record` (not freed by `releaseKeptObjects`), when the graph keeps objects.
    var prefetchBudget = 0

    init(repository: Repository, keepingObjects: Bool = false, keepingTrees: Bool = false, file: CommitGraphFile? = nil) throws {
        keepsObjects = keepingObjects
        keepsTrees = keepingTrees
        self.file = file
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer), "open the object database")
        guard let odb else {
            throw GitError(code: .other(-1), operation: "open the object database", message: "no database returned")
        }
        self.odb = odb
        var boundary = Set<ObjectKey>()
        if git_repository_is_shallow(repository.pointer) == 1,
           let text = try? String(contentsOfFile: repository.gitDirectory + "/shallow", encoding: .utf8) {
            for line in text.split(separator: "\n") {
                if let id = ObjectID(hex: String(line)) { boundary.insert(ObjectKey(id)) }
            }
        }
        shallow = boundary
    }

    deinit {
        for object in objects { git_odb_object_free(object) }
        git_odb_free(odb)
    }

    /// Makes room for every commit of the commit-graph file, for a walk that parses a whole
    /// history: grown step by step, the node table was rehashed five times on the way to 100,000
    /// commits (3.5% of the 10,000-package monorepo plan's CPU, which makes two such walks).
    func reserveForWholeHistory() {
        guard let count = file?.commitCount, count > keys.count else { return }
        nodes.reserveCapacity(count)
        keys.reserveCapacity(count)
        dates.reserveCapacity(count)
        flags.reserveCapacity(count)
        objects.reserveCapacity(count)
        if keepsTrees { trees.reserveCapacity(count) }
        parentStart.reserveCapacity(count)
        parentCount.reserveCapacity(count)
        parentStore.reserveCapacity(count)
    }

    // MARK: - Nodes

    /// The node for `key`, created unparsed when new.
    func node(_ key: ObjectKey) -> Node {
        if let existing = nodes[key] { return existing }
        let node = Node(keys.count)
        nodes[key] = node
        keys.append(key)
        dates.append(0)
        flags.append(0)
        objects.append(nil)
        if keepsTrees { trees.append(nil) }
        parentStart.append(-1)
        parentCount.append(0)
        return node
    }

    func isParsed(_ node: Node) -> Bool { parentStart[Int(node)] >= 0 }

    /// The parents of a parsed node (none for an unparsed one), by value.
    ///
    /// Not a slice of `parentStore`: a slice kept alive while parsing a parent would make every
    /// append copy the whole store.
    func parents(of node: Node) -> Parents {
        let start = Int(parentStart[Int(node)])
        guard start >= 0 else { return Parents(graph: self, range: 0..<0) }
        return Parents(graph: self, range: start..<start + Int(parentCount[Int(node)]))
    }

    /// A node's parents as indices into the graph's store.
    struct Parents: Sequence {
        let graph: CommitGraph
        let range: Range<Int>

        var isEmpty: Bool { range.isEmpty }

        func makeIterator() -> Iterator { Iterator(graph: graph, index: range.lowerBound, end: range.upperBound) }

        struct Iterator: IteratorProtocol {
            let graph: CommitGraph
            var index: Int
            let end: Int

            mutating func next() -> Node? {
                guard index < end else { return nil }
                defer { index += 1 }
                return graph.parentStore[index]
            }
        }
    }

    /// Sets `flag` on every parsed ancestor of `node` (not on `node`), stopping at ancestors that
    /// already carry it: git's `mark_parents_uninteresting`.
    ///
    /// The loop works on the arrays' buffers directly: through the arrays, exclusivity checks and
    /// reference counting took a quarter of a whole-history changelog.
    func markAncestors(of node: Node, with flag: UInt32) {
        parentStart.withUnsafeBufferPointer { starts in
            parentCount.withUnsafeBufferPointer { counts in
                parentStore.withUnsafeBufferPointer { store in
                    flags.withUnsafeMutableBufferPointer { flags in
                        // A local stack, not captured by any closure: no access checks on it.
                        var pending: [Node] = [node]
                        var isStart = true
                        while let next = pending.popLast() {
                            let index = Int(next)
                            if !isStart {
                                if flags[index] & flag != 0 { continue }
                                flags[index] |= flag
                            }
                            isStart = false
                            let start = Int(starts[index])
                            guard start >= 0 else { continue }
                            for parent in start..<start + Int(counts[index]) { pending.append(store[parent]) }
                        }
                    }
                }
            }
        }
    }

    /// Every node reachable from `root` through parsed commits, children before parents (Kahn's
    /// algorithm); nil when the parents do not form an acyclic graph from `root`.
    func topologicalOrder(from root: Node) -> [Node]? {
        var indegree = [Int32](repeating: 0, count: keys.count)
        var visited = [Bool](repeating: false, count: keys.count)
        var pending: [Node] = [root]
        visited[Int(root)] = true
        var reached = 0
        while let node = pending.popLast() {
            reached += 1
            for parent in parents(of: node) {
                indegree[Int(parent)] += 1
                if !visited[Int(parent)] {
                    visited[Int(parent)] = true
                    pending.append(parent)
                }
            }
        }
        guard indegree[Int(root)] == 0 else { return nil }
        var order: [Node] = []
        order.reserveCapacity(reached)
        pending = [root]
        while let node = pending.popLast() {
            order.append(node)
            for parent in parents(of: node) {
                indegree[Int(parent)] -= 1
                if indegree[Int(parent)] == 0 { pending.append(parent) }
            }
        }
        return order.count == reached ? order : nil
    }

    /// Clears every node's flags, for the next walk over the same graph.
    func resetFlags() {
        flags.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Frees the raw objects kept for records that were never asked for (commits a walk parsed
    /// but did not show), so walks that share the graph do not accumulate them.
    func releaseKeptObjects() {
        for node in keptNodes {
            if let object = objects[Int(node)] {
                git_odb_object_free(object)
                objects[Int(node)] = nil
            }
        }
        keptNodes.removeAll(keepingCapacity: true)
    }

    /// Reads the node's parents and committer date, once: from git's commit-graph file when it
    /// has the commit, else from the object (kept for `record` when the graph keeps objects and
    /// `keepingObject` is true; a pass that shows no message passes false).
    func parse(_ node: Node, keepingObject: Bool = true) throws {
        guard !isParsed(node) else { return }
        let key = keys[Int(node)]
        var parentKeys: [ObjectKey] = []
        var date: Int64 = 0
        if let entry = file?.commit(key) {
            (parentKeys, date) = entry
        } else {
            let object = try read(key)
            Self.withBytes(of: object) { buffer in
                var header = CommitHeader(buffer)
                if keepsTrees { trees[Int(node)] = header.tree() }
                parentKeys = header.parents()
                date = header.committerDate()
            }
            if keepsObjects && keepingObject {
                objects[Int(node)] = object
                keptNodes.append(node)
            } else if keepsObjects && prefetchBudget > 0 {
                // Kept past the walk for its `record`, which frees it: one read instead of two.
                prefetchBudget -= git_odb_object_size(object)
                objects[Int(node)] = object
            } else {
                git_odb_object_free(object)
            }
        }
        if shallow.contains(key) { parentKeys = [] }
        // Resolve parent nodes first: creating them may grow the arrays.
        let parentNodes = parentKeys.map { self.node($0) }
        parentStart[Int(node)] = Int32(parentStore.count)
        parentCount[Int(node)] = Int32(parentNodes.count)
        parentStore.append(contentsOf: parentNodes)
        dates[Int(node)] = date
    }

    /// The full record of a node, for the caller of a walk; the raw object kept by `parse` is
    /// used and released here, so each commit is inflated once.
    func record(_ node: Node) throws -> CommitRecord {
        let key = keys[Int(node)]
        let object: OpaquePointer
        if let kept = objects[Int(node)] {
            object = kept
            objects[Int(node)] = nil
        } else {
            object = try read(key)
        }
        defer { git_odb_object_free(object) }
        let isBoundary = shallow.contains(key)
        return Self.withBytes(of: object) { CommitRecord(id: key.objectID, raw: $0, dropParents: isBoundary) }
    }

    /// The id of a parsed node's root tree: kept by `parse` (`keepingTrees`), or from the raw
    /// object it kept, else read again.
    func treeKey(_ node: Node) throws -> ObjectKey {
        let key = keys[Int(node)]
        if keepsTrees, let tree = trees[Int(node)] { return tree }
        if let kept = objects[Int(node)], let tree = Self.withBytes(of: kept, { CommitHeader($0).tree() }) { return tree }
        let object = try read(key)
        defer { git_odb_object_free(object) }
        guard let tree = Self.withBytes(of: object, { CommitHeader($0).tree() }) else {
            throw GitError(code: .invalid, operation: "read commit \(key.objectID.hex)", message: "the commit names no tree")
        }
        return tree
    }

    /// Reads a commit object; the caller frees it with `git_odb_object_free`.
    private func read(_ key: ObjectKey) throws -> OpaquePointer {
        var oid = key.oid
        var object: OpaquePointer?
        let result = git_odb_read(&object, odb, &oid)
        if result < 0 {
            throw GitError(result: result, operation: "read commit \(key.objectID.hex)")
        }
        guard let object else {
            throw GitError(code: .other(-1), operation: "read commit \(key.objectID.hex)", message: "no object returned")
        }
        guard git_odb_object_type(object) == GIT_OBJECT_COMMIT else {
            git_odb_object_free(object)
            throw GitError(code: .invalid, operation: "read commit \(key.objectID.hex)", message: "the object is not a commit")
        }
        return object
    }

    private static func withBytes<T>(of object: OpaquePointer, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object)))
    }

    /// Peels `id` (a commit, or a tag of one) to the commit's node.
    func commitNode(for id: ObjectID, in repository: Repository) throws -> Node {
        var oid = id.raw
        var object: OpaquePointer?
        try check(git_object_lookup(&object, repository.pointer, &oid, GIT_OBJECT_ANY), "read \(id.hex)")
        defer { git_object_free(object) }
        var commit: OpaquePointer?
        try check(git_object_peel(&commit, object, GIT_OBJECT_COMMIT), "read \(id.hex) as a commit")
        defer { git_object_free(commit) }
        guard let commitID = git_object_id(commit) else {
            throw GitError(code: .other(-1), operation: "read \(id.hex)", message: "no object id")
        }
        let node = node(ObjectKey(commitID.pointee))
        try parse(node)
        return node
    }
}

// MARK: - Parsing

/// Reads the header lines of a raw commit object.
///
/// The layout is git's: `tree <hex>`, zero or more `parent <hex>`, `author <ident>`,
/// `committer <ident>`, other headers, a blank line, the message. An ident ends in
/// `<email> <seconds> <+hhmm>`.
struct CommitHeader {
    let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The root tree's id, from the first line.
    func tree() -> ObjectKey? {
        guard startsWith("tree "), position + 45 <= bytes.count else { return nil }
        return Self.key(hex: bytes, at: position + 5)
    }

    /// Parent ids, in order; reading stops at the first line that is not `tree` or `parent`.
    mutating func parents() -> [ObjectKey] {
        if startsWith("tree ") { skipLine() }
        var parents: [ObjectKey] = []
        while startsWith("parent "), position + 47 <= bytes.count, let key = Self.key(hex: bytes, at: position + 7) {
            parents.append(key)
            skipLine()
        }
        return parents
    }

    /// The committer's seconds, read as git does (0 when the lines are malformed). Call after `parents()`.
    mutating func committerDate() -> Int64 {
        guard startsWith("author") else { return 0 }
        skipLine()
        guard startsWith("committer") else { return 0 }
        let line = currentLine()
        var close = line.upperBound
        while close > line.lowerBound && bytes[close - 1] != UInt8(ascii: ">") { close -= 1 }
        guard close > line.lowerBound else { return 0 }
        return Self.date(bytes, from: close, to: line.upperBound).seconds
    }

    /// The range of the ident after `prefix ` on the line at the cursor, moving past the line;
    /// nil (not moving) when the line is something else.
    mutating func identLine(_ prefix: StaticString) -> Range<Int>? {
        guard startsWith(prefix), position + prefix.utf8CodeUnitCount < bytes.count,
              bytes[position + prefix.utf8CodeUnitCount] == UInt8(ascii: " ")
        else { return nil }
        let line = currentLine()
        skipLine()
        return line.lowerBound + prefix.utf8CodeUnitCount + 1..<line.upperBound
    }

    /// Moves past the remaining headers (and their continuation lines) and returns where the
    /// message starts.
    mutating func messageStart() -> Int {
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "\n") { return position + 1 }
            skipLine()
        }
        return bytes.count
    }

    // MARK: Cursor

    private func startsWith(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { expected in
            for index in 0..<count where bytes[position + index] != expected[index] { return false }
            return true
        }
    }

    private func currentLine() -> Range<Int> {
        var end = position
        while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
        return position..<end
    }

    private mutating func skipLine() {
        while position < bytes.count && bytes[position] != UInt8(ascii: "\n") { position += 1 }
        position += 1
    }

    // MARK: Fields

    /// The name, email, seconds and offset of an ident (`Name <email> 1700000000 +0200`); the
    /// date is found from the end back to the last `>`, as git does, so odd names do not break it.
    func ident(_ range: Range<Int>) -> (name: String, email: String, seconds: Int64, offset: Int) {
        var close = range.upperBound
        while close > range.lowerBound && bytes[close - 1] != UInt8(ascii: ">") { close -= 1 }
        var open = range.lowerBound
        while open < close && bytes[open] != UInt8(ascii: "<") { open += 1 }
        var nameEnd = open
        while nameEnd > range.lowerBound && bytes[nameEnd - 1] == UInt8(ascii: " ") { nameEnd -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<nameEnd]), as: UTF8.self)
        guard close > range.lowerBound, open < close else { return (name, "", 0, 0) }
        let email = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(open + 1)..<(close - 1)]), as: UTF8.self)
        let date = Self.date(bytes, from: close, to: range.upperBound)
        return (name, email, date.seconds, date.offset)
    }

    /// Parses ` <seconds> <+hhmm>` between `start` and `end`.
    static func date(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (seconds: Int64, offset: Int) {
        var index = start
        while index < end && (bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")) { index += 1 }
        var seconds: Int64 = 0
        while index < end, bytes[index] >= 48, bytes[index] <= 57 {
            let (product, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int64(bytes[index] - 48))
            if overflow1 || overflow2 { return (0, 0) }
            seconds = sum
            index += 1
        }
        while index < end && bytes[index] == UInt8(ascii: " ") { index += 1 }
        var offset = 0
        if index + 5 <= end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            var value = 0
            var valid = true
            for digit in bytes[(index + 1)..<(index + 5)] {
                guard digit >= 48, digit <= 57 else { valid = false; break }
                value = value * 10 + Int(digit - 48)
            }
            if valid {
                offset = (value / 100) * 60 + value % 100
                if bytes[index] == UInt8(ascii: "-") { offset = -offset }
            }
        }
        return (seconds, offset)
    }

    /// 40 hex digits at `offset`, or nil.
    static func key(hex bytes: UnsafeRawBufferPointer, at offset: Int) -> ObjectKey? {
        var oid = git_oid()
        let valid = withUnsafeMutableBytes(of: &oid.id) { out -> Bool in
            for index in 0..<20 {
                guard let high = nibble(bytes[offset + 2 * index]), let low = nibble(bytes[offset + 2 * index + 1]) else {
                    return false
                }
                out[index] = high << 4 | low
            }
            return true
        }
        return valid ? ObjectKey(oid) : nil
    }

    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        case 65...70: byte - 55
        default: nil
        }
    }
}
