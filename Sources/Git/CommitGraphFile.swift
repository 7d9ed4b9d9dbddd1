import Foundation
internal import CLibgit2

/// git's commit-graph file (`objects/info/commit-graph`, or the split chain under
/// `objects/info/commit-graphs/`), read directly: each commit's parents and committer date without
/// inflating the commit object.
///
/// `git gc` and `git maintenance` write it; `git log` and `git rev-list` use it for the same
/// reason a whole-history changelog does: with it, finding which release tags HEAD reaches and
/// walking history cost a binary search per commit instead of an object read. Only messages are
/// then read from the object database, once per shown commit.
///
/// The format is git's `Documentation/gitformat-commit-graph.txt`, version 1 with SHA-1 ids. The
/// file is checked as it is opened (signature, version, chunk table, sizes); anything unexpected,
/// a shallow repository (git ignores the file there too) or `core.commitGraph=false` means no
/// graph, and walks read objects as before. Lookups are bounds-checked, so a file that lies about
/// its contents cannot crash a walk; it can at worst misstate parents, as it would for git.
final class CommitGraphFile {
    /// One file of the chain (a single `commit-graph` file is a chain of one).
    private struct Layer {
        let data: Data
        let count: Int
        /// Commits in the layers below this one: the global position of this layer's first commit.
        let offset: Int
        let fanout: Int
        let oids: Int
        let commitData: Int
        let extraEdges: Int?
        let extraEdgeCount: Int
    }

    private let layers: [Layer]

    /// The position of `parent2` and of extra edges that says "no parent".
    private static let noParent: UInt32 = 0x7000_0000
    private static let octopusFlag: UInt32 = 0x8000_0000
    private static let lastEdgeFlag: UInt32 = 0x8000_0000

    /// The repository's commit-graph, or nil when it has none usable.
    static func open(repository: Repository) -> CommitGraphFile? {
        guard !repository.isShallow else { return nil }
        if let setting = try? repository.configString("core.commitGraph"),
           ["false", "no", "off", "0"].contains(setting.lowercased()) {
            return nil
        }
        let info = Self.objectsFolder(of: repository) + "/info"
        var files: [String] = []
        if let chain = try? String(contentsOfFile: info + "/commit-graphs/commit-graph-chain", encoding: .utf8) {
            files = chain.split(whereSeparator: \.isNewline).map { info + "/commit-graphs/graph-\($0).graph" }
        } else if FileManager.default.fileExists(atPath: info + "/commit-graph") {
            files = [info + "/commit-graph"]
        }
        guard !files.isEmpty else { return nil }
        var layers: [Layer] = []
        var offset = 0
        for (index, path) in files.enumerated() {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
                  let layer = Self.layer(data, offset: offset, expectedBases: index)
            else { return nil }
            layers.append(layer)
            offset += layer.count
        }
        return CommitGraphFile(layers: layers)
    }

    private init(layers: [Layer]) {
        self.layers = layers
    }

    /// The commit at `id`, when the graph has it: its parents (global positions resolved to ids)
    /// and committer date in seconds.
    func commit(_ key: ObjectKey) -> (parents: [ObjectKey], date: Int64)? {
        guard let position = position(of: key) else { return nil }
        return commit(at: position)
    }

    // MARK: - Lookups

    private func position(of key: ObjectKey) -> Int? {
        var oid = key.oid
        return withUnsafeBytes(of: &oid.id) { wanted -> Int? in
            // Newest layer first: a commit is in exactly one layer.
            for layer in layers.reversed() {
                if let index = Self.find(wanted, in: layer) { return layer.offset + index }
            }
            return nil
        }
    }

