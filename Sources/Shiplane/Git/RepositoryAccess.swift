import Foundation
internal import Git

/// Opens repositories for lanes and zero-config commands, with errors that say what to do.
enum RepositoryAccess {
    /// Opens the work-tree repository that encloses `path`.
    /// - Throws: `RepositoryProblem` for no repository, a bare one, or one owned by another user.
    static func open(at path: String) throws -> Repository {
        let repository: Repository
        do {
            repository = try Repository.discover(from: path)
        } catch let error as GitError {
            switch error.code {
            case .notFound:
                throw RepositoryProblem.notARepository(path: path)
            case .notOwner:
                throw RepositoryProblem.notOwner(path: path, detail: error.message)
            default:
                throw GitFailure(error)
            }
        }
        if repository.isBare { throw RepositoryProblem.bare(path: repository.gitDirectory) }
        return repository
    }
}

/// Why a folder cannot be used as the repository of a run.
package enum RepositoryProblem: ReportableError, Equatable {
    /// No repository encloses the folder.
    case notARepository(path: String)
    /// The repository has no work tree.
    case bare(path: String)
    /// The repository belongs to another user and git's ownership check refuses it.
    case notOwner(path: String, detail: String)
    /// The current branch has no commits yet.
    case noCommits(branch: String)
    /// HEAD points at a commit, not a branch, and nothing says which branch a release goes to.
    case detachedHead(commit: String)
    /// The clone is shallow: history and tags are cut off.
    case shallowClone(path: String)

    /// Says what is wrong with the repository.
    package var message: String {
        switch self {
        case .notARepository(let path): "not a git repository: \(path) (nor any parent folder)"
        case .bare(let path): "\(path) is a bare repository: there is no work tree to release from"
        case .notOwner(let path, _): "the repository at \(path) is owned by another user"
        case .noCommits(let branch): "the repository has no commits yet (branch \(branch) is unborn)"
        case .detachedHead(let commit):
            "HEAD is detached at \(commit) and no branch is known to release to: no CI variable names one and --branch was not given"
        case .shallowClone(let path):
            "\(path) is a shallow clone: its history is cut off, so the last release tag and the commits since it cannot be known"
        }
    }

    /// An environment problem: the repository is not usable as it is.
    package var category: ErrorCategory { .environment }

    /// libgit2's own words for an ownership refusal.
    package var info: [(key: String, value: String)] {
        if case .notOwner(_, let detail) = self { return [("libgit2", detail)] }
        return []
    }

    /// What to do to make the repository usable.
    package var suggestion: String? {
        switch self {
        case .notARepository: "run shiplane inside a git work tree, or create one with `git init`"
        case .bare: "run shiplane in a clone with a work tree (`git clone <bare> <folder>`)"
        case .notOwner(let path, _):
            "if you trust it, run `git config --global --add safe.directory \(path)` (as git asks), "
                + "or set SHIPLANE_TRUST_REPOSITORY_OWNER=1 (for CI containers that check out as another user)"
        case .noCommits: "make a first commit, then run again"
        case .shallowClone:
            "fetch the whole history with `git fetch --unshallow --tags` (GitHub Actions: actions/checkout with `fetch-depth: 0`; GitLab CI: `GIT_DEPTH: 0`), then run again"
        case .detachedHead:
            "pass --branch NAME (in a lane: lane.onBranch(NAME)), set SHIPLANE_BRANCH, or check out a branch (`git switch main`); "
                + "the variables looked at: " + CIBranch.variablesLookedAt.joined(separator: ", ")
        }
    }
}

/// A libgit2 failure, as a person reads it.
package struct GitFailure: ReportableError {
    /// What libgit2 was asked to do.
    package var operation: String
    /// libgit2's message.
    package var detail: String
    var code: GitError.Code

    init(_ error: GitError) {
        operation = error.operation
        detail = error.message
        code = error.code
    }

    /// Names the git operation that failed.
    package var message: String { "git: could not \(operation)" }
    /// libgit2's message.
    package var info: [(key: String, value: String)] { [("libgit2", detail)] }
}

/// Runs a libgit2 operation, turning its errors into `GitFailure`. Takes no lock: each
/// `Repository` method takes its own handle's lock (lane code may start two git actions at once,
/// and libgit2 allows a handle on one thread at a time); several calls that must see no other
/// thread's call in between go inside `repository.exclusively { }`.
func git<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GitError {
        throw GitFailure(error)
    }
}

/// Runs a long libgit2 operation (a push, a fetch: they wait for the network) like `git(_:)`, but
/// on a thread of its own, so the waiting holds no thread of Swift's cooperative pool (two on a
/// 2-core runner, shared with every HTTP call and timer of the run).
func gitOffThePool<T>(_ body: @escaping () throws -> T) async throws -> T {
    let work = UncheckedTransfer(body)
    let outcome: UncheckedTransfer<Result<T, any Error>> = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: UncheckedTransfer(Result { try git(work.value) }))
        }
    }
    return try outcome.value.get()
}

/// Hands a value to the one thread that runs `gitOffThePool`'s work and back.
private struct UncheckedTransfer<Value>: @unchecked Sendable {
    // @unchecked: the caller waits while the other thread has the value, so they never use it at once.
    let value: Value
    init(_ value: Value) { self.value = value }
}
