import Foundation
internal import CLibgit2

extension Repository {
    // MARK: - Repositories without a work tree

    /// Creates an empty bare repository at `path` (`git init --bare`), for publishing to another
    /// repository (a Homebrew tap) without checking it out.
    /// - Throws: `GitError` when the folder cannot be made a repository.
    public static func createBare(at path: String) throws -> Repository {
        Libgit2.ensureInitialised()
        var handle: OpaquePointer?
        try check(git_repository_init(&handle, path, 1), "create a bare repository at \(path)")
        guard let handle else {
            throw GitError(code: .other(-1), operation: "create a bare repository at \(path)", message: "no handle returned")
        }
        git_repository_free(handle)
        return try open(path)
    }

    /// The commit a local ref names (a tag peeled to its commit), nil when there is no such ref.
    /// - Throws: `GitError` when the ref cannot be read.
    public func commitOfReference(_ name: String) throws -> ObjectID? {
        lock.lock(); defer { lock.unlock() }
        var reference: OpaquePointer?
        let found = git_reference_lookup(&reference, pointer, name)
        if found == GIT_ENOTFOUND.rawValue { return nil }
        try check(found, "read \(name)")
        defer { git_reference_free(reference) }
        var peeled: OpaquePointer?
        try check(git_reference_peel(&peeled, reference, GIT_OBJECT_COMMIT), "read \(name)")
        defer { git_object_free(peeled) }
        return ObjectID(git_object_id(peeled))
    }

    /// The bytes of the file at `path` in `commit`'s tree; nil when the tree has no file there.
    /// - Throws: `GitError` when the commit cannot be read.
    public func fileContents(_ path: String, in commit: ObjectID) throws -> Data? {
        lock.lock(); defer { lock.unlock() }
        let operation = "read \(path) at \(commit.short)"
        var commitID = commit.raw
        var commitObject: OpaquePointer?
        try check(git_commit_lookup(&commitObject, pointer, &commitID), operation)
        defer { git_commit_free(commitObject) }
        var tree: OpaquePointer?
        try check(git_commit_tree(&tree, commitObject), operation)
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        let found = git_tree_entry_bypath(&entry, tree, path)
        if found == GIT_ENOTFOUND.rawValue { return nil }
        try check(found, operation)
        defer { git_tree_entry_free(entry) }
        guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return nil }
        var blob: OpaquePointer?
        try check(git_blob_lookup(&blob, pointer, git_tree_entry_id(entry)), operation)
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let bytes = git_blob_rawcontent(blob) else { return Data() }
        return Data(bytes: bytes, count: size)
    }

    /// Commits one file, without a work tree or index: `parent`'s tree with `contents` at `path`
    /// (nil removes it), and moves `ref` to the new commit only while it is still at `parent`
    /// (created when `parent` is nil and the ref does not exist).
    /// - Returns: The new commit.
    /// - Throws: `GitError` `.invalid` for an empty path or message, `.locked`/`.other` when `ref`
    ///   moved meanwhile; nothing moves then.
    public func commitFile(
        _ path: String, contents: Data?, onTopOf parent: ObjectID?, message: String, author: Signature, committer: Signature,
        updating ref: String
    ) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        return try commitFiles([(path, contents)], onTopOf: parent, message: message, author: author, committer: committer, updating: ref)
    }

    /// Commits several files at once, without a work tree or index: `parent`'s tree with each
    /// file's `contents` at its `path` (nil removes it), as one commit; `ref` moves as `commitFile`'s.
    /// - Returns: The new commit.
    /// - Throws: `GitError` `.invalid` for no files, an empty path or message, `.locked`/`.other`
    ///   when `ref` moved meanwhile; nothing moves then.
    public func commitFiles(
        _ files: [(path: String, contents: Data?)], onTopOf parent: ObjectID?, message: String, author: Signature, committer: Signature,
        updating ref: String
    ) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        let operation = "commit " + (files.count == 1 ? files[0].path : "\(files.count) files")
        guard !files.isEmpty, files.allSatisfy({ !$0.path.isEmpty && !$0.path.hasPrefix("/") }) else {
            throw GitError(code: .invalid, operation: operation, message: "name at least one path, each relative to the repository root")
        }
        let cleanMessage = try prettifiedMessage(message, operation)
        var scratch: OpaquePointer?
        try check(git_index_new(&scratch), operation)
        defer { git_index_free(scratch) }
        var parentObject: OpaquePointer?
        if let parent {
            var parentID = parent.raw
            try check(git_commit_lookup(&parentObject, pointer, &parentID), operation)
            var tree: OpaquePointer?
            try check(git_commit_tree(&tree, parentObject), operation)
            defer { git_tree_free(tree) }
            try check(git_index_read_tree(scratch, tree), operation)
        }
        defer { git_commit_free(parentObject) }
        for (path, contents) in files {
            if let contents {
                var blob = git_oid()
                try check(contents.withUnsafeBytes { bytes in git_blob_create_from_buffer(&blob, pointer, bytes.baseAddress, bytes.count) }, operation)
                var entry = git_index_entry()
                entry.mode = 0o100644
                entry.id = blob
                let added = path.withCString { name -> Int32 in
                    entry.path = name
                    return git_index_add(scratch, &entry)
                }
                try check(added, operation)
            } else if git_index_get_bypath(scratch, path, 0) != nil {
                try check(git_index_remove_bypath(scratch, path), operation)
            }
        }
        var treeID = git_oid()
        try check(git_index_write_tree_to(&treeID, scratch, pointer), operation)
        var treeObject: OpaquePointer?
        try check(git_tree_lookup(&treeObject, pointer, &treeID), operation)
        defer { git_tree_free(treeObject) }

        let created = try author.withLibgit2Signature(operation) { authorSignature in
            try committer.withLibgit2Signature(operation) { committerSignature in
                var created = git_oid()
                var parents: [OpaquePointer?] = parentObject.map { [$0] } ?? []
                let result = parents.withUnsafeMutableBufferPointer { buffer in
                    git_commit_create(
                        &created, pointer, nil, authorSignature, committerSignature, nil, cleanMessage, treeObject,
                        buffer.count, buffer.baseAddress)
                }
                try check(result, operation)
                return ObjectID(created)
            }
        }
        var moved: OpaquePointer?
        var id = created.raw
        let reflog = "commit: " + (cleanMessage.split(separator: "\n").first.map(String.init) ?? "")
        if let parent {
            var expected = parent.raw
            try check(git_reference_create_matching(&moved, pointer, ref, &id, 1, &expected, reflog), operation)
        } else {
            try check(git_reference_create(&moved, pointer, ref, &id, 0, reflog), operation)
        }
        git_reference_free(moved)
        return created
    }
}
