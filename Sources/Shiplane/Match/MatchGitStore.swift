import Foundation
internal import Git

/// A match store in a git repository, named by its URL as match's `git_url` names it
/// (`https://…`, `ssh://…`, `git@host:path`, `file://…`): one branch (match's `git_branch`,
/// `master` by default) fetched into a bare repository inside a private scratch folder, read
/// without a work tree, and changed by one commit pushed by compare and swap (the branch must
/// still be where it was read). Through libgit2; no `git` command.
///
/// A certificate's new key is pushed too, before Apple is asked, encrypted with the match
/// password, as the commit of a ref of its own (`refs/shiplane/match-keys/<type>-<digest>`,
/// which match never fetches): a run killed after Apple made the certificate, run again from any
/// machine, finds the certificate by that key and adopts it.
struct MatchGitStore {
    static let keyReferencePrefix = "refs/shiplane/match-keys/"
    static let keyFileName = "key.json"

    /// The URL as given (shown without user-info).
    let url: String
    let branch: String
    let credentials: PushCredentials
    let repository: Repository
    let scratch: MatchScratch
    /// The branch's commit when it was read; nil for a repository without the branch (match's
    /// first run makes it).
    let tip: ObjectID?
    /// Every file of the branch's tree.
    let files: Set<String>
    /// Keys kept for certificates asked for (ref name after the prefix → `key.json`).
    let pendingKeys: [String: Data]

    var reference: String { "refs/heads/\(branch)" }
    var shown: String { Self.withoutCredentials(url) }
    /// The branch as `BranchClone` reads and pushes it.
    var clone: BranchClone { BranchClone(url: url, branch: branch, credentials: credentials, repository: repository) }

    /// Whether `store` names a repository rather than a folder.
    static func isRepository(_ store: String) -> Bool {
        let lower = store.lowercased()
        if ["https://", "http://", "ssh://", "git://", "file://"].contains(where: { lower.hasPrefix($0) }) { return true }
        return store.range(of: #"^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:"#, options: .regularExpression) != nil
    }

    /// `url` without user-info, for showing and recording.
    static func withoutCredentials(_ url: String) -> String { BranchClone.withoutCredentials(url) }

    /// Credentials for `url`: match's `MATCH_GIT_BASIC_AUTHORIZATION` (base64 of `user:password`)
    /// for HTTPS, else what `push` uses (a token variable, the ssh agent). Each secret is registered.
    static func credentials(for url: String, environment: LaneEnvironment, registerSecret: (String) -> Void) -> PushCredentials {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://"), let encoded = environment["MATCH_GIT_BASIC_AUTHORIZATION"], !encoded.isEmpty {
            registerSecret(encoded)
            let decoded = Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if let colon = decoded.firstIndex(of: ":") {
                let password = String(decoded[decoded.index(after: colon)...])
                if !password.isEmpty { registerSecret(password) }
                return .token(password, username: String(decoded[..<colon]))
            }
        }
        return Push.credentials(for: url, environment: environment)
    }

