import Foundation
internal import Git

/// One branch of a remote repository fetched into a bare repository of Shiplane's own (a
/// temporary folder), read and committed to without a work tree and pushed from, through libgit2:
/// what a Homebrew tap, a CocoaPods specs repository and a match store in git share (`TapClone`,
/// `MatchGitStore`).
struct BranchClone {
    /// The remote's URL or path as given, with no user-info (credentials come from the environment).
    let url: String
    let branch: String
    let credentials: PushCredentials
    let repository: Repository

    var reference: String { "refs/heads/\(branch)" }
    /// The URL as shown and recorded.
    var shown: String { Self.withoutCredentials(url) }

    /// `url` without user-info, for showing and recording.
    static func withoutCredentials(_ url: String) -> String {
        guard url.contains("://"), var components = URLComponents(string: url), components.user != nil || components.password != nil
        else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }

    /// Makes a bare repository at `folder` and fetches `branch` of `url` into it; the tip is nil
    /// when the remote has no such branch. Reaching the remote checks its URL and the credentials.
    /// - Throws: `GitFailure` when the remote cannot be reached or refuses the credentials (the
    ///   folder stays: the caller removes it).
    static func fetch(_ url: String, branch: String, credentials: PushCredentials, into folder: String) async throws -> (clone: BranchClone, tip: ObjectID?) {
        let repository = try git { try Repository.createBare(at: folder) }
        return try await BranchClone(url: url, branch: branch, credentials: credentials, repository: repository).fetch(branch: branch)
    }

    /// Fetches `other`, a branch of the same remote, into the same repository; the tip is nil when
    /// the remote has no such branch.
    /// - Throws: `GitFailure` when the remote cannot be reached.
    func fetch(branch other: String) async throws -> (clone: BranchClone, tip: ObjectID?) {
        let clone = BranchClone(url: url, branch: other, credentials: credentials, repository: repository)
        let repository = repository, url = url, credentials = credentials, reference = clone.reference
        let found = try await gitOffThePool {
            try repository.fetchIfPresent(remote: url, source: reference, destination: reference, credentials: credentials)
        }
        return (clone, found ? try git { try repository.commitOfReference(reference) } : nil)
    }

    /// Pushes the branch (a fast-forward: never forced) to the remote's branch `remoteBranch` (the
    /// same name when nil); `beforeSending` runs right before the upload (the effect is recorded there).
    func push(to remoteBranch: String? = nil, beforeSending: @escaping () throws -> Void) async throws -> PushOutcome {
        let repository = repository, url = url, credentials = credentials, reference = reference
        let destination = remoteBranch.map { "refs/heads/\($0)" } ?? reference
        return try await gitOffThePool {
            try repository.pushReportingRefs(remote: url, refspecs: ["\(reference):\(destination)"], credentials: credentials, beforeSending: { _ in
                try beforeSending()
            })
        }
    }

    /// Pushes the branch (never forced) only while the remote's branch is still `expected` (nil:
    /// absent), by compare and swap (`Repository.compareAndSwap`).
    func push(expecting expected: ObjectID?, beforeSending: @escaping () throws -> Void) async throws -> SwapResult {
        let repository = repository, url = url, credentials = credentials, reference = reference
        return try await gitOffThePool {
            try repository.compareAndSwap(
                remote: url, [RefSwap(source: reference, destination: reference, expected: expected, force: false)], credentials: credentials,
                beforeSending: beforeSending)
        }
    }

    /// Deletes the remote's branch only while it is still `expected`, by compare and swap.
    func delete(expecting expected: ObjectID) async throws -> SwapResult {
        let repository = repository, url = url, credentials = credentials, reference = reference
        return try await gitOffThePool {
            try repository.compareAndSwap(remote: url, [.delete(reference, expected: expected)], credentials: credentials)
        }
    }
}
