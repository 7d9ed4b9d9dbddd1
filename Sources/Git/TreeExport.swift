import Foundation
internal import CLibgit2

/// One entry of a commit's tree as `git archive` would write it.
public struct ExportedEntry: Sendable, Equatable {
    /// What the entry is.
    public enum Kind: Sendable, Equatable {
        /// A folder (written before what it holds).
        case directory
        /// A file, executable or not.
        case file(executable: Bool)
        /// A symbolic link (its target is the blob's bytes).
        case symbolicLink
        /// A submodule's commit, which `git archive` leaves out.
        case submodule
    }

    /// The path in the tree, `/`-separated, without a trailing slash.
    public var path: String
    /// A file, a folder, a link or a submodule.
    public var kind: Kind
    /// The blob (or tree, or submodule commit) the entry names.
    public var id: ObjectID
}

extension Repository {
    /// The entries of `commit`'s tree in `git archive`'s order (a folder before what it holds),
    /// leaving out every path that the `export-ignore` attribute marks (read from the index's
    /// `.gitattributes`, as a release commit's are) and everything under such a folder; and the
    /// commit's time, which `git archive` gives every entry.
    /// - Throws: `GitError` when the commit or a tree cannot be read.
    public func exportedEntries(of commit: ObjectID) throws -> (entries: [ExportedEntry], time: Int) {
        lock.lock(); defer { lock.unlock() }
        let operation = "list the files of commit \(commit.hex)"
        var oid = commit.raw
        var found: OpaquePointer?
        try check(git_commit_lookup(&found, pointer, &oid), operation)
        defer { git_commit_free(found) }
        let time = Int(git_commit_time(found))
        var tree: OpaquePointer?
        try check(git_commit_tree(&tree, found), operation)
        defer { git_tree_free(tree) }

        final class Walk {
            var entries: [ExportedEntry] = []
            let repository: OpaquePointer
            init(repository: OpaquePointer) { self.repository = repository }
        }
        let walk = Walk(repository: pointer)
        let box = Unmanaged.passUnretained(walk).toOpaque()
        let callback: git_treewalk_cb = { root, entry, payload in
            guard let root, let entry, let payload else { return 0 }
            let walk = Unmanaged<Walk>.fromOpaque(payload).takeUnretainedValue()
            let path = String(cString: root) + String(cString: git_tree_entry_name(entry))
            var value: UnsafePointer<CChar>?
            if git_attr_get(&value, walk.repository, UInt32(GIT_ATTR_CHECK_INDEX_ONLY), path, "export-ignore") == 0,
               git_attr_value(value) == GIT_ATTR_VALUE_TRUE {
                return 1  // skip it, and a folder's whole subtree
            }
            git_error_clear()
            guard let id = ObjectID(git_tree_entry_id(entry)) else { return 0 }
            let kind: ExportedEntry.Kind
            switch git_tree_entry_filemode(entry) {
            case GIT_FILEMODE_TREE: kind = .directory
            case GIT_FILEMODE_BLOB_EXECUTABLE: kind = .file(executable: true)
            case GIT_FILEMODE_LINK: kind = .symbolicLink
            case GIT_FILEMODE_COMMIT: kind = .submodule
            default: kind = .file(executable: false)
            }
            walk.entries.append(ExportedEntry(path: path, kind: kind, id: id))
            return 0
        }
        try check(git_tree_walk(tree, GIT_TREEWALK_PRE, callback, box), operation)
        return (walk.entries, time)
    }

    /// Writes the bytes of the blob `id` to `path` (created or replaced).
    /// - Throws: `GitError` when the blob cannot be read, a Foundation error when the file cannot be written.
    public func writeBlob(_ id: ObjectID, to path: String) throws {
        lock.lock(); defer { lock.unlock() }
        var oid = id.raw
        var blob: OpaquePointer?
        try check(git_blob_lookup(&blob, pointer, &oid), "read blob \(id.hex)")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        let data = size > 0 ? git_blob_rawcontent(blob).map { Data(bytes: $0, count: size) } ?? Data() : Data()
        try data.write(to: URL(fileURLWithPath: path))
    }
}
