import Foundation
internal import CLibgit2

extension Repository {
    /// True when the work tree, the index and HEAD certainly agree; nil when that cannot be shown
    /// cheaply — then `status()` must decide. It never answers "dirty".
    ///
    /// libgit2 checks a work tree from one thread, while `git status` stats files from many. This
    /// does what git's fast path does: compare each index entry's recorded `stat` data with
    /// `lstat` on several threads, and read each tracked folder for names the index does not
    /// know. Anything unusual — a racily clean entry (modified in the second the index was
    /// written), a conflict, a skip-worktree or intent-to-add entry, a type or mode change, an
    /// unknown name that is not ignored — gives nil, never a guess. HEAD against the index is
    /// left to libgit2 (`status` of the index only), which is cheap.
    public func isCertainlyClean(threads: Int) throws -> Bool? {
        guard let root = workingDirectory else { return nil }
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), "read the index")
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), "read the index")
        if git_index_has_conflicts(index) != 0 { return nil }
        guard try status(includeUntracked: false, indexOnly: true).isEmpty else { return nil }

        var indexStat = stat()
        guard stat(gitDirectory + "/index", &indexStat) == 0 else { return nil }
        let indexTime = indexStat.st_mtim

        // Copy what the threads need first: libgit2 may sort the index lazily on first access.
        let count = git_index_entrycount(index)
        var entries: [git_index_entry] = []
        entries.reserveCapacity(count)
        for position in 0..<count {
            guard let entry = git_index_get_byindex(index, position)?.pointee else { return nil }
            if entry.flags_extended & UInt16(GIT_INDEX_ENTRY_EXTENDED_FLAGS.rawValue) != 0 { return nil }
            entries.append(entry)
        }

        let workers = max(1, threads)
        let unsure = ManagedFlag()
        let rootBytes = Array(root.utf8)
        entries.withUnsafeBufferPointer { all in
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = all.count * worker / workers
                let end = all.count * (worker + 1) / workers
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(PATH_MAX) + 1)
                defer { buffer.deallocate() }
                var info = stat()
                for position in start..<end {
                    if position % 256 == 0 && unsure.isSet { return }
                    let entry = all[position]
                    if entry.mode == 0o160000 { continue }   // submodules are not checked
                    guard let path = entry.path, Self.join(rootBytes, path, into: buffer),
                          lstat(buffer, &info) == 0,
                          Self.matches(entry, info, racyAfter: indexTime)
                    else {
                        unsure.set()
                        return
                    }
                }
            }
        }
        if unsure.isSet { return nil }
        return try hasNoUntrackedNames(root: root, entries: entries)
    }

    /// `root/path` into `buffer`; false when it does not fit.
    private static func join(_ root: [UInt8], _ path: UnsafePointer<CChar>, into buffer: UnsafeMutablePointer<CChar>) -> Bool {
        let limit = Int(PATH_MAX)
        var length = 0
        for byte in root {
            guard length < limit else { return false }
            buffer[length] = CChar(bitPattern: byte)
            length += 1
        }
        guard length < limit else { return false }
        buffer[length] = 0x2F
        length += 1
        var cursor = path
        while cursor.pointee != 0 {
            guard length < limit else { return false }
            buffer[length] = cursor.pointee
            length += 1
            cursor += 1
        }
        buffer[length] = 0
        return true
    }

    /// The index's record of the file still describes it, and the record is not racy.
    private static func matches(_ entry: git_index_entry, _ info: stat, racyAfter indexTime: timespec) -> Bool {
        let type = info.st_mode & S_IFMT
        switch entry.mode {
        case 0o100644: guard type == S_IFREG, info.st_mode & 0o100 == 0 else { return false }
        case 0o100755: guard type == S_IFREG, info.st_mode & 0o100 != 0 else { return false }
        case 0o120000: guard type == S_IFLNK else { return false }
        default: return false
        }
        guard entry.file_size == UInt32(truncatingIfNeeded: info.st_size),
              Int64(entry.mtime.seconds) == Int64(info.st_mtim.tv_sec),
              Int64(entry.mtime.nanoseconds) == Int64(info.st_mtim.tv_nsec),
              Int64(entry.ctime.seconds) == Int64(info.st_ctim.tv_sec),
              Int64(entry.ctime.nanoseconds) == Int64(info.st_ctim.tv_nsec),
              entry.ino == 0 || entry.ino == UInt32(truncatingIfNeeded: info.st_ino)
        else { return false }
        // Racily clean: written in the same instant as the index or later; git re-reads those.
        let entrySeconds = Int64(entry.mtime.seconds), indexSeconds = Int64(indexTime.tv_sec)
        if entrySeconds > indexSeconds { return false }
        if entrySeconds == indexSeconds && Int64(entry.mtime.nanoseconds) >= Int64(indexTime.tv_nsec) { return false }
        return true
    }

    /// Reads every tracked folder: true when each name is tracked, a tracked folder, or ignored.
    private func hasNoUntrackedNames(root: String, entries: [git_index_entry]) throws -> Bool? {
        var files = Set<String>(minimumCapacity: entries.count)
        var folders: Set<String> = [""]
        for entry in entries {
            guard let path = entry.path else { return nil }
            let text = String(cString: path)
            files.insert(text)
            var slash = text.lastIndex(of: "/")
            while let end = slash {
                let folder = String(text[..<end])
                if !folders.insert(folder).inserted { break }
                slash = folder.lastIndex(of: "/")
            }
        }
        for folder in folders {
            let absolute = folder.isEmpty ? root : root + "/" + folder
            guard let directory = opendir(absolute) else { return nil }
            defer { closedir(directory) }
            while let item = readdir(directory) {
                let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." || (folder.isEmpty && name == ".git") { continue }
                let relative = folder.isEmpty ? name : folder + "/" + name
                if files.contains(relative) || folders.contains(relative) { continue }
                var ignored: Int32 = 0
                let isFolder = item.pointee.d_type == UInt8(DT_DIR)
                guard git_ignore_path_is_ignored(&ignored, pointer, isFolder ? relative + "/" : relative) == 0, ignored == 1 else {
                    return nil
                }
            }
        }
        return true
    }
}

/// A flag several threads set and read.
private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
