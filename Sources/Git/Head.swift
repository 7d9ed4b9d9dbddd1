import Foundation
internal import CLibgit2

/// Where HEAD points.
public enum HeadState: Equatable, Sendable {
    /// On a branch with at least one commit.
    case branch(name: String, commit: ObjectID)
    /// HEAD points directly at a commit.
    case detached(commit: ObjectID)
    /// On a branch that has no commit yet (a new repository).
    case unborn(branch: String)
}

extension Repository {
    /// The state of HEAD: a branch, a detached commit, or an unborn branch.
    public func head() throws -> HeadState {
        lock.lock(); defer { lock.unlock() }
        var reference: OpaquePointer?
        let result = git_repository_head(&reference, pointer)
        if result == GIT_EUNBORNBRANCH.rawValue || result == GIT_ENOTFOUND.rawValue {
            return .unborn(branch: try unbornBranchName())
        }
        try check(result, "read HEAD")
        defer { git_reference_free(reference) }
        guard let reference, let target = ObjectID(git_reference_target(reference)) else {
            throw GitError(code: .other(-1), operation: "read HEAD", message: "HEAD has no target")
        }
        if git_repository_head_detached(pointer) == 1 {
            return .detached(commit: target)
        }
        return .branch(name: String(cString: git_reference_shorthand(reference)), commit: target)
    }

    private func unbornBranchName() throws -> String {
        var reference: OpaquePointer?
        try check(git_reference_lookup(&reference, pointer, "HEAD"), "read HEAD")
        defer { git_reference_free(reference) }
        guard let target = git_reference_symbolic_target(reference) else { return "HEAD" }
        let name = String(cString: target)
        return name.hasPrefix("refs/heads/") ? String(name.dropFirst("refs/heads/".count)) : name
    }
}
