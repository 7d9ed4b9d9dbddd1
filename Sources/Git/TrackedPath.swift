internal import CLibgit2
import Foundation

extension Repository {
    /// Whether the index holds `relativePath` (a path below the work tree root, `/`-separated):
    /// a file git tracks, whether or not it is in the work tree now.
    /// - Throws: `GitError` when the index cannot be read.
    public func isTracked(_ relativePath: String) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), "read the index")
        defer { git_index_free(index) }
        return git_index_get_bypath(index, relativePath, 0) != nil
    }
}
