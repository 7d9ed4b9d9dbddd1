import Foundation
internal import CLibgit2

/// Compares the work tree with the index from stat data alone, the way `git status` does,
/// faster than libgit2's status on large trees. It answers "matches", "only these paths may
/// differ" (changed stat data, missing files, names that are not ignored; libgit2's status on
/// just those paths settles them), or "cannot tell" (a submodule, an index flag, conflicts, an
/// unreadable folder, too many paths), which leaves everything to libgit2's full status.
///
/// Where the time goes on 100,000 files: loading the index (libgit2, one thread) and one `lstat`
/// per file (about 2 µs each, nearly all in the kernel). So the two overlap: while one thread
/// loads the index, the others walk the work tree (each folder read once, each name stat'ed
/// relative to its open folder, ignored folders skipped by libgit2's ignore rules); the index
/// thread joins the walk when it is done. Then one pass over the sorted index compares each
/// entry with what the walk saw, and every name the index does not hold must be ignored.
enum CleanWorkTreeCheck {
    /// What the check found: whether the index's cached tree is HEAD's tree (nothing staged),
    /// and how the work tree compares with the index.
    struct Result {
        var indexIsHead: Bool
        var workTree: WorkTree
        var workTreeMatchesIndex: Bool { workTree == .matches }
    }

    enum WorkTree: Equatable {
        /// Every file's stat data matches and every other name is ignored.
        case matches
        /// Only these paths may differ: entries whose stat data differ or that are missing
        /// (`tracked`), and names the index does not hold that are not ignored (`untracked`;
        /// folders end in `/`). libgit2's status restricted to them gives the whole answer.
        case mayDiffer(tracked: [String], untracked: [String])
        /// Cannot tell: libgit2's full status decides.
        case unknown
    }

    /// More paths than this and the restricted status is no cheaper than the full one.
    static let maximumDifferingPaths = 2048