    /// Fetches `branch` (and, unless `readonly`, the keys kept for certificates) into a new bare
    /// repository in a private scratch folder under `base`. Reaching the repository checks its
    /// URL and the credentials before anything else happens.
    /// - Throws: `GitFailure` when it cannot be reached or refuses the credentials.
    static func open(_ url: String, branch: String, credentials: PushCredentials, base: String, keys: Bool) async throws -> MatchGitStore {
        let scratch = try MatchScratch.make(base: base)
        do {
            let (clone, tip) = try await BranchClone.fetch(url, branch: branch, credentials: credentials, into: scratch.path + "/store.git")
            let repository = clone.repository
            var files = Set<String>()
            if let tip {
                for entry in try git({ try repository.exportedEntries(of: tip) }).entries {
                    if case .file = entry.kind { files.insert(entry.path) }
                }
            }
            var pending: [String: Data] = [:]
            if keys {
                let references = try await gitOffThePool { try repository.remoteReferences(remote: url, credentials: credentials) }
                for name in references.keys.sorted() where name.hasPrefix(keyReferencePrefix) {
                    let fetched = try await gitOffThePool {
                        try repository.fetchIfPresent(remote: url, source: name, destination: name, credentials: credentials)
                    }
                    if fetched, let data = try git({ try repository.readFileReference(name, name: keyFileName) }) {
                        pending[String(name.dropFirst(keyReferencePrefix.count))] = data
                    }
                }
            }
            return MatchGitStore(url: url, branch: branch, credentials: credentials, repository: repository, scratch: scratch,
                                 tip: tip, files: files, pendingKeys: pending)
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// The bytes of the branch's file at `path`; nil when it has none.
    func contents(_ path: String) throws -> Data? {
        guard let tip, files.contains(path) else { return nil }
        return try git { try repository.fileContents(path, in: tip) }
    }

    /// The names of the files directly in `folder`.
    func names(in folder: String) -> [String] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return files.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }.map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    /// Removes the scratch folder.
    func remove() { scratch.remove() }

    // MARK: - Keys kept for Apple's answer

    /// Pushes `data` as the key kept under `name` (a new ref; one already there is replaced).
    /// - Throws: `GitFailure`, or `ShiplaneError` when the repository refuses it.
    func pushKey(_ data: Data, name: String) async throws {
        let reference = Self.keyReferencePrefix + name
        let repository = repository, url = url, credentials = credentials
        try git { try repository.writeFileReference(reference, name: Self.keyFileName, content: data, message: "Shiplane: a certificate's key, kept until the match store holds it") }
        let outcome = try await gitOffThePool {
            try repository.pushReportingRefs(remote: url, refspecs: ["+\(reference):\(reference)"], credentials: credentials)
        }
        guard outcome.refused.isEmpty else {
            throw ShiplaneError("\(shown) refused \(reference), where the new certificate's key is kept until the store holds it; nothing was asked of Apple",
                                info: outcome.refused.map { ($0.ref, $0.reason) },
                                suggestion: "allow pushes to refs/shiplane/* in the match repository (or its token), then run again")
        }
    }

    /// Deletes the key kept under `name` (once the store holds its certificate); a failure is
    /// only reported: the next run finds the certificate in the store and deletes it then.
    func deleteKey(name: String) async -> Bool {
        let reference = Self.keyReferencePrefix + name
        let repository = repository, url = url, credentials = credentials
        let outcome = try? await gitOffThePool {
            try repository.pushReportingRefs(remote: url, refspecs: [":\(reference)"], credentials: credentials)
        }
        return outcome?.refused.isEmpty == true
    }

    // MARK: - Writing

    /// Commits `changes` (path → bytes, nil removes) on top of the branch as read and pushes the
    /// commit only while the branch is still there (compare and swap, checked on the push's own
    /// connection before anything is sent). `beforeSending` records the effect right before the
    /// upload. Returns the commit.
    /// - Throws: `ShiplaneError` when the branch moved on since it was read (nothing sent: run
    ///   again) or the repository refused the push; `GitFailure` when it cannot be reached.
    func push(_ changes: [(path: String, contents: Data?)], message: String, author: Signature, committer: Signature,
              beforeSending: @escaping (ObjectID) throws -> Void) async throws -> ObjectID {
        let reference = reference, repository = repository, tip = tip, shown = shown, branch = branch
        let commit = try git {
            try repository.commitFiles(changes, onTopOf: tip, message: message, author: author, committer: committer, updating: reference)
        }
        switch try await clone.push(expecting: tip, beforeSending: { try beforeSending(commit) }) {
        case .swapped:
            return commit
        case .moved(_, let theirs):
            throw ShiplaneError("\(shown) \(branch) moved on (to \(theirs?.short ?? "nothing")) since this run read it at \(tip?.short ?? "nothing"); nothing was pushed",
                                suggestion: "run match again: it reads the store anew (another machine's match run wrote it meanwhile)")
        case .refused(let outcome):
            var info: [(key: String, value: String)] = outcome.refused.map { ($0.ref, $0.reason) }
            for line in outcome.remoteMessages { info.append(("\(shown) said", line)) }
            throw ShiplaneError("\(shown) refused the match store's commit on \(branch)", info: info,
                                suggestion: "allow the push (a protected branch, a hook, the token's rights), then run again")
        }
    }
}

extension MatchGitStore {
    /// Commits `changes` and pushes the commit as `push` does, recorded as the step's effect
    /// (`match.storePushed`, undone by a commit that reverts it) right before anything is sent.
    /// - Throws: as `push`; `MissingGitIdentity` when no committer can be named.
    func pushRecorded(_ changes: [(path: String, contents: Data?)], message: String, step: StepContext) async throws -> ObjectID {
        let signatures = try step.signatures([.author, .committer], in: repository, for: "match store's commit")
        let recorded = MatchHandleBox()
        let paths = changes.map(\.path), parent = tip?.hex, shown = shown, branch = branch
        func effect(_ commit: ObjectID) -> MatchStorePushed {
            MatchStorePushed(repository: shown, branch: branch, parent: parent, commit: commit.hex, paths: paths)
        }
        let commit = try await push(changes, message: message, author: signatures[0], committer: signatures[1]) { commit in
            recorded.handle = try step.record(effect(commit), "revert the match store's commit \(commit.short) on \(branch) of \(shown)")
        }
        step.done(recorded.handle, effect(commit))
        return commit
    }
}

/// The effect handle recorded on the push's thread, read back after it.
private final class MatchHandleBox: @unchecked Sendable {
    // @unchecked: written once on the push's thread while this task waits for it, read after.
    var handle: EffectHandle?
}

/// A new certificate's key kept until the store holds the certificate: on the match repository's
/// ref `refs/shiplane/match-keys/NAME`, in a bucket store's `PREFIX.shiplane-match-keys/NAME.json`,
/// or in a file under the git folder for a folder store. The undo deletes it (the rollback revoked the certificate first: its key serves
/// nothing); a key already gone is fine.
package struct MatchKeyKept: Effect, Equatable {
    package static let kind = "match.keyKept"
    /// The repository's URL, with no credentials; nil when the key is kept in `file`.
    package var repository: String?
    package var branch: String?
    /// `<certificate type>-<key digest prefix>`, the ref's name after `refs/shiplane/match-keys/`.
    package var name: String
    package var file: String?
    /// An S3 store: the bucket and the object the key is kept in. Recorded by runs before the
    /// bucket stores shared one implementation; a bucket's kept key is now its written object
    /// (`MatchS3ObjectWritten` without a SHA-256), and this stays so that those runs still undo.
    var target: S3Target?
    var object: String?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if let file { unlink(file) }
        if let target, let object {
            try await MatchS3Bucket.forUndo(target, key: object, in: context)
                .undoWrite(key: object, saved: nil, sha256: nil, version: nil, savedCopies: context.savedCopies)
        }
        guard let repository else { return }
        let environment = context.environment
        let credentials = MatchGitStore.credentials(for: repository, environment: environment, registerSecret: { _ in })
        let store = try await MatchGitStore.open(repository, branch: branch ?? "master", credentials: credentials,
                                                 base: MatchScratch.base(environment.variables), keys: false)
        defer { store.remove() }
        let reference = MatchGitStore.keyReferencePrefix + name
        let held = try await gitOffThePool { try store.repository.remoteReferences(remote: repository, credentials: credentials) }
        guard held[reference] != nil else { return }
        guard await store.deleteKey(name: name) else {
            throw ShiplaneError("\(repository) refused the deletion of \(reference), the key of the certificate the rollback revoked",
                                suggestion: "delete it by hand: git push \(repository) :\(reference)")
        }
    }
}

