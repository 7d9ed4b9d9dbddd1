import Foundation
internal import Git

/// `.git/index.lock` at the start of a run (a resume after a kill, any run). A Shiplane run
/// killed while libgit2 wrote the index leaves it, and every later index write stops on it: the
/// run's own word beside it (`IndexLockOwner`) names a process that is gone, so the lock is
/// stale and removed. A lock no Shiplane run left word of belongs to another program — a running
/// `git`, or one that crashed — and is never removed here: the run stops before any change.
package enum StaleIndexLock {
    /// Removes a stale `index.lock` of the work tree `root`; returns the line to show when it did.
    /// - Throws: `IndexLocked` when another process's lock is there (nothing changed).
    package static func clear(root: String) throws -> String? {
        // Found without libgit2: a run that changes nothing then never initialises it (see
        // `RunStore.gitDirectory(ofWorkTree:)`).
        guard let gitDirectory = try? RunStore.gitDirectory(ofWorkTree: root) else { return nil }
        switch IndexLockOwner.inspect(gitDirectory: gitDirectory) {
        case .none:
            return nil
        case .deadShiplane(let pid):
            guard IndexLockOwner.removeStale(gitDirectory: gitDirectory) else { return nil }
            return "removed \(IndexLockOwner.lockPath(gitDirectory: gitDirectory)), which a Shiplane run (pid \(pid)) killed while it wrote the index left"
        case .liveShiplane(let pid):
            throw IndexLocked(path: IndexLockOwner.lockPath(gitDirectory: gitDirectory), shiplanePID: pid)
        case .foreign:
            throw IndexLocked(path: IndexLockOwner.lockPath(gitDirectory: gitDirectory), shiplanePID: nil)
        }
    }
}

/// Another process holds the repository's index lock (exit 6): nothing was changed.
package struct IndexLocked: ReportableError {
    /// The lock file.
    package var path: String
    /// The Shiplane process writing the index, when it is one.
    package var shiplanePID: Int32?

    package var message: String {
        if let shiplanePID { return "\(path) is held: a Shiplane process (pid \(shiplanePID)) is writing this repository's index" }
        return "\(path) exists: another program is using this repository's index (a running git command, an editor's git integration), or one that crashed left it"
    }
    package var info: [(key: String, value: String)] { [("lock", path)] }
    package var suggestion: String? {
        "wait for the other program to finish, then run again; if no git program is running (a crash left the lock), remove \(path) and run again — nothing was changed"
    }
    package var category: ErrorCategory { .locked }
}
