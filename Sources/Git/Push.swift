import Foundation
internal import CLibgit2

/// How a push proves who it is to the remote.
public struct PushCredentials: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case none
        case token(username: String, token: String)
        case sshAgent(username: String?)
    }

    let kind: Kind
    /// How many times the remote may ask for credentials before the push gives up; libgit2 asks
    /// again after every refusal, forever, unless told to stop.
    public var maxAttempts: Int

    /// No credentials: for remotes that need none (a path, `file://`, an open server).
    public static let none = PushCredentials(kind: .none, maxAttempts: 1)

    /// HTTPS basic authentication with a token as the password (GitHub, GitLab, Gitea tokens).
    public static func token(_ token: String, username: String = "x-access-token", maxAttempts: Int = 2) -> PushCredentials {
        PushCredentials(kind: .token(username: username, token: token), maxAttempts: maxAttempts)
    }

    /// The keys of the running ssh agent (`SSH_AUTH_SOCK`); the user name defaults to the URL's, else `git`.
    public static func sshAgent(username: String? = nil, maxAttempts: Int = 2) -> PushCredentials {
        PushCredentials(kind: .sshAgent(username: username), maxAttempts: maxAttempts)
    }

    /// Never shows the token.
    public var description: String {
        switch kind {
        case .none: "no credentials"
        case .token(let username, _): "token for \(username)"
        case .sshAgent: "ssh agent"
        }
    }

    var secrets: [String] {
        if case .token(_, let token) = kind { return [token] }
        return []
    }
}

extension Repository {
    // MARK: - Remotes

    /// The URL of the remote called `name` as configured (it may hold credentials: redact before
    /// showing it), or nil when there is no such remote.
    public func remoteURL(named name: String) throws -> String? {
        lock.lock(); defer { lock.unlock() }
        var remote: OpaquePointer?
        let result = git_remote_lookup(&remote, pointer, name)
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue { return nil }
        try check(result, "read remote \(name)")
        defer { git_remote_free(remote) }
        return git_remote_url(remote).map { String(cString: $0) }
    }

    // MARK: - Fetching one ref

