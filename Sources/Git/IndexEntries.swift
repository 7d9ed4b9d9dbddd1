internal import CLibgit2
import Foundation

/// A path's entry in the index (stage 0): its mode and object, and the file's stat data as git
/// cached it (kept so that an entry put back is byte for byte the one taken out).
public struct IndexEntry: Sendable {
    /// The path relative to the work tree root.
    public var path: String
    /// The file mode (0o100644, 0o100755, 0o120000 for a link, 0o160000 for a gitlink).
    public var mode: UInt32
    /// The blob (or, for a gitlink, the commit) staged.
    public var id: ObjectID
    private var ctime = git_index_time()
    private var mtime = git_index_time()
    private var device: UInt32 = 0
    private var inode: UInt32 = 0
    private var user: UInt32 = 0
    private var group: UInt32 = 0
    private var size: UInt32 = 0
    private var flags: UInt16 = 0
    private var flagsExtended: UInt16 = 0

    /// An entry with no cached stat data: git compares the file's contents the next time it looks.
    public init(path: String, mode: UInt32, id: ObjectID) {
        self.path = path
        self.mode = mode
        self.id = id
    }

    init(_ entry: git_index_entry, path: String) {
        self.init(path: path, mode: entry.mode, id: ObjectID(entry.id))
        ctime = entry.ctime
        mtime = entry.mtime
        device = entry.dev
        inode = entry.ino
        user = entry.uid
        group = entry.gid
        size = entry.file_size
        // The name length is set again by libgit2 from the path; the stage stays 0.
        flags = entry.flags & ~UInt16(GIT_INDEX_ENTRY_NAMEMASK | GIT_INDEX_ENTRY_STAGEMASK)
        flagsExtended = entry.flags_extended
    }

    /// True when both stage the same object with the same mode (stat data aside).
    public func stagesSame(as other: IndexEntry?) -> Bool {
        guard let other else { return false }
        return mode == other.mode && id == other.id
    }

    /// Puts this entry into `index` (not written).
    func add(to index: OpaquePointer?) throws {
        var entry = git_index_entry()
        entry.ctime = ctime
        entry.mtime = mtime
        entry.dev = device
        entry.ino = inode
        entry.mode = mode
        entry.uid = user
        entry.gid = group
        entry.file_size = size
        entry.id = id.raw
        entry.flags = flags
        entry.flags_extended = flagsExtended
        try path.withCString { cPath in
            entry.path = cPath
            try check(git_index_add(index, &entry), "restore \(path) in the index")
        }
    }
}

extension Repository {
    // MARK: - Index entries

    /// The stage-0 index entries of `paths` that the index holds (a path it lacks is left out).
    public func indexEntries(_ paths: [String]) throws -> [String: IndexEntry] {
        lock.lock(); defer { lock.unlock() }
        let operation = "read the index"
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), operation)
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), operation)
        return Self.entries(paths, in: index)
    }

    /// Puts the index entries of `paths` back to `before` (a path missing from it is removed from
    /// the index), each only while `isOurs` says its present entry is what Shiplane staged; a
    /// path already as it was is left alone.
    /// - Returns: the paths put back.
    /// - Throws: `GitError` `.locked` when another process holds the index.
    @discardableResult
    public func restoreIndexEntries(
        _ paths: [String], to before: [String: IndexEntry], ifStaged isOurs: (String, IndexEntry?) -> Bool = { _, _ in true }
    ) throws -> [String] {
        lock.lock(); defer { lock.unlock() }
        let operation = "restore the index"
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), operation)
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), operation)
        let restored = try Self.restore(paths, to: before, in: index, ifStaged: isOurs)
        if !restored.isEmpty { try writeIndex(index, operation) }
        return restored
    }

    /// The object `git add` would stage for the work tree's file at `path` (filters applied), or
    /// nil when there is no such file.
    public func workTreeObject(_ path: String) -> ObjectID? {
        lock.lock(); defer { lock.unlock() }
        guard let workingDirectory else { return nil }
        let full = (workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/") + path
        var info = stat()
        guard lstat(full, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFLNK {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) else { return nil }
            var id = git_oid()
            let bytes = Array(target.utf8)
            guard git_odb_hash(&id, bytes, bytes.count, GIT_OBJECT_BLOB) == 0 else { return nil }
            return ObjectID(id)
        }
        var id = git_oid()
        guard git_repository_hashfile(&id, pointer, full, GIT_OBJECT_BLOB, path) == 0 else { return nil }
        return ObjectID(id)
    }

    static func entries(_ paths: [String], in index: OpaquePointer?) -> [String: IndexEntry] {
        var found: [String: IndexEntry] = [:]
        for path in paths {
            if let entry = git_index_get_bypath(index, path, 0) { found[path] = IndexEntry(entry.pointee, path: path) }
        }
        return found
    }

    /// Every stage-0 entry of `index`, by path.
    static func allEntries(in index: OpaquePointer?) -> [String: IndexEntry] {
        var found: [String: IndexEntry] = [:]
        for position in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, position)?.pointee, let cPath = entry.path else { continue }
            guard (Int32(entry.flags) & GIT_INDEX_ENTRY_STAGEMASK) >> GIT_INDEX_ENTRY_STAGESHIFT == 0 else { continue }
            let path = String(cString: cPath)
            found[path] = IndexEntry(entry, path: path)
        }
        return found
    }

    static func restore(
        _ paths: [String], to before: [String: IndexEntry], in index: OpaquePointer?, ifStaged isOurs: (String, IndexEntry?) -> Bool
    ) throws -> [String] {
        var restored: [String] = []
        for path in paths {
            let current = git_index_get_bypath(index, path, 0).map { IndexEntry($0.pointee, path: path) }
            let previous = before[path]
            if let current, current.stagesSame(as: previous) { continue }
            if current == nil, previous == nil { continue }
            guard isOurs(path, current) else { continue }
            if let previous {
                try previous.add(to: index)
            } else {
                try check(git_index_remove_bypath(index, path), "unstage \(path)")
            }
            restored.append(path)
        }
        return restored
    }
}
