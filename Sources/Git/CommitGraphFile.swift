import Foundation
internal import CLibgit2

/// git's commit-graph file (`objects/info/commit-graph`, or the split chain under
/// `objects/info/commit-graphs/`), read directly: each commit's parents, committer date and root
/// tree without inflating the commit object, and its changed-path Bloom filter where the file has
/// them (BIDX and BDAT, `ChangedPathFilter`).
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
        /// The changed-path filters (BIDX, then BDAT after its 12-byte header), when this layer
        /// has them and they are usable (see `changedPaths`).
        var filters: Filters?
    }

    /// A layer's BIDX and BDAT chunks: where each commit's filter ends, and the filters.
    private struct Filters {
        let index: Int
        let data: Int
        let dataCount: Int
        let settings: ChangedPathSettings
    }

    private let layers: [Layer]

    /// How many commits the file holds, all layers together.
    var commitCount: Int { layers.last.map { $0.offset + $0.count } ?? 0 }

    /// How the changed-path filters were written, when the file has usable ones: every layer
    /// whose filters are read was written with these.
    let changedPaths: ChangedPathSettings?

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
        // Which filter versions git itself would read here (`commitGraph.changedPathsVersion`:
        // -1 any, 0 none, 1 or 2 only that one; the older `commitGraph.readChangedPaths=false`
        // means 0). As git does, the newest layer with filters sets the settings, and a layer
        // written with other settings is read without its filters.
        let wanted = Self.wantedFilterVersion(repository)
        var settings: ChangedPathSettings?
        for index in layers.indices.reversed() {
            guard let filters = layers[index].filters else { continue }
            if wanted == 0 || (wanted > 0 && Int(filters.settings.version) != wanted) || (settings.map { $0 != filters.settings } ?? false) {
                layers[index].filters = nil
            } else {
                settings = filters.settings
            }
        }
        return CommitGraphFile(layers: layers, changedPaths: settings)
    }

    private init(layers: [Layer], changedPaths: ChangedPathSettings?) {
        self.layers = layers
        self.changedPaths = changedPaths
    }

    private static func wantedFilterVersion(_ repository: Repository) -> Int {
        if let text = try? repository.configString("commitGraph.changedPathsVersion") {
            return Int(text.trimmingCharacters(in: .whitespaces)) ?? 0
        }
        if let text = try? repository.configString("commitGraph.readChangedPaths"),
           ["false", "no", "off", "0"].contains(text.lowercased()) {
            return 0
        }
        return -1
    }

    /// The commit at `id`, when the graph has it: its parents (global positions resolved to ids)
    /// and committer date in seconds.
    func commit(_ key: ObjectKey) -> (parents: [ObjectKey], date: Int64)? {
        guard let position = position(of: key) else { return nil }
        return commit(at: position)
    }

    /// The root tree of the commit at `key`, when the graph has the commit.
    func tree(_ key: ObjectKey) -> ObjectKey? {
        guard let position = position(of: key),
              let layer = layers.last(where: { $0.offset <= position }), position - layer.offset < layer.count
        else { return nil }
        let record = layer.commitData + 36 * (position - layer.offset)
        return layer.data.withUnsafeBytes { bytes in
            var oid = git_oid()
            withUnsafeMutableBytes(of: &oid.id) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[record...].prefix(20)))
            }
            return ObjectKey(oid)
        }
    }

    /// Runs `body` with the changed-path filter of the commit at `key`: what git wrote of the
    /// paths that differ between the commit and its first parent. Nil when there is no usable
    /// filter (the commit is not in the file, its layer has no filters or other settings, or
    /// its filter was not computed): then only reading the trees can tell.
    func withChangedPathFilter<T>(of key: ObjectKey, _ body: (ChangedPathFilter) throws -> T) rethrows -> T? {
        guard let settings = changedPaths, let position = position(of: key),
              let layer = layers.last(where: { $0.offset <= position }), position - layer.offset < layer.count,
              let filters = layer.filters
        else { return nil }
        let index = position - layer.offset
        return try layer.data.withUnsafeBytes { bytes -> T? in
            // BIDX holds where each filter ends in BDAT's data; the first starts at 0.
            let end = Int(Self.uint32(bytes, filters.index + 4 * index))
            let start = index == 0 ? 0 : Int(Self.uint32(bytes, filters.index + 4 * (index - 1)))
            // An empty filter was not computed (git writes a one-byte filter for no changes).
            guard start < end, end <= filters.dataCount else { return nil }
            let filter = ChangedPathFilter(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[(filters.data + start)..<(filters.data + end)]),
                hashCount: settings.hashCount
            )
            return try body(filter)
        }
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
            // BIDX and BDAT come together or not at all (git ignores one alone); BDAT opens with
            // the hash version (1 or 2), the number of hashes and the bits per entry.
            var filters: Filters?
            if let index = chunks[0x4249_4458], index.count == 4 * count,
               let filterData = chunks[0x4244_4154], filterData.count >= 12 {
                let version = uint32(bytes, filterData.lowerBound)
                let hashCount = uint32(bytes, filterData.lowerBound + 4)
                if version == 1 || version == 2, (1...64).contains(hashCount) {
                    filters = Filters(
                        index: index.lowerBound, data: filterData.lowerBound + 12, dataCount: filterData.count - 12,
                        settings: ChangedPathSettings(version: UInt8(version), hashCount: Int(hashCount))
                    )
                }
            }
            return Layer(
                data: data, count: count, offset: offset, fanout: fanout.lowerBound, oids: oids.lowerBound,
                commitData: commitData.lowerBound, extraEdges: edges?.lowerBound, extraEdgeCount: (edges?.count ?? 0) / 4,
                filters: filters
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
