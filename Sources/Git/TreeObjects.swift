import Foundation
internal import CLibgit2

extension Repository {
    /// The object each of `paths` names in `commit`'s tree (a folder's tree, a file's blob), nil
    /// where nothing is there, in the order of `paths`.
    ///
    /// Paths that share a folder read it once: ten thousand packages under `packages/` cost one
    /// read of that folder and a binary search per name, where a lookup per path would read and
    /// parse the large folder again for each (libgit2 does not keep trees over 4 KiB in its cache).
    /// - Throws: `GitError` `.notFound` when `commit` is not here.
    public func objects(at commit: ObjectID, paths: [String]) throws -> [ObjectID?] {
        lock.lock(); defer { lock.unlock() }
        let operation = "read the tree of \(commit.short)"
        var id = commit.raw
        var commitObject: OpaquePointer?
        try check(git_commit_lookup(&commitObject, pointer, &id), operation)
        defer { git_commit_free(commitObject) }
        var root: OpaquePointer?
        try check(git_commit_tree(&root, commitObject), operation)
        defer { git_tree_free(root) }

        var byFolder: [String: [(index: Int, name: String)]] = [:]
        var result = [ObjectID?](repeating: nil, count: paths.count)
        for (index, path) in paths.enumerated() {
            var trimmed = path
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            if trimmed.isEmpty || trimmed == "." {
                result[index] = git_tree_id(root).map { ObjectID($0.pointee) }
                continue
            }
            if let slash = trimmed.lastIndex(of: "/") {
                byFolder[String(trimmed[..<slash]), default: []].append((index, String(trimmed[trimmed.index(after: slash)...])))
            } else {
                byFolder["", default: []].append((index, trimmed))
            }
        }
        for (folder, names) in byFolder {
            var tree = root
            var owned: OpaquePointer?
            if !folder.isEmpty {
                var entry: OpaquePointer?
                guard git_tree_entry_bypath(&entry, root, folder) == 0 else {
                    git_error_clear()
                    continue
                }
                defer { git_tree_entry_free(entry) }
                guard git_tree_entry_type(entry) == GIT_OBJECT_TREE, let entryID = git_tree_entry_id(entry) else { continue }
                var folderID = entryID.pointee
                try check(git_tree_lookup(&owned, pointer, &folderID), operation)
                tree = owned
            }
            defer { if owned != nil { git_tree_free(owned) } }
            for (index, name) in names {
                // Borrowed from the tree: not freed here.
                guard let entry = git_tree_entry_byname(tree, name), let entryID = git_tree_entry_id(entry) else { continue }
                result[index] = ObjectID(entryID.pointee)
            }
        }
        return result
    }
}
