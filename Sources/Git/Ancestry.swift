import Foundation
internal import CLibgit2

extension Repository {
    /// True when `ancestor` is `commit` itself or reachable from it through parents.
    /// - Throws: `GitError` when either commit is not in the repository.
    public func isAncestor(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        if ancestor == commit { return true }
        var descendant = commit.raw
        var older = ancestor.raw
        let result = git_graph_descendant_of(pointer, &descendant, &older)
        try check(result < 0 ? result : 0, "check whether \(commit.short) descends from \(ancestor.short)")
        return result == 1
    }
}