/// The match store's commit, pushed to its repository's branch: the undo pushes a commit that
/// puts the files back as they were at `parent`, on top of `commit`, only while the branch still
/// ends with it (compare and swap): history is never rewritten, and a branch another run moved
/// on is kept. Nothing when the push never landed.
package struct MatchStorePushed: Effect, Equatable {
    package static let kind = "match.storePushed"
    /// The repository's URL, with no credentials.
    package var repository: String
    package var branch: String
    /// The branch's commit the store's commit sits on; nil when the branch was new.
    package var parent: String?
    package var commit: String
    /// The files the commit wrote or removed.
    package var paths: [String]

    package init(repository: String, branch: String, parent: String?, commit: String, paths: [String]) {
        self.repository = repository
        self.branch = branch
        self.parent = parent
        self.commit = commit
        self.paths = paths
    }

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let environment = context.environment
        let credentials = MatchGitStore.credentials(for: repository, environment: environment, registerSecret: { _ in })
        let store = try await MatchGitStore.open(repository, branch: branch, credentials: credentials,
                                                 base: MatchScratch.base(environment.variables), keys: false)
        defer { store.remove() }
        guard let tip = store.tip, tip.hex != parent else { return }
        guard let pushed = ObjectID(hex: commit) else { return }
        guard tip == pushed else {
            // A commit that never landed is not in the branch's history (nor in this clone).
            let landed = (try? git { try store.repository.reachable([pushed], from: tip) })?.contains(pushed) ?? false
            guard landed else { return }
            throw ShiplaneError("\(repository) \(branch) moved on after Shiplane's match commit \(String(commit.prefix(7))): its files are kept",
                                suggestion: "revoke the certificate and remove its files by hand if nothing signs with it")
        }
        var changes: [(path: String, contents: Data?)] = []
        for path in paths {
            let before = try parent.flatMap(ObjectID.init(hex:)).flatMap { old in try git { try store.repository.fileContents(path, in: old) } }
            changes.append((path, before))
        }
        let author = tapCommitSignature(store.repository, environment: environment, role: .author)
        let committer = tapCommitSignature(store.repository, environment: environment, role: .committer)
        let reverted = MatchGitStore(url: store.url, branch: branch, credentials: credentials, repository: store.repository, scratch: store.scratch,
                                     tip: pushed, files: store.files, pendingKeys: [:])
        _ = try await reverted.push(changes, message: "[shiplane] Revert \(String(commit.prefix(7))): the run rolled back", author: author,
                                    committer: committer, beforeSending: { _ in })
    }
}