    private static func find(_ wanted: UnsafeRawBufferPointer, in layer: Layer) -> Int? {
        layer.data.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, let target = wanted.baseAddress else { return nil }
            let first = Int(wanted[0])
            var low = first == 0 ? 0 : Int(Self.uint32(bytes, layer.fanout + 4 * (first - 1)))
            var high = Int(Self.uint32(bytes, layer.fanout + 4 * first))
            guard high <= layer.count, low <= high else { return nil }
            while low < high {
                let middle = (low + high) / 2
                let order = memcmp(base + layer.oids + 20 * middle, target, 20)
                if order == 0 { return middle }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    private func commit(at position: Int) -> (parents: [ObjectKey], date: Int64)? {
        guard let layer = layers.last(where: { $0.offset <= position }), position - layer.offset < layer.count else { return nil }
        let index = position - layer.offset
        return layer.data.withUnsafeBytes { bytes -> (parents: [ObjectKey], date: Int64)? in
            let record = layer.commitData + 36 * index
            let first = Self.uint32(bytes, record + 20)
            let second = Self.uint32(bytes, record + 24)
            let high = Self.uint32(bytes, record + 28)
            let low = Self.uint32(bytes, record + 32)
            let date = Int64(high & 0x3) << 32 | Int64(low)
            var parents: [ObjectKey] = []
            if first != Self.noParent {
                guard let key = key(at: Int(first)) else { return nil }
                parents.append(key)
            }
            if second & Self.octopusFlag != 0 {
                // Parents two and up are listed in the extra-edges chunk, the last one flagged.
                guard let edges = layer.extraEdges else { return nil }
                var edge = Int(second & ~Self.octopusFlag)
                while true {
                    guard edge < layer.extraEdgeCount else { return nil }
                    let value = Self.uint32(bytes, edges + 4 * edge)
                    guard let key = key(at: Int(value & ~Self.lastEdgeFlag)) else { return nil }
                    parents.append(key)
                    if value & Self.lastEdgeFlag != 0 { break }
                    edge += 1
                }
            } else if second != Self.noParent {
                guard let key = key(at: Int(second)) else { return nil }
                parents.append(key)
            }
            return (parents, date)
        }
    }

    private func key(at position: Int) -> ObjectKey? {
        guard let layer = layers.last(where: { $0.offset <= position }), position - layer.offset < layer.count else { return nil }
        return layer.data.withUnsafeBytes { bytes in
            var oid = git_oid()
            withUnsafeMutableBytes(of: &oid.id) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(layer.oids + 20 * (position - layer.offset))...].prefix(20)))
            }
            return ObjectKey(oid)
        }
    }

    // MARK: - Opening

    private static func objectsFolder(of repository: Repository) -> String {
        // A linked worktree's objects live in the common folder.
        var folder = git_repository_commondir(repository.pointer).map { String(cString: $0) } ?? repository.gitDirectory
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder + "/objects"
    }

    /// Checks the header and chunk table and finds the chunks; nil for anything unexpected.
    private static func layer(_ data: Data, offset: Int, expectedBases: Int) -> Layer? {
        data.withUnsafeBytes { bytes -> Layer? in
            let size = bytes.count
            // Header: "CGPH", version 1, hash version 1 (SHA-1), chunk count, base graph count.
            guard size >= 8 + 12 + 20,
                  bytes[0] == 0x43, bytes[1] == 0x47, bytes[2] == 0x50, bytes[3] == 0x48,
                  bytes[4] == 1, bytes[5] == 1, Int(bytes[7]) == expectedBases
            else { return nil }
            let chunkCount = Int(bytes[6])
            guard size >= 8 + 12 * (chunkCount + 1) else { return nil }
            var chunks: [UInt32: Range<Int>] = [:]
            for index in 0..<chunkCount {
                let entry = 8 + 12 * index
                let id = uint32(bytes, entry)
                let start = uint64(bytes, entry + 4)
                let end = uint64(bytes, entry + 16)
                guard start <= end, end <= UInt64(size) else { return nil }
                chunks[id] = Int(start)..<Int(end)
            }
            // OIDF, OIDL, CDAT are required; EDGE only with octopus merges.
            guard let fanout = chunks[0x4F49_4446], fanout.count == 1024,
                  let oids = chunks[0x4F49_444C], oids.count % 20 == 0,
                  let commitData = chunks[0x4344_4154]
            else { return nil }
            let count = oids.count / 20
            guard Int(uint32(bytes, fanout.lowerBound + 1020)) == count, commitData.count == 36 * count else { return nil }
            let edges = chunks[0x4544_4745]
            return Layer(
                data: data, count: count, offset: offset, fanout: fanout.lowerBound, oids: oids.lowerBound,
                commitData: commitData.lowerBound, extraEdges: edges?.lowerBound, extraEdgeCount: (edges?.count ?? 0) / 4
            )
        }
    }

    private static func uint32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private static func uint64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
