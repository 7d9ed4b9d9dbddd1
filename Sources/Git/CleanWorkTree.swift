import Foundation
internal import CLibgit2

/// Confirms that the work tree matches the index from the index's stat data alone, the way
/// `git status` does, with cheaper system calls than libgit2's status: libgit2 stats every file by
/// its absolute path (the kernel walks every component each time), this stats each file relative
/// to its open folder. It only ever answers "clean" or "cannot tell"; anything it does not
/// recognise as clean (a changed stat, a racily clean entry, an unknown name, a submodule, an
/// index flag) is left to libgit2's full status.
struct CleanWorkTreeCheck {
    let repository: OpaquePointer
    let index: OpaquePointer
    let workdir: String

    /// The index file's modification time: an entry whose file changed in the same instant the
    /// index was written cannot be judged by its stat data ("racily clean", as git calls it).
    private let indexWritten: timespec
    private let emptyBlob: git_oid

    init?(repository: OpaquePointer, index: OpaquePointer) {
        guard let workdir = git_repository_workdir(repository).map({ String(cString: $0) }),
              let indexPath = git_index_path(index) else { return nil }
        var info = stat()
        var empty = git_oid()
        guard lstat(indexPath, &info) == 0,
              git_oid_fromstr(&empty, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") == 0 else { return nil }
        self.emptyBlob = empty
        self.repository = repository
        self.index = index
        self.workdir = workdir
        self.indexWritten = info.st_mtim
    }

    /// One open folder on the way down the sorted index.
    private struct Folder {
        var descriptor: Int32
        /// Length of its path in `prefix`, trailing `/` included (0 for the root).
        var prefixLength: Int
        /// Names in it the index accounts for: files and sub-folders holding tracked files.
        var tracked: Int
    }

    /// True when every tracked file's stat data matches its index entry and no folder holds a
    /// name the index does not know and the ignore rules do not cover.
    ///
    /// The stat calls dominate (about 2 µs each, mostly in the kernel), so the entries are split
    /// into contiguous parts checked on several threads, as `git status` does with
    /// `core.preloadIndex`; one more thread walks the folders for untracked names. The threads
    /// only read the index (sorted once first) and each opens its own folders.
    /// `parts` overrides the split (tests); by default one part per core, up to 8, and one part
    /// for small indexes.
    func workTreeIsClean(parts requested: Int? = nil) -> Bool {
        if git_index_has_conflicts(index) != 0 { return false }
        let count = git_index_entrycount(index)
        if count > 0 { _ = git_index_get_byindex(index, 0) } // sorts the entries once, before any thread reads them
        let parts = Swift.max(1, requested
            ?? (count < 8192 ? 1 : Swift.min(8, ProcessInfo.processInfo.activeProcessorCount)))
        var results = [Bool](repeating: false, count: parts + 1)
        results.withUnsafeMutableBufferPointer { slots in
            let slots = slots
            DispatchQueue.concurrentPerform(iterations: parts + 1) { part in
                if part == parts {
                    slots[part] = walk(0..<count, checkFiles: false, checkFolders: true)
                } else {
                    slots[part] = walk(count * part / parts..<count * (part + 1) / parts, checkFiles: true, checkFolders: false)
                }
            }
        }
        return results.allSatisfy { $0 }
    }

    /// Walks the sorted entries in `range`, opening the folders they are in: with `checkFiles`,
    /// each entry's file is stat'ed relative to its folder and compared with the entry; with
    /// `checkFolders` (only for the whole range), each folder's names are checked once all of
    /// its entries are seen.
    private func walk(_ range: Range<Int>, checkFiles: Bool, checkFolders: Bool) -> Bool {
        let root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return false }
        var folders = [Folder(descriptor: root, prefixLength: 0, tracked: 0)]
        var prefix: [UInt8] = []
        defer { for folder in folders { close(folder.descriptor) } }

        var info = stat()
        for position in range {
            guard let entryPointer = git_index_get_byindex(index, position) else { return false }
            let entry = entryPointer.pointee
            guard entryAllowsStatCheck(entry), let path = entry.path else { return false }
            let pathLength = strlen(path)
            let raw = UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self)
            var folderLength = 0
            for offset in stride(from: pathLength - 1, through: 0, by: -1) where raw[offset] == UInt8(ascii: "/") {
                folderLength = offset + 1
                break
            }

            // Leave the folders this entry is not in (each is finished: the index is sorted, so a
            // folder's entries are contiguous).
            while let top = folders.last, folders.count > 1,
                  !(top.prefixLength <= folderLength && memcmp(raw, prefix, top.prefixLength) == 0) {
                guard leave(&folders, &prefix, check: checkFolders) else { return false }
            }
            // Enter the folders it is in.
            var start = folders[folders.count - 1].prefixLength
            while start < folderLength {
                var end = start
                while raw[end] != UInt8(ascii: "/") { end += 1 }
                let name = Array(UnsafeBufferPointer(start: raw + start, count: end - start))
                guard Self.isOrdinaryName(name) else { return false }
                let parent = folders[folders.count - 1].descriptor
                let descriptor = (name + [0]).withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        openat(parent, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    }
                }
                guard descriptor >= 0 else { return false }
                folders[folders.count - 1].tracked += 1
                prefix.append(contentsOf: name)
                prefix.append(UInt8(ascii: "/"))
                folders.append(Folder(descriptor: descriptor, prefixLength: end + 1, tracked: 0))
                start = end + 1
            }
            // The file itself, by its name in its open folder.
            let name = UnsafeBufferPointer(start: raw + folderLength, count: pathLength - folderLength)
            guard Self.isOrdinaryName(name) else { return false }
            folders[folders.count - 1].tracked += 1
            if checkFiles {
                guard fstatat(folders[folders.count - 1].descriptor, path + folderLength, &info, AT_SYMLINK_NOFOLLOW) == 0,
                      statMatches(entry, info) else { return false }
            }
        }
        while !folders.isEmpty {
            guard leave(&folders, &prefix, check: checkFolders) else { return false }
        }
        return true
    }

    /// Closes the innermost open folder, checking its names first when asked.
    private func leave(_ folders: inout [Folder], _ prefix: inout [UInt8], check: Bool) -> Bool {
        let top = folders.removeLast()
        defer { close(top.descriptor) }
        let finished = !check || finish(top, path: prefix[0..<top.prefixLength])
        prefix.removeLast(prefix.count - (folders.last?.prefixLength ?? 0))
        return finished
    }

    /// Entries git itself cannot judge by stat data alone are left to libgit2: conflicts,
    /// assume-valid, intent-to-add, skip-worktree, submodules, anything but files and symlinks.
    private func entryAllowsStatCheck(_ entry: git_index_entry) -> Bool {
        let stageMask: UInt16 = 0x3000       // GIT_INDEX_ENTRY_STAGEMASK
        let assumeValid: UInt16 = 0x8000     // GIT_INDEX_ENTRY_VALID
        let extended: UInt16 = (1 << 13) | (1 << 14) // intent-to-add, skip-worktree
        if entry.flags & (stageMask | assumeValid) != 0 || entry.flags_extended & extended != 0 { return false }
        switch entry.mode {
        case 0o100644, 0o100755, 0o120000: return true
        default: return false
        }
    }

    /// git's own test (`ie_match_stat`): mode, size, times, inode and owner as the index recorded
    /// them; a file changed in the instant the index was written is "racily clean" and left to a
    /// content check; a size of 0 on a non-empty blob is git's mark for such an entry.
    private func statMatches(_ entry: git_index_entry, _ info: stat) -> Bool {
        let type = info.st_mode & S_IFMT
        let mode: UInt32
        if type == S_IFREG {
            mode = info.st_mode & 0o100 != 0 ? 0o100755 : 0o100644
        } else if type == S_IFLNK {
            mode = 0o120000
        } else {
            return false
        }
        guard entry.mode == mode,
              entry.file_size == UInt32(truncatingIfNeeded: info.st_size),
              entry.mtime.seconds == Int32(truncatingIfNeeded: info.st_mtim.tv_sec),
              entry.mtime.nanoseconds == UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec),
              entry.ctime.seconds == Int32(truncatingIfNeeded: info.st_ctim.tv_sec),
              entry.ctime.nanoseconds == UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec),
              entry.ino == UInt32(truncatingIfNeeded: info.st_ino),
              entry.uid == info.st_uid, entry.gid == info.st_gid else { return false }
        if info.st_mtim.tv_sec > indexWritten.tv_sec
            || (info.st_mtim.tv_sec == indexWritten.tv_sec && info.st_mtim.tv_nsec >= indexWritten.tv_nsec) {
            return false
        }
        if entry.file_size == 0 {
            var id = entry.id
            var empty = emptyBlob
            guard git_oid_equal(&id, &empty) != 0 else { return false }
        }
        return true
    }

    /// A folder is finished: its names must be the tracked ones, plus (at the root) `.git`, plus
    /// names the ignore rules cover. Counting is enough when nothing else is there; otherwise each
    /// name is looked up in the index.
    private func finish(_ folder: Folder, path: ArraySlice<UInt8>) -> Bool {
        let copy = dup(folder.descriptor)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return false
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var names: [[UInt8]] = []
        var total = 0
        while let item = readdir(directory) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes -> [UInt8] in
                Array(bytes.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            if path.isEmpty && name == Array(".git".utf8) { continue }
            total += 1
            names.append(name)
        }
        if total == folder.tracked { return true }
        guard total > folder.tracked else { return false }
        // Something untracked is here: each unknown name must be ignored.
        for name in names {
            let relative = String(decoding: path + name, as: UTF8.self)
            if git_index_get_bypath(index, relative, 0) != nil { continue }
            var position = 0
            if git_index_find_prefix(&position, index, relative + "/") == 0 { continue }
            var ignored: Int32 = 0
            guard git_ignore_path_is_ignored(&ignored, repository, relative) == 0, ignored == 1 else {
                git_error_clear()
                return false
            }
        }
        git_error_clear()
        return true
    }

    /// Not empty, `.`, `..` or `.git`: anything else in an index path is left to libgit2.
    private static func isOrdinaryName<C: Collection>(_ name: C) -> Bool where C.Element == UInt8 {
        if name.isEmpty { return false }
        if name.elementsEqual([UInt8(ascii: ".")]) || name.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) { return false }
        if name.elementsEqual(Array(".git".utf8)) { return false }
        return true
    }
}
