import Foundation
internal import Git

/// A throwaway bare clone of one branch of a Homebrew tap (`BranchClone`), in a temporary folder:
/// the formula is committed in it without a work tree (`Repository.commitFile`) and pushed from
/// it, through libgit2. Made for one step (or one undo) and removed after it.
struct TapClone {
    /// The tap's URL or path as given, with no user-info (credentials come from the environment).
    let tap: String
    let branch: String
    let credentials: PushCredentials
    let repository: Repository
    let folder: String

    var reference: String { "refs/heads/\(branch)" }
    /// The branch as `BranchClone` reads and pushes it.
    var clone: BranchClone { BranchClone(url: tap, branch: branch, credentials: credentials, repository: repository) }

    /// The variables a tap token is read from, before the ones `push` reads.
    static let tokenVariables = ["SHIPLANE_TAP_TOKEN", "HOMEBREW_TAP_TOKEN"]

    /// Credentials for `tap`: `SHIPLANE_TAP_TOKEN` (or `HOMEBREW_TAP_TOKEN`) for HTTPS, else what `push` uses.
    static func credentials(for tap: String, environment: LaneEnvironment) -> PushCredentials {
        let lower = tap.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            for variable in tokenVariables {
                if let token = environment[variable], !token.isEmpty {
                    return .token(token, username: environment["SHIPLANE_GIT_USERNAME"] ?? "x-access-token")
                }
            }
        }
        return Push.credentials(for: tap, environment: environment)
    }

    /// `url` without user-info, for showing and recording.
    static func withoutCredentials(_ url: String) -> String { BranchClone.withoutCredentials(url) }

    /// Fetches `branch` of `tap` into a new temporary bare repository; the tip is nil when the tap
    /// has no such branch. Reaching the tap checks its URL and the credentials (the preflight).
    /// - Throws: `GitFailure` when the tap cannot be reached or refuses the credentials.
    static func fetch(_ tap: String, branch: String, environment: LaneEnvironment) async throws -> (clone: TapClone, tip: ObjectID?) {
        let folder = NSTemporaryDirectory() + "shiplane-tap-\(UUID().uuidString).git"
        let credentials = credentials(for: tap, environment: environment)
        do {
            let (fetched, tip) = try await BranchClone.fetch(tap, branch: branch, credentials: credentials, into: folder)
            return (TapClone(tap: tap, branch: branch, credentials: credentials, repository: fetched.repository, folder: folder), tip)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// Fetches another branch of the same tap into this clone (`fetch`'s second look, for a pull
    /// request's branch); the tip is nil when the tap has no such branch.
    /// - Throws: `GitFailure` when the tap cannot be reached.
    func fetchBranch(_ other: String) async throws -> (clone: TapClone, tip: ObjectID?) {
        let tip = try await clone.fetch(branch: other).tip
        return (TapClone(tap: tap, branch: other, credentials: credentials, repository: repository, folder: folder), tip)
    }

    /// Deletes the clone's branch on the tap only while the tap's branch is still `expected`
    /// (compare and swap: checked on the push's own connection, and git's receive-pack refuses a
    /// deletion whose old value moved). Returns false when the tap has no such branch.
    /// - Throws: `ShiplaneError` when the branch moved on (it is kept), or the tap refuses.
    func deleteBranch(expecting expected: String) async throws -> Bool {
        let shown = Self.withoutCredentials(tap)
        guard let expectedID = ObjectID(hex: expected) else {
            throw ShiplaneError("the run's record names \(branch) at \(expected), which is not a commit id: the branch is kept",
                                suggestion: "delete it by hand once nobody needs it")
        }
        switch try await clone.delete(expecting: expectedID) {
        case .swapped:
            return true
        case .moved(_, found: nil):
            return false
        case .moved(_, found: let theirs?):
            throw ShiplaneError("\(shown) \(branch) moved on to \(theirs.short) after Shiplane's \(String(expected.prefix(7))): the branch is kept",
                                suggestion: "delete it by hand once nobody needs it")
        case .refused(let outcome):
            throw ShiplaneError("\(shown) refused to delete \(branch)", info: outcome.refused.map { ($0.ref, $0.reason) },
                                suggestion: "delete the branch by hand")
        }
    }

    /// The formula file's bytes at `commit`.
    func contents(_ path: String, at commit: ObjectID) throws -> Data? {
        try git { try repository.fileContents(path, in: commit) }
    }

    /// Commits `contents` at `path` on top of `parent`, on the clone's branch.
    func commit(_ path: String, contents: Data?, onTopOf parent: ObjectID, message: String, author: Signature, committer: Signature) throws -> ObjectID {
        try git {
            try repository.commitFile(path, contents: contents, onTopOf: parent, message: message, author: author, committer: committer, updating: reference)
        }
    }

    /// Pushes the branch (a fast-forward: never forced), to the tap's branch `remoteBranch` (the
    /// same name when nil); `beforeSending` runs right before the upload (the effect is recorded there).
    func push(to remoteBranch: String? = nil, beforeSending: @escaping () throws -> Void) async throws -> PushOutcome {
        try await clone.push(to: remoteBranch, beforeSending: beforeSending)
    }

    /// Whether `tip`, a branch's tip, is run `runID`'s own commit (its `Shiplane-Run` trailer
    /// names that run): nil when it is not (another run's, a person's); else whether the branch
    /// holds nothing but that commit on top of `base`'s history, so the run pushed the branch into
    /// being and its rollback may delete it (true), or added it to a branch already there (false).
    /// - Throws: `GitFailure` when the commits cannot be read.
    func branchMade(by runID: String, tip: ObjectID, base: ObjectID) throws -> Bool? {
        let repository = repository
        let (parents, message) = try git { try repository.commitParentsAndMessage(tip) }
        guard HomebrewFormula.runID(in: message) == runID else { return nil }
        guard parents.count == 1 else { return false }
        return try git { try repository.isAncestor(parents[0], of: base) }
    }

    /// Removes the temporary folder.
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The error for a push the tap refused (a hook, a protected branch, a branch that moved).
    func refusal(_ outcome: PushOutcome, path: String) -> ShiplaneError {
        let shown = Self.withoutCredentials(tap)
        var info: [(key: String, value: String)] = outcome.refused.map { ($0.ref, $0.reason) }
        for line in outcome.remoteMessages { info.append(("\(shown) said", line)) }
        return ShiplaneError(
            "\(shown) refused the commit of \(path) on \(branch)",
            info: info,
            suggestion: "the tap's branch \(branch) is protected or moved meanwhile; nothing was changed in the tap: allow the push (or its token), or open a pull request with the formula the dry run shows, then run again")
    }
}

/// Signatures for a commit made where no step is (an undo): git's identity, else Shiplane's bot.
func tapCommitSignature(_ repository: Repository, environment: LaneEnvironment, role: Signature.Role) -> Signature {
    if let signature = try? git({ try repository.signature(environment: environment.variables, role: role) }) { return signature }
    let identity = CIIdentity.read(from: environment.variables)
    let now = Date()
    return Signature(
        name: identity?.name ?? CIIdentity.botName, email: identity?.email ?? CIIdentity.botEmail,
        date: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), timeZoneOffsetMinutes: 0)
}
