internal import CLibgit2
import Foundation

/// One path that differs between HEAD, the index and the work tree.
public struct StatusEntry: Equatable, Sendable {
    /// How the path differs; a path can be both staged and unstaged.
    public struct Change: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let staged = Change(rawValue: 1 << 0)
        public static let unstaged = Change(rawValue: 1 << 1)
        public static let untracked = Change(rawValue: 1 << 2)
        public static let conflicted = Change(rawValue: 1 << 3)
    }

    /// The path relative to the work tree root (untracked folders end in `/`).
    public var path: String
    public var change: Change

    public init(path: String, change: Change) {
        self.path = path
        self.change = change
    }

    /// The two-letter code `git status --short` would show for this entry.
    public var shortCode: String {
        if change.contains(.conflicted) { return "UU" }
        if change.contains(.untracked) { return "??" }
        return (change.contains(.staged) ? "M" : " ") + (change.contains(.unstaged) ? "M" : " ")
    }
}

extension Repository {
    /// Every path that is staged, unstaged, untracked or conflicted, like `git status --porcelain`.
    ///
    /// Untracked folders are reported once, as `folder/`, the way git does by default; ignored
    /// files are left out.
    public func status(includeUntracked: Bool = true) throws -> [StatusEntry] {
        lock.lock(); defer { lock.unlock() }
        let quick = CleanWorkTreeCheck.run(self)
        guard quick.indexIsHead else { return try libgit2Status(includeUntracked: includeUntracked, indexIsHead: false) }
        switch quick.workTree {
        case .matches:
            return []
        case .unknown:
            return try libgit2Status(includeUntracked: includeUntracked, indexIsHead: true)
        case .mayDiffer(let tracked, let untracked):
            // libgit2's status on just these paths, taken literally. It lists untracked files in
            // such a folder only when recursing, so folders are folded back into `folder/`, the
            // way git shows them (a folder holding only ignored files shows nothing).
            // Untracked files libgit2 finds elsewhere under these paths (inside a folder whose name
            // the index holds as a file) are not listed by git either.
            let folders = untracked.filter { $0.hasSuffix("/") }
            let files = Set(untracked.filter { !$0.hasSuffix("/") })
            let paths = tracked + untracked.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            var entries: [StatusEntry] = []
            var shown = Set<String>()
            for entry in try libgit2Status(includeUntracked: includeUntracked, indexIsHead: true, only: paths) {
                guard entry.change == .untracked else {
                    entries.append(entry)
                    continue
                }
                if let folder = folders.first(where: { entry.path.hasPrefix($0) }) {
                    if shown.insert(folder).inserted { entries.append(StatusEntry(path: folder, change: .untracked)) }
                } else if files.contains(entry.path) {
                    entries.append(entry)
                }
            }
            return entries
        }
    }

