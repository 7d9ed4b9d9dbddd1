import Foundation
internal import CLibgit2

extension Repository {
    /// The commit a revision names (`HEAD`, `main~2`, `v1.2.0`, a hex prefix), tags peeled.
    /// - Throws: `GitError` `.notFound` for a revision that names nothing (the message quotes it),
    ///   `.ambiguous` for a short id that matches several objects, `.invalid` for a revision that
    ///   names a tree or blob or is malformed.
    public func resolveCommit(_ revision: String) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        let operation = "resolve revision '\(revision)'"
        var object: OpaquePointer?
        let result = git_revparse_single(&object, pointer, revision)
        if result == GIT_ENOTFOUND.rawValue {
            throw GitError(code: .notFound, operation: operation, message: "unknown revision '\(revision)'")
        }
        try check(result, operation)
        defer { git_object_free(object) }
        var commit: OpaquePointer?
        let peeled = git_object_peel(&commit, object, GIT_OBJECT_COMMIT)
        if peeled == GIT_EINVALIDSPEC.rawValue || peeled == GIT_ENOTFOUND.rawValue || peeled == GIT_EPEEL.rawValue {
            throw GitError(code: .invalid, operation: operation, message: "'\(revision)' does not name a commit")
        }
        try check(peeled, operation)
        defer { git_object_free(commit) }
        guard let id = ObjectID(git_object_id(commit)) else {
            throw GitError(code: .other(-1), operation: operation, message: "no object id")
        }
        return id
    }
}