    /// Fetches `source` from `remote` into the local ref `destination` when the remote has it;
    /// returns false (changing nothing) when it does not.
    /// - Throws: `GitError` for a remote that cannot be reached or refuses the credentials.
    public func fetchIfPresent(remote name: String, source: String, destination: String, credentials: PushCredentials) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "fetch \(source) from \(redactingCredentials(in: name, secrets: credentials.secrets))"
        return try withFetchConnection(name, credentials: credentials, operation: operation) { heads, fetch in
            guard heads[source] != nil else { return false }
            try fetch(["+\(source):\(destination)"])
            return true
        }
    }

    /// Fetches every tag `remote` has that is missing here (`git fetch --tags` without moving any
    /// branch): a tag that exists here already keeps its value. Returns the names fetched.
    /// - Throws: `GitError` for a remote that cannot be reached or refuses the credentials.
    public func fetchMissingTags(remote name: String, credentials: PushCredentials) throws -> [String] {
        lock.lock(); defer { lock.unlock() }
        let operation = "fetch tags from \(redactingCredentials(in: name, secrets: credentials.secrets))"
        return try withFetchConnection(name, credentials: credentials, operation: operation) { heads, fetch in
            var missing: [String] = []
            for ref in heads.keys.sorted() where ref.hasPrefix("refs/tags/") && !ref.hasSuffix("^{}") {
                if try tag(named: String(ref.dropFirst("refs/tags/".count))) == nil { missing.append(ref) }
            }
            guard !missing.isEmpty else { return [] }
            try fetch(missing.map { "\($0):\($0)" })
            return missing.map { String($0.dropFirst("refs/tags/".count)) }
        }
    }

    /// Connects to `name` for fetching with `credentials`, lists its refs, and hands them to
    /// `body` with a function that fetches refspecs over the same remote (tags only as named).
    /// The one way this module reads a remote: errors are redacted of the credentials.
    private func withFetchConnection<T>(
        _ name: String, credentials: PushCredentials, operation: String,
        _ body: (_ heads: [String: ObjectID], _ fetch: ([String]) throws -> Void) throws -> T
    ) throws -> T {
        do {
            let remote = try openRemote(name, operation)
            defer { git_remote_free(remote) }
            let state = PushState(credentials: credentials)
            let payload = Unmanaged.passRetained(state)
            defer { payload.release() }
            var callbacks = try Self.callbacks(payload: payload.toOpaque(), operation)
            let connected = git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, nil, nil)
            if connected < 0 { throw state.error(for: connected, operation) }
            let heads = try remoteHeads(remote, operation)
            git_remote_disconnect(remote)
            return try body(heads) { refspecs in
                var options = git_fetch_options()
                try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), operation)
                options.callbacks = callbacks
                options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
                let result = withStringArray(refspecs) { array in git_remote_fetch(remote, &array, &options, nil) }
                if result < 0 { throw state.error(for: result, operation) }
            }
        } catch let error as GitError {
            throw error.redacted(credentials.secrets)
        }
    }

    /// Remote callbacks that answer credential requests from the `PushState` behind `payload`.
    private static func callbacks(payload: UnsafeMutableRawPointer, _ operation: String) throws -> git_remote_callbacks {
        var callbacks = git_remote_callbacks()
        try check(git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), operation)
        callbacks.credentials = pushCredentialsCallback
        callbacks.payload = payload
        return callbacks
    }

    // MARK: - Pushing

    /// Pushes exactly `refspecs` (`refs/tags/v1.2.0`, `refs/heads/main:refs/heads/main`,
    /// `+src:dst` to force, `:refs/tags/v1.2.0` to delete) to `remote`: a remote's name, a URL or
    /// a path.
    ///
    /// Before sending anything it reads the remote's refs and refuses, as git does, a branch update
    /// that is not a fast-forward and a tag that exists there with another value, unless the
    /// refspec starts with `+`. Refusals by the server (hooks, protected branches) arrive per ref
    /// after the upload; both kinds are collected and reported together. Errors never contain the
    /// token or the URL's user-info.
    /// - Throws: `GitError` `.rejected` naming each refused ref and why, `.authentication` when the
    ///   remote refused the credentials `credentials.maxAttempts` times, `.invalid` for no refspecs,
    ///   `.notFound` for an unknown remote or source ref.
    /// - Parameter beforeSending: runs once the remote accepted the connection and the refs passed
    ///   the checks, right before anything is sent, with each update (git's pre-push hook runs
    ///   here); an error from it stops the push.
    public func push(
        remote: String, refspecs: [String], credentials: PushCredentials, beforeSending: ([RefUpdate]) throws -> Void = { _ in }
    ) throws {
        lock.lock(); defer { lock.unlock() }
        let outcome = try pushReportingRefs(remote: remote, refspecs: refspecs, credentials: credentials, beforeSending: beforeSending)
        guard outcome.refused.isEmpty else { throw outcome.rejection }
    }

    /// Pushes like `push(remote:refspecs:credentials:beforeSending:)`, but returns what the remote
    /// answered for each ref instead of throwing when the server refused some (a hook, a protected
    /// branch, a ref that moved since it was read): the caller learns exactly what the remote has.
    ///
    /// Refusals found before anything is sent (a branch that would not fast-forward, a tag that
    /// exists there with another value) still throw `.rejected`, naming what the remote has: then
    /// nothing was sent. Note that a path or `file://` remote is written by libgit2 itself, which
    /// runs none of the remote's hooks; a server (`git http-backend`, ssh) runs them.
    /// - Throws: as `push`, except for refusals the server reported after the upload.
    ///
    /// `beforeChecks` sees each update as planned, with what the remote has, before git's own
    /// refusals (a tag that exists there with another value throws `.rejected`): a caller can
    /// tell such a tag apart first (another run's tag for the very same commit).
    public func pushReportingRefs(
        remote: String, refspecs: [String], credentials: PushCredentials,
        beforeChecks: ([RefUpdate]) throws -> Void = { _ in }, beforeSending: ([RefUpdate]) throws -> Void = { _ in }
    ) throws -> PushOutcome {
        lock.lock(); defer { lock.unlock() }
        let secrets = credentials.secrets
        let operation = "push to \(redactingCredentials(in: remote, secrets: secrets))"
        guard !refspecs.isEmpty else {
            // libgit2 would fall back to the remote's configured push refspecs: never push more.
            throw GitError(code: .invalid, operation: operation, message: "no refspecs to push")
        }
        do {
            var outcome = try pushChecked(
                remote: remote, refspecs: refspecs, credentials: credentials, operation: operation,
                beforeChecks: beforeChecks, beforeSending: beforeSending)
            outcome.refused = outcome.refused.map { PushOutcome.Refusal(ref: $0.ref, reason: redactingCredentials(in: $0.reason, secrets: secrets)) }
            outcome.remoteMessages = outcome.remoteMessages.map { redactingCredentials(in: $0, secrets: secrets) }
            return outcome
        } catch let error as GitError {
            throw error.redacted(secrets)
        }
    }

    /// The refs `remote` has now (a fresh look; tags peeled to the commit they name, unless
    /// `peeled` is false: then each ref's own value, an annotated tag's object for a tag).
    /// - Throws: `GitError` for a remote that cannot be reached or refuses the credentials.
    public func remoteReferences(remote name: String, credentials: PushCredentials, peeled: Bool = true) throws -> [String: ObjectID] {
        lock.lock(); defer { lock.unlock() }
        let operation = "list the refs of \(redactingCredentials(in: name, secrets: credentials.secrets))"
        return try withFetchConnection(name, credentials: credentials, operation: operation) { heads, _ in
            peeled ? Self.peeled(heads) : heads.filter { !$0.key.hasSuffix("^{}") }
        }
    }

    /// `heads` with each tag's entry replaced by the commit it names (`refs/tags/v1^{}`), when listed.
    private static func peeled(_ heads: [String: ObjectID]) -> [String: ObjectID] {
        var result: [String: ObjectID] = [:]
        for (name, id) in heads where !name.hasSuffix("^{}") { result[name] = heads[name + "^{}"] ?? id }
        return result
    }

    private func pushChecked(
        remote name: String, refspecs: [String], credentials: PushCredentials, operation: String,
        beforeChecks: ([RefUpdate]) throws -> Void, beforeSending: ([RefUpdate]) throws -> Void
    ) throws -> PushOutcome {
        let remote = try openRemote(name, operation)
        defer { git_remote_free(remote) }

        let state = PushState(credentials: credentials)
        let payload = Unmanaged.passRetained(state)
        defer { payload.release() }

        var callbacks = try Self.callbacks(payload: payload.toOpaque(), operation)
        callbacks.push_update_reference = pushUpdateReferenceCallback
        callbacks.sideband_progress = sidebandCallback

        let connected = git_remote_connect(remote, GIT_DIRECTION_PUSH, &callbacks, nil, nil)
        if connected < 0 { throw state.error(for: connected, operation) }
        defer { git_remote_disconnect(remote) }

        let planned = try plan(refspecs, operation)
        let heads = try remoteHeads(remote, operation)
        // A push connection's list names no tag's commit (receive-pack does not peel): for a tag
        // the remote has with another value, the fetch side's list says which commit it names.
        var peeledTags: [String: ObjectID] = [:]
        if planned.contains(where: { update in
            guard update.destination.hasPrefix("refs/tags/"), let theirs = heads[update.destination] else { return false }
            return theirs != update.source && heads[update.destination + "^{}"] == nil
        }) {
            peeledTags = (try? remoteReferences(remote: name, credentials: credentials, peeled: true)) ?? [:]
        }
        let updates = planned.map { update in
            let remote = heads[update.destination]
            return RefUpdate(
                localRef: update.localName, local: update.source, remoteRef: update.destination, remote: remote,
                localCommit: update.commit,
                remoteCommit: remote == nil ? nil : heads[update.destination + "^{}"] ?? peeledTags[update.destination] ?? remote)
        }
        try beforeChecks(updates)
        let rejections = try refusals(of: planned, remoteHeads: heads)
        guard rejections.isEmpty else { throw Self.rejected(rejections, operation) }

        var options = git_push_options()
        try check(git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)), operation)
        options.callbacks = callbacks
        try beforeSending(updates)
        let result = withStringArray(refspecs) { array in git_remote_push(remote, &array, &options) }
        if result == GIT_ENONFASTFORWARD.rawValue {
            // The remote moved between the check and the upload: nothing was updated.
            let message = libgit2Message() ?? "not a fast-forward"
            return PushOutcome(
                operation: operation, accepted: [], refused: planned.map { .init(ref: $0.destination, reason: message) },
                remoteMessages: state.remoteMessages)
        }
        if result < 0 { throw state.error(for: result, operation) }
        let refused = state.rejections.map { PushOutcome.Refusal(ref: $0.0, reason: $0.1) }
        let refusedNames = Set(refused.map(\.ref))
        // A ref the remote did not refuse is one it has as pushed (updated now, or already so).
        return PushOutcome(
            operation: operation, accepted: planned.map(\.destination).filter { !refusedNames.contains($0) }, refused: refused,
            remoteMessages: state.remoteMessages)
    }

    private func openRemote(_ name: String, _ operation: String) throws -> OpaquePointer {
        var remote: OpaquePointer?
        var valid: Int32 = 0
        if git_remote_name_is_valid(&valid, name) == 0, valid == 1 {
            let result = git_remote_lookup(&remote, pointer, name)
            if result == 0, let remote { return remote }
            if result != GIT_ENOTFOUND.rawValue { try check(result, operation) }
        }
        guard name.contains("/") || name.contains(":") else {
            throw GitError(code: .notFound, operation: operation, message: "there is no remote called '\(name)'")
        }
        try check(git_remote_create_anonymous(&remote, pointer, name), operation)
        guard let remote else {
            throw GitError(code: .other(-1), operation: operation, message: "no remote returned")
        }
        return remote
    }

    /// One ref a push updates, as git's pre-push hook reads it: the local ref and id (nil for a
    /// deletion), the remote ref and the id the remote has (nil when it has none).
    public struct RefUpdate: Sendable, Equatable {
        public var localRef: String?
        public var local: ObjectID?
        public var remoteRef: String
        public var remote: ObjectID?
        /// The commit the local ref names (a tag peeled to its commit), nil for a deletion.
        public var localCommit: ObjectID? = nil
        /// The commit the remote's ref names (its tag peeled, as the remote advertised it), nil when it has none.
        public var remoteCommit: ObjectID? = nil

        /// The line git writes to pre-push's standard input.
        public var hookLine: String {
            let zero = String(repeating: "0", count: 40)
            return "\(localRef ?? "(delete)") \(local?.hex ?? zero) \(remoteRef) \(remote?.hex ?? zero)"
        }
    }

    // MARK: - Checks before the upload

    /// One refspec, resolved locally.
    private struct PlannedUpdate {
        var force: Bool
        var source: ObjectID?
        var destination: String
        /// The local ref's full name, nil for a deletion.
        var localName: String?
        /// The commit `source` names (a tag peeled), nil for a deletion.
        var commit: ObjectID? = nil
    }

    private func plan(_ refspecs: [String], _ operation: String) throws -> [PlannedUpdate] {
        try refspecs.map { spec in
            var text = Substring(spec)
            let force = text.hasPrefix("+")
            if force { text = text.dropFirst() }
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let source = String(parts[0])
            if source.isEmpty {
                guard parts.count == 2, parts[1].hasPrefix("refs/") else {
                    throw GitError(code: .invalid, operation: operation, message: "'\(spec)' must name the full remote ref to delete")
                }
                return PlannedUpdate(force: force, source: nil, destination: String(parts[1]), localName: nil)
            }
            var reference: OpaquePointer?
            let found = git_reference_dwim(&reference, pointer, source)
            if found == GIT_ENOTFOUND.rawValue {
                throw GitError(code: .notFound, operation: operation, message: "'\(source)' does not name a local ref")
            }
            try check(found, operation)
            defer { git_reference_free(reference) }
            var resolved: OpaquePointer?
            try check(git_reference_resolve(&resolved, reference), operation)
            defer { git_reference_free(resolved) }
            let fullName = String(cString: git_reference_name(resolved))
            let destination = parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : fullName
            var peeled: OpaquePointer?
            var commit: ObjectID?
            if git_reference_peel(&peeled, resolved, GIT_OBJECT_COMMIT) == 0 {
                commit = ObjectID(git_object_id(peeled))
                git_object_free(peeled)
            }
            return PlannedUpdate(
                force: force, source: ObjectID(git_reference_target(resolved)), destination: destination, localName: fullName, commit: commit)
        }
    }

    private func remoteHeads(_ remote: OpaquePointer?, _ operation: String) throws -> [String: ObjectID] {
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try check(git_remote_ls(&heads, &count, remote), operation)
        var result: [String: ObjectID] = [:]
        for index in 0..<count {
            guard let head = heads?[index]?.pointee, let name = head.name else { continue }
            result[String(cString: name)] = ObjectID(head.oid)
        }
        return result
    }

    /// git's client-side refusals: a branch that would not fast-forward, a tag that exists.
    private func refusals(of updates: [PlannedUpdate], remoteHeads: [String: ObjectID]) throws -> [(String, String)] {
        var refused: [(String, String)] = []
        for update in updates where !update.force {
            guard let source = update.source, let current = remoteHeads[update.destination], current != source else { continue }
            if update.destination.hasPrefix("refs/tags/") {
                let commit = remoteHeads[update.destination + "^{}"] ?? current
                refused.append((update.destination, "already exists on the remote, at \(commit.short)"))
                continue
            }
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, pointer), "check \(update.destination)")
            defer { git_odb_free(odb) }
            var currentID = current.raw
            guard git_odb_exists(odb, &currentID) == 1 else {
                refused.append((update.destination, "fetch first: the remote is at \(current.short), which is not here"))
                continue
            }
            var base = git_oid()
            var sourceID = source.raw
            let result = git_merge_base(&base, pointer, &sourceID, &currentID)
            if result == GIT_ENOTFOUND.rawValue || (result == 0 && ObjectID(base) != current) {
                refused.append((update.destination, "non-fast-forward: the remote is at \(current.short)"))
            } else {
                try check(result, "check \(update.destination)")
            }
        }
        return refused
    }

    private static func rejected(_ refs: [(String, String)], _ operation: String) -> GitError {
        let list = refs.map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
        return GitError(
            code: .rejected, operation: operation,
            message: "the remote rejected \(list)")
    }
}

// MARK: - Helpers

/// libgit2's last error message, if any.
func libgit2Message() -> String? {
    guard let last = git_error_last(), let text = last.pointee.message else { return nil }
    return String(cString: text)
}

/// Runs `body` with a `git_strarray` of `strings`, valid only during the call.
func withStringArray<T>(_ strings: [String], _ body: (inout git_strarray) throws -> T) rethrows -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return try pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return try body(&array)
    }
}
