import Foundation
internal import CLibgit2

extension Repository {
    // MARK: - Committing

    /// Stages exactly `paths` and commits them, and only them, on the current branch, or on a
    /// detached HEAD (HEAD then stays detached and moves to the new commit, as `git commit` does).
    ///
    /// Each path (relative to the work tree) is added to the index when it exists in the work tree
    /// and removed from it when it does not, so added, modified and deleted files all work. The
    /// commit's tree is HEAD's tree with just these paths replaced, like `git commit --only
    /// <paths>`: changes to other files, staged or not, stay where they were and out of the commit.
    /// The message gets git's whitespace clean-up (trailing spaces and blank lines removed, one
    /// final newline). On an unborn branch the commit has no parent.
    /// - Returns: The new commit.
    /// - Throws: `GitError` `.notFound` for a path
    ///   that is neither in the work tree nor in the index, `.invalid` for an empty message or no paths,
    ///   and `.locked` when another process holds the index; the branch moves only if all else worked.
    /// - Parameter beforeCommitting: runs once the paths are staged (and the index written), with
    ///   the message; returns the message to commit (git's pre-commit and commit-msg hooks run
    ///   here). What it stages besides `paths` is committed too, as git commits what a pre-commit
    ///   hook adds. When it or anything after it fails, the index entries of `paths` go back to
    ///   what they were and nothing is committed.
    /// - Parameter sign: given, signs the commit: it gets the commit object's text and returns the
    ///   signature (ASCII armor), stored in the commit's `gpgsig` header as git stores it.
    public func commit(
        paths: [String], message: String, author: Signature, committer: Signature,
        sign: ((String) throws -> String)? = nil,
        beforeCommitting: (String) throws -> String = { $0 }
    ) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        let operation = "commit \(paths.joined(separator: ", "))"
        guard !paths.isEmpty else {
            throw GitError(code: .invalid, operation: operation, message: "no paths to commit")
        }
        let parent: ObjectID?
        switch try head() {
        case .branch(_, let commit), .detached(let commit): parent = commit
        case .unborn: parent = nil
        }
        _ = try prettifiedMessage(message, operation)
        guard let workingDirectory else {
            throw GitError(code: .bareRepository, operation: operation, message: "a bare repository has no work tree to commit from")
        }

        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), operation)
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), operation)
        // The entries as they were: whatever fails from here on (a hook that refuses, a locked
        // branch, a corrupt object) leaves the index as it was found.
        let before = Self.entries(paths, in: index)
        do {
            try stage(paths, in: index, workingDirectory: workingDirectory, operation)
            try writeIndex(index, operation)
            let staged = Self.allEntries(in: index)
            let finalMessage = try beforeCommitting(message)
            let cleanMessage = try prettifiedMessage(finalMessage, operation)
            // A hook may have staged more (a formatter's `git add`): what it staged is committed
            // too, as git does.
            try check(git_index_read(index, 1), operation)
            let afterHooks = Self.allEntries(in: index)
            let hookStaged = Set(staged.keys).union(afterHooks.keys).filter { path in
                !paths.contains(path) && !(afterHooks[path]?.stagesSame(as: staged[path]) ?? (staged[path] == nil))
            }.sorted()
            return try commitTree(
                of: paths + hookStaged, from: index, onTopOf: parent, message: cleanMessage,
                author: author, committer: committer, sign: sign, operation)
        } catch {
            try? check(git_index_read(index, 1), operation)
            if (try? Self.restore(paths, to: before, in: index, ifStaged: { _, _ in true }))?.isEmpty == false {
                try? writeIndex(index, operation)
            }
            throw error
        }
    }

    /// Writes the tree of `parent` with `paths` from `index` and commits it on HEAD.
    private func commitTree(
        of paths: [String], from index: OpaquePointer?, onTopOf parent: ObjectID?, message: String,
        author: Signature, committer: Signature, sign: ((String) throws -> String)?, _ operation: String
    ) throws -> ObjectID {
        let tree = try treeWithOnly(paths, from: index, onTopOf: parent, operation)
        var treeObject: OpaquePointer?
        var treeID = tree.raw
        try check(git_tree_lookup(&treeObject, pointer, &treeID), operation)
        defer { git_tree_free(treeObject) }

        var parentObject: OpaquePointer?
        if let parent {
            var parentID = parent.raw
            try check(git_commit_lookup(&parentObject, pointer, &parentID), operation)
        }
        defer { git_commit_free(parentObject) }

        return try author.withLibgit2Signature(operation) { authorSignature in
            try committer.withLibgit2Signature(operation) { committerSignature in
                var created = git_oid()
                var parents: [OpaquePointer?] = parentObject.map { [$0] } ?? []
                if let sign {
                    var buffer = git_buf()
                    defer { git_buf_dispose(&buffer) }
                    let made = parents.withUnsafeMutableBufferPointer { list in
                        git_commit_create_buffer(
                            &buffer, pointer, authorSignature, committerSignature, nil, message, treeObject,
                            list.count, list.baseAddress)
                    }
                    try check(made, operation)
                    let content = buffer.ptr.map { String(cString: $0) } ?? ""
                    let signature = try sign(content)
                    try check(git_commit_create_with_signature(&created, pointer, content, signature, nil), operation)
                    let commit = ObjectID(created)
                    try moveHead(to: commit, from: parent, reflog: "commit: " + (message.split(separator: "\n").first.map(String.init) ?? ""), operation)
                    return commit
                }
                // "HEAD" moves the branch HEAD names (or a detached HEAD itself); libgit2 refuses if
                // it moved meanwhile.
                let result = parents.withUnsafeMutableBufferPointer { buffer in
                    git_commit_create(
                        &created, pointer, "HEAD", authorSignature, committerSignature, nil, message,
                        treeObject, buffer.count, buffer.baseAddress)
                }
                try check(result, operation)
                return ObjectID(created)
            }
        }
    }

    /// Moves the branch HEAD names (or a detached HEAD) from `parent` to `commit`, refusing if it
    /// moved meanwhile, as `git_commit_create` does with "HEAD"; an unborn branch is created.
    private func moveHead(to commit: ObjectID, from parent: ObjectID?, reflog: String, _ operation: String) throws {
        var head: OpaquePointer?
        try check(git_reference_lookup(&head, pointer, "HEAD"), operation)
        defer { git_reference_free(head) }
        let name = git_reference_type(head) == GIT_REFERENCE_SYMBOLIC
            ? git_reference_symbolic_target(head).map { String(cString: $0) } ?? "HEAD" : "HEAD"
        var id = commit.raw
        var moved: OpaquePointer?
        let result: Int32
        if let parent {
            var expected = parent.raw
            result = git_reference_create_matching(&moved, pointer, name, &id, 1, &expected, reflog)
        } else {
            result = git_reference_create(&moved, pointer, name, &id, 0, reflog)
        }
        if result == GIT_EMODIFIED.rawValue || result == GIT_EEXISTS.rawValue {
            throw GitError(code: .locked, operation: operation, message: "\(name) moved while the commit was being made")
        }
        try check(result, operation)
        git_reference_free(moved)
    }

    /// Sets the index entries of `paths` to what `tree` holds (removing those it lacks; a nil
    /// tree holds nothing).
    private func restoreIndexEntries(_ paths: [String], from tree: OpaquePointer?, in index: OpaquePointer?, _ operation: String) throws {
        for path in paths {
            var entry: OpaquePointer?
            let found = tree == nil ? GIT_ENOTFOUND.rawValue : git_tree_entry_bypath(&entry, tree, path)
            defer { git_tree_entry_free(entry) }
            if found == GIT_ENOTFOUND.rawValue {
                if git_index_get_bypath(index, path, 0) != nil { try check(git_index_remove_bypath(index, path), "unstage \(path)") }
                continue
            }
            try check(found, operation)
            var restored = git_index_entry()
            restored.mode = UInt32(git_tree_entry_filemode(entry).rawValue)
            if let id = git_tree_entry_id(entry) { restored.id = id.pointee }
            try path.withCString { cPath in
                restored.path = cPath
                try check(git_index_add(index, &restored), "restore \(path) in the index")
            }
        }
    }

    /// Adds each path to the index from the work tree, or removes it when the file is gone.
    /// A submodule (a gitlink entry), a nested repository or a linked worktree (a folder with a
    /// `.git` of its own) is another project: nothing in it is staged, and its gitlink is never
    /// replaced, as `git add` refuses a path inside a submodule.
    private func stage(_ paths: [String], in index: OpaquePointer?, workingDirectory: String, _ operation: String) throws {
        for path in paths {
            if let project = otherProject(holding: path, in: index, workingDirectory: workingDirectory) {
                throw GitError(
                    code: .invalid, operation: operation,
                    message: project == path
                        ? "\(path) is a submodule or a repository of its own: Shiplane does not change what it points at (commit it with git)"
                        : "\(path) is inside \(project), a submodule or a repository of its own: Shiplane does not commit into it")
            }
            var info = stat()
            if lstat(workingDirectory + "/" + path, &info) == 0 {
                try check(git_index_add_bypath(index, path), "stage \(path)")
            } else if git_index_get_bypath(index, path, 0) != nil {
                try check(git_index_remove_bypath(index, path), "stage the removal of \(path)")
            } else {
                throw GitError(
                    code: .notFound, operation: operation,
                    message: "\(path) is neither in the work tree nor in the index")
            }
        }
    }

    /// The submodule or nested repository `path` is (or lies in), or nil: a gitlink entry in the
    /// index for it or a folder above it, or a folder below the work tree holding a `.git`.
    private func otherProject(holding path: String, in index: OpaquePointer?, workingDirectory: String) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        let root = workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/"
        for count in stride(from: 1, through: parts.count, by: 1) {
            let prefix = parts.prefix(count).joined(separator: "/")
            if let entry = git_index_get_bypath(index, prefix, 0), entry.pointee.mode == GIT_FILEMODE_COMMIT.rawValue { return prefix }
            var info = stat()
            if count < parts.count || lstat(root + prefix, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR,
               lstat(root + prefix + "/.git", &info) == 0 {
                return prefix
            }
        }
        return nil
    }

    /// Writes the tree of `parent` with `paths` taken from `index` (present or absent) and returns it.
    private func treeWithOnly(_ paths: [String], from index: OpaquePointer?, onTopOf parent: ObjectID?, _ operation: String) throws -> ObjectID {
        var scratch: OpaquePointer?
        try check(git_index_new(&scratch), operation)
        defer { git_index_free(scratch) }
        if let parent {
            var parentID = parent.raw
            var commit: OpaquePointer?
            try check(git_commit_lookup(&commit, pointer, &parentID), operation)
            defer { git_commit_free(commit) }
            var tree: OpaquePointer?
            try check(git_commit_tree(&tree, commit), operation)
            defer { git_tree_free(tree) }
            try check(git_index_read_tree(scratch, tree), operation)
        }
        for path in paths {
            if let entry = git_index_get_bypath(index, path, 0) {
                try check(git_index_add(scratch, entry), "stage \(path)")
            } else if git_index_get_bypath(scratch, path, 0) != nil {
                try check(git_index_remove_bypath(scratch, path), "stage the removal of \(path)")
            }
        }
        var tree = git_oid()
        try check(git_index_write_tree_to(&tree, scratch, pointer), operation)
        return ObjectID(tree)
    }

    /// `message` cleaned up the way `git commit` does by default (whitespace only, `#` lines kept).
    func prettifiedMessage(_ message: String, _ operation: String) throws -> String {
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        try check(git_message_prettify(&buffer, message, 0, CChar(UInt8(ascii: "#"))), operation)
        let text = buffer.ptr.map { String(cString: $0) } ?? ""
        guard !text.isEmpty else {
            throw GitError(code: .invalid, operation: operation, message: "the message is empty")
        }
        return text
    }

    // MARK: - Undoing

    /// Drops `commit` from the current branch (or from a detached HEAD) if it still points at it.
    ///
    /// The branch moves back to the commit's first parent (a root commit leaves the branch unborn),
    /// and the index entries of the paths the commit changed go back to the parent's versions.
    /// The work tree is not touched: the caller restores the files' bytes. The branch moves with a
    /// compare-and-swap, so a commit made meanwhile by someone else is never lost.
    /// A detached HEAD moves back to the parent the same way (a root commit cannot be undone there:
    /// HEAD cannot be unborn without a branch).
    /// - Returns: false, changing nothing, when HEAD is no longer `commit`.
    public func undoCommit(_ commit: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "undo commit \(commit.short)"
        let branchReference: String
        switch try head() {
        case .branch(let branch, let current) where current == commit: branchReference = "refs/heads/" + branch
        case .detached(let current) where current == commit: branchReference = "HEAD"
        default: return false
        }

        var commitID = commit.raw
        var commitObject: OpaquePointer?
        try check(git_commit_lookup(&commitObject, pointer, &commitID), operation)
        defer { git_commit_free(commitObject) }
        var commitTree: OpaquePointer?
        try check(git_commit_tree(&commitTree, commitObject), operation)
        defer { git_tree_free(commitTree) }

        var parentObject: OpaquePointer?
        if git_commit_parentcount(commitObject) > 0 {
            try check(git_commit_parent(&parentObject, commitObject, 0), operation)
        }
        defer { git_commit_free(parentObject) }
        var parentTree: OpaquePointer?
        if let parentObject { try check(git_commit_tree(&parentTree, parentObject), operation) }
        defer { git_tree_free(parentTree) }

        let changed = try changedPaths(from: parentTree, to: commitTree, operation)

        if let parentObject, let parentID = git_commit_id(parentObject) {
            var moved: OpaquePointer?
            let result = git_reference_create_matching(
                &moved, pointer, branchReference, parentID, 1, &commitID, "shiplane: undo commit \(commit.short)")
            if result == GIT_EMODIFIED.rawValue { return false }
            try check(result, operation)
            git_reference_free(moved)
        } else {
            guard branchReference != "HEAD" else { return false }
            var reference: OpaquePointer?
            try check(git_reference_lookup(&reference, pointer, branchReference), operation)
            defer { git_reference_free(reference) }
            let result = git_reference_delete(reference)
            if result == GIT_EMODIFIED.rawValue { return false }
            try check(result, operation)
        }

        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), operation)
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), operation)
        try restoreIndexEntries(changed, from: parentTree, in: index, operation)
        try writeIndex(index, operation)
        return true
    }

    /// The paths (old and new names) that differ between two trees; a nil tree is empty.
    private func changedPaths(from old: OpaquePointer?, to new: OpaquePointer?, _ operation: String) throws -> [String] {
        var diff: OpaquePointer?
        try check(git_diff_tree_to_tree(&diff, pointer, old, new, nil), operation)
        defer { git_diff_free(diff) }
        var paths: [String] = []
        for index in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, index)?.pointee else { continue }
            for file in [delta.old_file, delta.new_file] {
                if let path = file.path.map({ String(cString: $0) }), !paths.contains(path) { paths.append(path) }
            }
        }
        return paths
    }
}

extension Repository {
    /// A commit's parents (first parent first) and its full message.
    /// - Throws: `GitError` `.notFound` when there is no such commit.
    public func commitParentsAndMessage(_ commit: ObjectID) throws -> (parents: [ObjectID], message: String) {
        lock.lock(); defer { lock.unlock() }
        let operation = "read commit \(commit.short)"
        var id = commit.raw
        var object: OpaquePointer?
        try check(git_commit_lookup(&object, pointer, &id), operation)
        defer { git_commit_free(object) }
        var parents: [ObjectID] = []
        for index in 0..<git_commit_parentcount(object) {
            if let parent = ObjectID(git_commit_parent_id(object, index)) { parents.append(parent) }
        }
        let message = git_commit_message(object).map { String(cString: $0) } ?? ""
        return (parents, message)
    }
}
