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
        let operation = "fetch \(source) from \(redactingCredentials(in: name, secrets: credentials.secrets))"
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
            guard heads[source] != nil else { return false }
            var options = git_fetch_options()
            try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), operation)
            options.callbacks = callbacks
            options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
            let result = withStringArray(["+\(source):\(destination)"]) { array in git_remote_fetch(remote, &array, &options, nil) }
            if result < 0 { throw state.error(for: result, operation) }
            return true
        } catch let error as GitError {
            throw error.redacted(credentials.secrets)
        }
    }

    /// Fetches every tag `remote` has that is missing here (`git fetch --tags` without moving any
    /// branch): a tag that exists here already keeps its value. Returns the names fetched.
    /// - Throws: `GitError` for a remote that cannot be reached or refuses the credentials.
    public func fetchMissingTags(remote name: String, credentials: PushCredentials) throws -> [String] {
        let operation = "fetch tags from \(redactingCredentials(in: name, secrets: credentials.secrets))"
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
            var missing: [String] = []
            for ref in heads.keys.sorted() where ref.hasPrefix("refs/tags/") && !ref.hasSuffix("^{}") {
                if try tag(named: String(ref.dropFirst("refs/tags/".count))) == nil { missing.append(ref) }
            }
            guard !missing.isEmpty else { return [] }
            var options = git_fetch_options()
            try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), operation)
            options.callbacks = callbacks
            options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
            let result = withStringArray(missing.map { "\($0):\($0)" }) { array in git_remote_fetch(remote, &array, &options, nil) }
            if result < 0 { throw state.error(for: result, operation) }
            return missing.map { String($0.dropFirst("refs/tags/".count)) }
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
        let secrets = credentials.secrets
        let operation = "push to \(redactingCredentials(in: remote, secrets: secrets))"
        guard !refspecs.isEmpty else {
            // libgit2 would fall back to the remote's configured push refspecs: never push more.
            throw GitError(code: .invalid, operation: operation, message: "no refspecs to push")
        }
        do {
            try pushChecked(remote: remote, refspecs: refspecs, credentials: credentials, operation: operation, beforeSending: beforeSending)
        } catch let error as GitError {
            throw error.redacted(secrets)
        }
    }

    private func pushChecked(
        remote name: String, refspecs: [String], credentials: PushCredentials, operation: String, beforeSending: ([RefUpdate]) throws -> Void
    ) throws {
        let remote = try openRemote(name, operation)
        defer { git_remote_free(remote) }

        let state = PushState(credentials: credentials)
        let payload = Unmanaged.passRetained(state)
        defer { payload.release() }

        var callbacks = try Self.callbacks(payload: payload.toOpaque(), operation)
        callbacks.push_update_reference = pushUpdateReferenceCallback

        let connected = git_remote_connect(remote, GIT_DIRECTION_PUSH, &callbacks, nil, nil)
        if connected < 0 { throw state.error(for: connected, operation) }
        defer { git_remote_disconnect(remote) }

        let planned = try plan(refspecs, operation)
        let heads = try remoteHeads(remote, operation)
        let rejections = try refusals(of: planned, remoteHeads: heads)
        guard rejections.isEmpty else { throw Self.rejected(rejections, operation) }

        var options = git_push_options()
        try check(git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)), operation)
        options.callbacks = callbacks
        try beforeSending(planned.map { update in
            RefUpdate(localRef: update.localName, local: update.source, remoteRef: update.destination, remote: heads[update.destination])
        })
        let result = withStringArray(refspecs) { array in git_remote_push(remote, &array, &options) }
        if result == GIT_ENONFASTFORWARD.rawValue {
            // The remote moved between the check and the upload.
            let message = libgit2Message() ?? "not a fast-forward"
            throw Self.rejected(planned.map { ($0.destination, message) }, operation)
        }
        if result < 0 { throw state.error(for: result, operation) }
        guard state.rejections.isEmpty else { throw Self.rejected(state.rejections, operation) }
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
            return PlannedUpdate(force: force, source: ObjectID(git_reference_target(resolved)), destination: destination, localName: fullName)
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
                refused.append((update.destination, "already exists"))
                continue
            }
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, pointer), "check \(update.destination)")
            defer { git_odb_free(odb) }
            var currentID = current.raw
            guard git_odb_exists(odb, &currentID) == 1 else {
                refused.append((update.destination, "fetch first: the remote has commits that are not here"))
                continue
            }
            var base = git_oid()
            var sourceID = source.raw
            let result = git_merge_base(&base, pointer, &sourceID, &currentID)
            if result == GIT_ENOTFOUND.rawValue || (result == 0 && ObjectID(base) != current) {
                refused.append((update.destination, "non-fast-forward"))
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

// MARK: - Callbacks

/// What the C callbacks of one push share; passed to them through an `Unmanaged` payload.
private final class PushState {
    let credentials: PushCredentials
    /// How often the remote asked for credentials, and how often it was given some.
    var attempts = 0
    var given = 0
    var gaveUp = false
    var rejections: [(String, String)] = []

    init(credentials: PushCredentials) {
        self.credentials = credentials
    }

    /// The error for a failed libgit2 call: the refused credentials when the callback gave up.
    func error(for result: Int32, _ operation: String) -> GitError {
        guard gaveUp else { return GitError(result: result, operation: operation) }
        let message: String
        switch credentials.kind {
        case .none:
            message = "the remote asks for credentials and none were given: set a token (for HTTPS) or use the ssh agent"
        case .token:
            message = "the remote refused the credentials (\(credentials.description), \(given) attempt(s)): "
                + "check that the token is valid and may push to this repository"
        case .sshAgent:
            message = "the remote refused the ssh agent's keys (\(given) attempt(s)): check `ssh-add -l` "
                + "and that the key may push to this repository"
        }
        return GitError(code: .authentication, operation: operation, message: message)
    }
}

private let pushCredentialsCallback: git_credential_acquire_cb = { out, _, usernameFromURL, allowedTypes, payload in
    guard let out, let payload else { return GIT_EUSER.rawValue }
    let state = Unmanaged<PushState>.fromOpaque(payload).takeUnretainedValue()
    state.attempts += 1
    let refuse: Int32 = GIT_EAUTH.rawValue
    guard state.attempts <= state.credentials.maxAttempts else {
        state.gaveUp = true
        return refuse
    }
    switch state.credentials.kind {
    case .none:
        state.gaveUp = true
        return refuse
    case .token(let username, let token):
        guard allowedTypes & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 else {
            state.gaveUp = true
            return refuse
        }
        state.given += 1
        return git_credential_userpass_plaintext_new(out, username, token)
    case .sshAgent(let username):
        let user = username ?? usernameFromURL.map { String(cString: $0) } ?? "git"
        if allowedTypes & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            state.given += 1
            return git_credential_ssh_key_from_agent(out, user)
        }
        if allowedTypes & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
            return git_credential_username_new(out, user)
        }
        state.gaveUp = true
        return refuse
    }
}

private let pushUpdateReferenceCallback: git_push_update_reference_cb = { name, status, payload in
    guard let payload else { return 0 }
    let state = Unmanaged<PushState>.fromOpaque(payload).takeUnretainedValue()
    if let status {
        state.rejections.append((name.map { String(cString: $0) } ?? "?", String(cString: status)))
    }
    return 0
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
