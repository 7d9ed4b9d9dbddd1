import Foundation
internal import CLibgit2

extension Repository {
    /// Moves HEAD — its branch, or a detached HEAD — forward from `from` to `to`, a commit that
    /// descends from it, with the index and the work tree (`git merge --ff-only`).
    ///
    /// A move killed half-way is finished by the next call. libgit2's checkout writes a file in
    /// place (a kill leaves it cut short) and moves the ref last, so this one writes each file
    /// whole in the git folder and renames it into place: every path the two commits differ in
    /// holds one side's version, never a part. Before anything is written, each such path must
    /// hold `from`'s version (work tree and index) or `to`'s — the interrupted move's own work;
    /// anything else is a change of someone's and stops the move with nothing written or moved.
    /// Paths the commits do not differ in are left as they are (as a safe checkout leaves them).
    /// Deletions go first, then the files, then the index, then the ref.
    /// - Returns: false, changing nothing, when HEAD is not at `from` or `to` does not descend
    ///   from it.
    /// - Throws: `GitError` `.notFound` when `to` is not in the repository, `.conflict` naming the
    ///   paths the work tree or the index changed otherwise (nothing moved).
    public func fastForwardHead(from: ObjectID, to: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "move HEAD forward from \(from.short) to \(to.short)"
        let reference: String
        switch try head() {
        case .branch(let branch, let current) where current == from: reference = "refs/heads/" + branch
        case .detached(let current) where current == from: reference = "HEAD"
        default: return false
        }
        guard from != to, try isAncestor(from, of: to) else { return false }
        var fromID = from.raw, toID = to.raw
        var fromObject: OpaquePointer?, toObject: OpaquePointer?
        try check(git_commit_lookup(&fromObject, pointer, &fromID), operation)
        defer { git_commit_free(fromObject) }
        try check(git_commit_lookup(&toObject, pointer, &toID), operation)
        defer { git_commit_free(toObject) }
        var fromTree: OpaquePointer?, toTree: OpaquePointer?
        try check(git_commit_tree(&fromTree, fromObject), operation)
        defer { git_tree_free(fromTree) }
        try check(git_commit_tree(&toTree, toObject), operation)
        defer { git_tree_free(toTree) }

        let changes = try treeChanges(from: fromTree, to: toTree, operation)
        guard let workdir = git_repository_workdir(pointer).map({ String(cString: $0) }),
              let gitdir = git_repository_path(pointer).map({ String(cString: $0) }),
              !changes.contains(where: { $0.old?.mode == GIT_FILEMODE_COMMIT.rawValue || $0.new?.mode == GIT_FILEMODE_COMMIT.rawValue })
        else {
            // A submodule moves, or there is no work tree: libgit2's safe checkout, as it comes.
            try moveBranch(reference, from: from, fromTree: fromTree, to: to, toTree: toTree, operation)
            return true
        }
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), operation)
        defer { git_index_free(index) }
        try check(git_index_read(index, 1), operation)

        var pending: [TreeChange] = [], changed: [String] = []
        for change in changes {
            let found = workTreeSide(workdir + change.path, path: change.path)
            let staged = git_index_get_bypath(index, change.path, 0).map { TreeChange.Side(id: ObjectID($0.pointee.id), mode: $0.pointee.mode) }
            guard staged == change.old || staged == change.new else {
                changed.append(change.path)
                continue
            }
            if found.holds(change.new) { continue }
            if found.holds(change.old) { pending.append(change) } else { changed.append(change.path) }
        }
        guard changed.isEmpty else {
            throw GitError(code: .conflict, operation: operation, message: "changed here, neither as at \(from.short) nor as at \(to.short): "
                + changed.joined(separator: ", "))
        }

        let stage = gitdir + "shiplane-move"
        try? FileManager.default.removeItem(atPath: stage)
        try createFolder(stage, operation)
        defer { try? FileManager.default.removeItem(atPath: stage) }
        for change in pending where change.new == nil {
            guard unlink(workdir + change.path) == 0 || errno == ENOENT else { throw osError("delete \(change.path)", operation) }
            removeEmptyFolders(above: change.path, workdir: workdir)
        }
        for (number, change) in pending.enumerated() {
            guard let side = change.new else { continue }
            try writeWhole(side, path: change.path, workdir: workdir, staged: stage + "/\(number)", operation)
        }

        for change in changes {
            if let side = change.new {
                var info = stat()
                guard lstat(workdir + change.path, &info) == 0 else { throw osError("read \(change.path)", operation) }
                var entry = git_index_entry()
                entry.ctime = git_index_time(seconds: Int32(truncatingIfNeeded: info.statusChangeTime.tv_sec), nanoseconds: UInt32(truncatingIfNeeded: info.statusChangeTime.tv_nsec))
                entry.mtime = git_index_time(seconds: Int32(truncatingIfNeeded: info.modificationTime.tv_sec), nanoseconds: UInt32(truncatingIfNeeded: info.modificationTime.tv_nsec))
                entry.dev = UInt32(truncatingIfNeeded: info.st_dev)
                entry.ino = UInt32(truncatingIfNeeded: info.st_ino)
                entry.uid = info.st_uid
                entry.gid = info.st_gid
                entry.file_size = UInt32(truncatingIfNeeded: info.st_size)
                entry.mode = side.mode
                entry.id = side.id.raw
                try change.path.withCString { path in
                    entry.path = path
                    try check(git_index_add(index, &entry), operation)
                }
            } else if git_index_get_bypath(index, change.path, 0) != nil {
                try check(git_index_remove_bypath(index, change.path), operation)
            }
        }
        try writeIndex(index, operation)
        var moved: OpaquePointer?
        try check(git_reference_create_matching(&moved, pointer, reference, &toID, 1, &fromID, "shiplane: \(operation)"), operation)
        git_reference_free(moved)
        return true
    }

    /// One path two trees differ in, with each side's blob (nil: not in that tree).
    struct TreeChange {
        struct Side: Equatable {
            var id: ObjectID
            var mode: UInt32
        }
        var path: String
        var old: Side?
        var new: Side?
    }

    /// What the work tree holds at a path, as a tree entry would name it.
    enum WorkTreeSide: Equatable {
        case absent, folder, other
        case entry(TreeChange.Side)

        /// True when this is `side`'s blob, or nothing for nil (a folder counts as no file: the
        /// move made it for a path beneath).
        func holds(_ side: TreeChange.Side?) -> Bool {
            guard let side else { return self == .absent || self == .folder }
            return self == .entry(side)
        }
    }

    /// The paths `old` and `new` differ in (no renames: a rename is a deletion and an addition).
    private func treeChanges(from old: OpaquePointer?, to new: OpaquePointer?, _ operation: String) throws -> [TreeChange] {
        var diff: OpaquePointer?
        try check(git_diff_tree_to_tree(&diff, pointer, old, new, nil), operation)
        defer { git_diff_free(diff) }
        var changes: [TreeChange] = []
        for position in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, position)?.pointee else { continue }
            func side(_ file: git_diff_file) -> TreeChange.Side? {
                var id = file.id
                return file.mode == 0 || git_oid_is_zero(&id) == 1 ? nil : TreeChange.Side(id: ObjectID(file.id), mode: UInt32(file.mode))
            }
            guard let path = (delta.new_file.path ?? delta.old_file.path).map({ String(cString: $0) }) else { continue }
            changes.append(TreeChange(path: path, old: side(delta.old_file), new: side(delta.new_file)))
        }
        return changes
    }

    /// The blob and mode of the file or link at `full` (`path` in the work tree, filters applied).
    private func workTreeSide(_ full: String, path: String) -> WorkTreeSide {
        var info = stat()
        guard lstat(full, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .absent : .other }
        var id = git_oid()
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            return .folder
        case S_IFLNK:
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(full, &target, target.count - 1)
            guard count >= 0, git_odb_hash(&id, target, count, GIT_OBJECT_BLOB) == 0 else { return .other }
            return .entry(.init(id: ObjectID(id), mode: GIT_FILEMODE_LINK.rawValue))
        case S_IFREG:
            guard git_repository_hashfile(&id, pointer, full, GIT_OBJECT_BLOB, path) == 0 else { git_error_clear(); return .other }
            let mode = info.st_mode & 0o100 != 0 ? GIT_FILEMODE_BLOB_EXECUTABLE.rawValue : GIT_FILEMODE_BLOB.rawValue
            return .entry(.init(id: ObjectID(id), mode: mode))
        default:
            return .other
        }
    }

    /// Writes `side`'s blob (filters applied, as a checkout does) to `staged`, then renames it to
    /// `path` in the work tree: a kill leaves the old file or the new one.
    private func writeWhole(_ side: TreeChange.Side, path: String, workdir: String, staged: String, _ operation: String) throws {
        var id = side.id.raw
        var blob: OpaquePointer?
        try check(git_blob_lookup(&blob, pointer, &id), operation)
        defer { git_blob_free(blob) }
        let full = workdir + path
        try createFolder((full as NSString).deletingLastPathComponent, operation)
        if side.mode == GIT_FILEMODE_LINK.rawValue {
            let target = String(decoding: UnsafeRawBufferPointer(start: git_blob_rawcontent(blob), count: Int(git_blob_rawsize(blob))), as: UTF8.self)
            guard symlink(target, staged) == 0 else { throw osError("write \(path)", operation) }
        } else {
            var options = git_blob_filter_options()
            try check(git_blob_filter_options_init(&options, UInt32(GIT_BLOB_FILTER_OPTIONS_VERSION)), operation)
            var buffer = git_buf()
            defer { git_buf_dispose(&buffer) }
            try check(git_blob_filter(&buffer, blob, path, &options), operation)
            let descriptor = openNew(staged, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, side.mode == GIT_FILEMODE_BLOB_EXECUTABLE.rawValue ? 0o777 : 0o666)
            guard descriptor >= 0 else { throw osError("write \(path)", operation) }
            var written = 0
            while written < buffer.size {
                let count = write(descriptor, buffer.ptr.advanced(by: written), buffer.size - written)
                guard count > 0 else {
                    let failure = osError("write \(path)", operation)
                    close(descriptor)
                    throw failure
                }
                written += count
            }
            guard close(descriptor) == 0 else { throw osError("write \(path)", operation) }
        }
        // A folder where the file goes was a folder the move emptied.
        rmdir(full)
        guard rename(staged, full) == 0 else { throw osError("put \(path) in place", operation) }
    }

    private func createFolder(_ path: String, _ operation: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw GitError(code: .other(-1), operation: operation, message: "cannot create \(path): \(error.localizedDescription)")
        }
    }

    /// Removes the folders above `path` that the deletion left empty, up to the work tree.
    private func removeEmptyFolders(above path: String, workdir: String) {
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty, rmdir(workdir + folder) == 0 {
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    private func osError(_ what: String, _ operation: String) -> GitError {
        GitError(code: .other(-1), operation: operation, message: "cannot \(what): \(String(cString: strerror(errno)))")
    }
}

/// `open(2)`, which a `Repository` method cannot name (`Repository.open` shadows it).
private func openNew(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