    /// libgit2's status: HEAD against the index only when the index may differ from HEAD; with
    /// `only`, just those paths (literal, untracked folders recursed into).
    private func libgit2Status(includeUntracked: Bool, indexIsHead: Bool, only: [String]? = nil) throws -> [StatusEntry] {
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), "prepare status")
        // HEAD against the index is the slow half on a large tree (every tree object read);
        // when the index's cached tree already names HEAD's tree, there is nothing staged.
        options.show = indexIsHead ? GIT_STATUS_SHOW_WORKDIR_ONLY : GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        var flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        if includeUntracked { flags |= GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue }
        if only != nil {
            flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
        }
        options.flags = flags
        let paths = (only ?? []).map { strdup($0) }
        defer { paths.forEach { free($0) } }
        var list: OpaquePointer?
        try paths.withUnsafeBufferPointer { buffer in
            options.pathspec = git_strarray(strings: UnsafeMutablePointer(mutating: buffer.baseAddress), count: buffer.count)
            try check(git_status_list_new(&list, pointer, &options), "read status")
        }
        defer { git_status_list_free(list) }

        let staged = GIT_STATUS_INDEX_NEW.rawValue | GIT_STATUS_INDEX_MODIFIED.rawValue
            | GIT_STATUS_INDEX_DELETED.rawValue | GIT_STATUS_INDEX_RENAMED.rawValue
            | GIT_STATUS_INDEX_TYPECHANGE.rawValue
        let unstaged = GIT_STATUS_WT_MODIFIED.rawValue | GIT_STATUS_WT_DELETED.rawValue
            | GIT_STATUS_WT_RENAMED.rawValue | GIT_STATUS_WT_TYPECHANGE.rawValue
            | GIT_STATUS_WT_UNREADABLE.rawValue

        let count = git_status_list_entrycount(list)
        var entries: [StatusEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            guard let entry = git_status_byindex(list, index)?.pointee else { continue }
            let bits = entry.status.rawValue
            var change: StatusEntry.Change = []
            if bits & staged != 0 { change.insert(.staged) }
            if bits & unstaged != 0 { change.insert(.unstaged) }
            if bits & GIT_STATUS_WT_NEW.rawValue != 0 { change.insert(.untracked) }
            if bits & GIT_STATUS_CONFLICTED.rawValue != 0 { change.insert(.conflicted) }
            if change.isEmpty { continue }
            let delta = entry.index_to_workdir ?? entry.head_to_index
            guard let delta, let cPath = delta.pointee.new_file.path ?? delta.pointee.old_file.path else { continue }
            entries.append(StatusEntry(path: String(cString: cPath), change: change))
        }
        return entries
    }

    /// Whether the index holds exactly HEAD's tree, known without comparing them entry by entry:
    /// the index's cached tree (its TREE extension, which git and libgit2 keep and invalidate
    /// along every path they change) names the same tree as HEAD. This is how `git status` and
    /// `git commit` avoid reading every tree too. False whenever it cannot tell: HEAD unborn, the
    /// cache invalidated by a staged change or missing, conflicts.
    ///
    /// `git_index_write_tree_to` answers from the cache when it is valid. Aimed at a scratch
    /// repository whose object database has no backends, it can write nothing anywhere: with the
    /// cache invalid it fails (the blob it would reference is not there), and the index is left as
    /// it was.
    func indexCachedTreeIsHead() -> Bool {
        var headTree: OpaquePointer?
        guard git_revparse_single(&headTree, pointer, "HEAD^{tree}") == 0, let headTree else {
            git_error_clear() // an unborn HEAD: nothing to report, the full status runs
            return false
        }
        defer { git_object_free(headTree) }
        var index: OpaquePointer?
        guard git_repository_index(&index, pointer) == 0, let index else { return false }
        defer { git_index_free(index) }
        if git_index_has_conflicts(index) != 0 { return false }
        var scratch: OpaquePointer?
        guard git_repository_new(&scratch) == 0, let scratch else { return false }
        defer { git_repository_free(scratch) }
        var odb: OpaquePointer?
        guard git_odb_new(&odb) == 0, let odb else { return false }
        defer { git_odb_free(odb) }
        guard git_repository_set_odb(scratch, odb) == 0 else { return false }
        var cached = git_oid()
        guard git_index_write_tree_to(&cached, index, scratch) == 0 else {
            git_error_clear()
            return false
        }
        guard let headID = git_object_id(headTree) else { return false }
        return git_oid_equal(&cached, headID) != 0
    }

    /// Whether the work tree matches the index, from stat data (see `CleanWorkTreeCheck`); false
    /// means only "cannot tell".
    func workTreeMatchesIndexByStat(parts: Int? = nil) -> Bool {
        CleanWorkTreeCheck.run(self, workers: parts, stopUnlessIndexIsHead: false).workTreeMatchesIndex
    }
}

extension Repository {
    /// The files of an untracked folder (`folder/` as `status()` reports it), relative to the
    /// work tree, ignored ones left out, sorted: what `git add folder` would stage.
    public func untrackedFiles(in folder: String) throws -> [String] {
        lock.lock(); defer { lock.unlock() }
        guard let workingDirectory else { return [] }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        let root = URL(fileURLWithPath: workingDirectory).appendingPathComponent(base).path
        var files: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = base + "/" + relative
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder) else { continue }
            var ignored: Int32 = 0
            try check(git_ignore_path_is_ignored(&ignored, pointer, path + (isFolder.boolValue ? "/" : "")), "check whether \(path) is ignored")
            if ignored == 1 {
                if isFolder.boolValue { enumerator?.skipDescendants() }
                continue
            }
            if !isFolder.boolValue { files.append(path) }
        }
        return files.sorted()
    }
}