    /// `workers` overrides the number of threads (tests); by default one per core, at most 8.
    /// With `stopUnlessIndexIsHead`, the walk stops as soon as the index turns out to differ from
    /// HEAD (the full status runs anyway then).
    static func run(_ repository: Repository, workers requested: Int? = nil, stopUnlessIndexIsHead: Bool = true) -> Result {
        guard let workdir = git_repository_workdir(repository.pointer).map({ String(cString: $0) }),
              let gitdir = git_repository_path(repository.pointer).map({ String(cString: $0) }) else {
            return Result(indexIsHead: repository.indexCachedTreeIsHead(), workTree: .unknown)
        }
        let workers = Swift.max(1, requested ?? Swift.min(8, ProcessInfo.processInfo.activeProcessorCount))
        let queue = FolderQueue()
        let head = HeadFlag()
        var listings = [[Listing]](repeating: [], count: workers)
        listings.withUnsafeMutableBufferPointer { slots in
            // Each worker writes only its own slot, and the buffer outlives concurrentPerform.
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var handle: OpaquePointer? = nil
                if worker == 0 {
                    // This thread owns `repository` meanwhile: the index loads here.
                    head.value = repository.indexCachedTreeIsHead()
                    if stopUnlessIndexIsHead && !head.value { return queue.fail() }
                    handle = repository.pointer
                } else {
                    // The same repository (its git folder: config, info/exclude) and work tree,
                    // in a handle of this thread's own.
                    // (set_workdir only when it differs: libgit2 1.5 leaks the path it compared
                    // when it is the same.)
                    guard git_repository_open_ext(&handle, gitdir, UInt32(GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue), nil) == 0,
                          git_repository_workdir(handle).map({ String(cString: $0) }) == workdir
                            || git_repository_set_workdir(handle, workdir, 0) == 0 else {
                        git_error_clear()
                        git_repository_free(handle)
                        queue.fail()
                        return
                    }
                }
                defer { if worker != 0 { git_repository_free(handle) } }
                guard let handle else { return queue.fail() }
                let root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard root >= 0 else { return queue.fail() }
                defer { close(root) }
                while let folder = queue.next() {
                    guard let (listing, subfolders) = list(folder, root: root, repository: handle) else { return queue.fail() }
                    slots[worker].append(listing)
                    queue.finished(adding: subfolders)
                }
            }
        }
        let indexIsHead = head.value
        guard !queue.hasFailed else { return Result(indexIsHead: indexIsHead, workTree: .unknown) }
        var index: OpaquePointer?
        guard git_repository_index(&index, repository.pointer) == 0, let index else {
            git_error_clear()
            return Result(indexIsHead: indexIsHead, workTree: .unknown)
        }
        defer { git_index_free(index) }
        var byPath: [[UInt8]: Listing] = [:]
        byPath.reserveCapacity(listings.reduce(0) { $0 + $1.count })
        for part in listings { for listing in part { byPath[listing.path] = listing } }
        let workTree = Comparison(repository: repository.pointer, index: index, listings: byPath)?.compare() ?? .unknown
        return Result(indexIsHead: indexIsHead, workTree: workTree)
    }

    /// Set by the thread that loads the index, read after all threads are done.
    final class HeadFlag: @unchecked Sendable {
        // @unchecked: written by one thread, read only after that thread was joined.
        var value = false
    }

    // MARK: - Walking the work tree

    /// One name in a folder as the walk saw it.
    struct Item {
        enum Kind: UInt8 { case file, folder, ignoredFolder }
        var offset: Int32
        var length: Int32
        var kind: Kind
        var mode: UInt32 = 0
        var size: Int64 = 0
        var mtime = timespec()
        var ctime = timespec()
        var inode: UInt64 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// A folder's names (sorted bytewise, in one byte buffer) and what `lstat` said of its files.
    final class Listing {
        let path: [UInt8]
        var bytes: [UInt8] = []
        var items: [Item] = []
        var seen: [Bool] = []

        init(path: [UInt8]) { self.path = path }

        /// The position of `name` (not NUL-terminated), by binary search.
        func find(_ name: UnsafePointer<UInt8>, _ length: Int) -> Int? {
            bytes.withUnsafeBufferPointer { buffer -> Int? in
                guard let base = buffer.baseAddress else { return nil }
                var low = 0, high = items.count
                while low < high {
                    let middle = (low + high) / 2
                    let item = items[middle]
                    let order = compare(base + Int(item.offset), Int(item.length), name, length)
                    if order == 0 { return middle }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return nil
            }
        }

        func name(_ position: Int) -> [UInt8] {
            let item = items[position]
            return Array(bytes[Int(item.offset)..<Int(item.offset + item.length)])
        }
    }

    static func compare(_ a: UnsafePointer<UInt8>, _ aLength: Int, _ b: UnsafePointer<UInt8>, _ bLength: Int) -> Int {
        let order = memcmp(a, b, Swift.min(aLength, bLength))
        if order != 0 { return Int(order) }
        return aLength - bLength
    }

    /// Reads one folder (`path` is relative to the work tree and ends in `/`, or is empty for the
    /// root): stats its files and symlinks, asks the ignore rules about its folders, and returns
    /// the folders to walk next. Nil when the folder cannot be read.
    static func list(_ path: [UInt8], root: Int32, repository: OpaquePointer) -> (Listing, [[UInt8]])? {
        let descriptor: Int32
        if path.isEmpty {
            descriptor = dup(root)
        } else {
            descriptor = (Array(path.dropLast()) + [0]).withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    openat(root, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
            }
        }
        guard descriptor >= 0 else { return nil }
        guard let directory = fdopendir(descriptor) else {
            close(descriptor)
            return nil
        }
        defer { closedir(directory) }
        let folder = dirfd(directory)
        let listing = Listing(path: path)
        var subfolders: [[UInt8]] = []
        var info = stat()
        while let entry = readdir(directory) {
            let (length, type) = withUnsafeBytes(of: entry.pointee.d_name) { raw -> (Int, UInt8) in
                (raw.firstIndex(of: 0) ?? raw.count, entry.pointee.d_type)
            }
            let offset = listing.bytes.count
            withUnsafeBytes(of: entry.pointee.d_name) { raw in listing.bytes.append(contentsOf: raw.prefix(length)) }
            let name = listing.bytes[offset...]
            if name.elementsEqual([UInt8(ascii: ".")]) || name.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
                || (path.isEmpty && name.elementsEqual(Array(".git".utf8))) {
                listing.bytes.removeLast(length)
                continue
            }
            var isFolder = type == DT_DIR
            var item = Item(offset: Int32(offset), length: Int32(length), kind: .file)
            if type != DT_DIR {
                let namePointer = UnsafeRawPointer(entry)
                    .advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19)
                    .assumingMemoryBound(to: CChar.self)
                guard fstatat(folder, namePointer, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
                isFolder = info.st_mode & S_IFMT == S_IFDIR
                item.mode = info.st_mode
                item.size = Int64(info.st_size)
                item.mtime = info.modificationTime
                item.ctime = info.statusChangeTime
                item.inode = UInt64(info.st_ino)
                item.uid = info.st_uid
                item.gid = info.st_gid
            }
            if isFolder {
                let relative = String(decoding: path + name, as: UTF8.self)
                var ignored: Int32 = 0
                guard git_ignore_path_is_ignored(&ignored, repository, relative) == 0 else {
                    git_error_clear()
                    return nil
                }
                item.kind = ignored == 1 ? .ignoredFolder : .folder
                if ignored != 1 { subfolders.append(path + name + [UInt8(ascii: "/")]) }
            }
            listing.items.append(item)
        }
        listing.bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            listing.items.sort { a, b in
                compare(base + Int(a.offset), Int(a.length), base + Int(b.offset), Int(b.length)) < 0
            }
        }
        listing.seen = [Bool](repeating: false, count: listing.items.count)
        return (listing, subfolders)
    }

    /// The folders left to read, shared by the walking threads.
    final class FolderQueue: @unchecked Sendable {
        // @unchecked: every field is read and written with `condition` locked.
        private let condition = NSCondition()
        private var pending: [[UInt8]] = [[]]
        private var busy = 0
        private var failed = false

        var hasFailed: Bool {
            condition.lock()
            defer { condition.unlock() }
            return failed
        }

        /// The next folder, waiting while others may still add some; nil when the walk is over.
        func next() -> [UInt8]? {
            condition.lock()
            defer { condition.unlock() }
            while pending.isEmpty && busy > 0 && !failed { condition.wait() }
            guard !failed, let folder = pending.popLast() else {
                condition.broadcast()
                return nil
            }
            busy += 1
            return folder
        }

        func finished(adding folders: [[UInt8]]) {
            condition.lock()
            pending.append(contentsOf: folders)
            busy -= 1
            condition.broadcast()
            condition.unlock()
        }

        func fail() {
            condition.lock()
            failed = true
            condition.broadcast()
            condition.unlock()
        }
    }

    // MARK: - Comparing with the index

    struct Comparison {
        let repository: OpaquePointer
        let index: OpaquePointer
        let listings: [[UInt8]: Listing]
        /// The index file's modification time: an entry whose file changed in the same instant
        /// the index was written cannot be judged by its stat data ("racily clean", as git says).
        let indexWritten: timespec
        let emptyBlob: git_oid

        init?(repository: OpaquePointer, index: OpaquePointer, listings: [[UInt8]: Listing]) {
            guard let indexPath = git_index_path(index) else { return nil }
            var info = stat()
            var empty = git_oid()
            guard lstat(indexPath, &info) == 0,
                  git_oid_fromstr(&empty, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") == 0 else { return nil }
            self.repository = repository
            self.index = index
            self.listings = listings
            self.indexWritten = info.modificationTime
            self.emptyBlob = empty
        }

        /// Each entry's file against what the walk saw, then every other name against the ignore
        /// rules.
        func compare() -> WorkTree {
            if git_index_has_conflicts(index) != 0 { return .unknown }
            guard let root = listings[[]] else { return .unknown }
            var tracked: [String] = []
            var shadowed: [String] = []
            var folder: Listing? = root
            var folderPath: [UInt8] = []
            for position in 0..<git_index_entrycount(index) {
                guard let entryPointer = git_index_get_byindex(index, position) else { return .unknown }
                let entry = entryPointer.pointee
                guard entryAllowsStatCheck(entry), let path = entry.path else { return .unknown }
                let length = strlen(path)
                let raw = UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self)
                var folderLength = 0
                for offset in stride(from: length - 1, through: 0, by: -1) where raw[offset] == UInt8(ascii: "/") {
                    folderLength = offset + 1
                    break
                }
                if folderLength != folderPath.count || memcmp(raw, folderPath, folderLength) != 0 {
                    folderPath = Array(UnsafeBufferPointer(start: raw, count: folderLength))
                    folder = enter(folderPath)
                }
                if let folder, let found = folder.find(raw + folderLength, length - folderLength) {
                    folder.seen[found] = true
                    if folder.items[found].kind == .file && statMatches(entry, folder.items[found]) { continue }
                    // git does not list what is inside a folder whose name the index holds as a file.
                    if folder.items[found].kind == .folder { shadowed.append(String(cString: path) + "/") }
                }
                // Changed, missing, or not a file any more. Paths go to libgit2 as text: one that
                // is not UTF-8 could not be passed back byte for byte.
                guard let text = String(validatingCString: path) else { return .unknown }
                tracked.append(text)
                if tracked.count > maximumDifferingPaths { return .unknown }
            }
            var untracked: [String] = []
            for (path, listing) in listings {
                let folderName = String(decoding: path, as: UTF8.self)
                if shadowed.contains(where: { folderName.hasPrefix($0) }) { continue }
                for position in listing.items.indices where !listing.seen[position] {
                    let kind = listing.items[position].kind
                    if kind == .ignoredFolder { continue }
                    guard let relative = String(bytes: path + listing.name(position), encoding: .utf8) else { return .unknown }
                    var ignored: Int32 = 0
                    guard git_ignore_path_is_ignored(&ignored, repository, relative) == 0 else {
                        git_error_clear()
                        return .unknown
                    }
                    if ignored == 1 { continue }
                    untracked.append(kind == .folder ? relative + "/" : relative)
                    if tracked.count + untracked.count > maximumDifferingPaths { return .unknown }
                }
            }
            // Only the outermost untracked folder is listed, as git does.
            let folders = untracked.filter { $0.hasSuffix("/") }
            untracked.removeAll { name in folders.contains { name != $0 && name.hasPrefix($0) } }
            return tracked.isEmpty && untracked.isEmpty ? .matches : .mayDiffer(tracked: tracked, untracked: untracked)
        }

        /// The listing of `path` (ending in `/`), marking each folder on the way as tracked in
        /// its parent; nil when the walk did not read it (missing, ignored, not a folder).
        private func enter(_ path: [UInt8]) -> Listing? {
            var parent = listings[[]]
            var start = 0
            var end = 0
            while end < path.count {
                while path[end] != UInt8(ascii: "/") { end += 1 }
                let found = path.withUnsafeBufferPointer { buffer in
                    parent?.find(buffer.baseAddress! + start, end - start)
                }
                guard let current = parent, let found, current.items[found].kind == .folder else { return nil }
                current.seen[found] = true
                end += 1
                start = end
                parent = listings[Array(path[0..<end])]
            }
            return parent
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

        /// git's own test (`ie_match_stat`): mode, size, times, inode and owner as the index
        /// recorded them; a file changed in the instant the index was written is "racily clean"
        /// and left to a content check; a size of 0 on a non-empty blob is git's mark for such an
        /// entry.
        private func statMatches(_ entry: git_index_entry, _ item: Item) -> Bool {
            let type = item.mode & S_IFMT
            let mode: UInt32
            if type == S_IFREG {
                mode = item.mode & 0o100 != 0 ? 0o100755 : 0o100644
            } else if type == S_IFLNK {
                mode = 0o120000
            } else {
                return false
            }
            guard entry.mode == mode,
                  entry.file_size == UInt32(truncatingIfNeeded: item.size),
                  entry.mtime.seconds == Int32(truncatingIfNeeded: item.mtime.tv_sec),
                  entry.mtime.nanoseconds == UInt32(truncatingIfNeeded: item.mtime.tv_nsec),
                  entry.ctime.seconds == Int32(truncatingIfNeeded: item.ctime.tv_sec),
                  entry.ctime.nanoseconds == UInt32(truncatingIfNeeded: item.ctime.tv_nsec),
                  entry.ino == UInt32(truncatingIfNeeded: item.inode),
                  entry.uid == item.uid, entry.gid == item.gid else { return false }
            if item.mtime.tv_sec > indexWritten.tv_sec
                || (item.mtime.tv_sec == indexWritten.tv_sec && item.mtime.tv_nsec >= indexWritten.tv_nsec) {
                return false
            }
            if entry.file_size == 0 {
                var id = entry.id
                var empty = emptyBlob
                guard git_oid_equal(&id, &empty) != 0 else { return false }
            }
            return true
        }
    }
}
