import Foundation
internal import Git

/// What an effect's undo reaches the world through: the same dependencies in the run (the lane's
/// file system, HTTP and environment), in the supervisor after a kill and in `shiplane rollback`
/// (the live ones, with that process's environment).
public struct EffectContext: Sendable {
    /// The work tree root the run's paths are under.
    public let workTree: String
    /// The environment an undo takes its tokens from.
    public let environment: LaneEnvironment
    /// Reads and writes files.
    public let fileSystem: any FileSystem
    /// Sends HTTP requests, once each; `transport` adds retries and redaction.
    public let http: any HTTPSending
    /// How HTTP requests of an undo are retried.
    package let retryPolicy: RetryPolicy
    /// Where the bytes a file write replaced were saved.
    let savedCopies: any SavedCopies
    /// The repository's git folder (for the lock files a killed git write leaves), when known.
    let gitFolder: String?
    /// Undoes an effect of a kind this process does not know (a lane's own) in its lane program.
    package var undoElsewhere: UndoElsewhere?

    init(
        workTree: String, environment: LaneEnvironment, fileSystem: any FileSystem, http: any HTTPSending,
        retryPolicy: RetryPolicy, savedCopies: any SavedCopies, gitFolder: String?
    ) {
        self.workTree = workTree
        self.environment = environment
        self.fileSystem = fileSystem
        self.http = http
        self.retryPolicy = retryPolicy
        self.savedCopies = savedCopies
        self.gitFolder = gitFolder
    }

    /// This context for undoing an effect this very process made: its git writes that failed
    /// cleaned up their own lock files, so a lock file there now is someone else's (a user's, a
    /// git command's) and stays.
    var forThisProcessEffects: EffectContext {
        var copy = EffectContext(
            workTree: workTree, environment: environment, fileSystem: fileSystem, http: http,
            retryPolicy: retryPolicy, savedCopies: savedCopies, gitFolder: nil
        )
        copy.undoElsewhere = undoElsewhere
        return copy
    }

    /// The context of an undo made from the record in a process other than the run's: the live
    /// file system and HTTP client, `environment` for tokens.
    package static func live(store: RunStore, workTree: String, environment: LaneEnvironment) -> EffectContext {
        EffectContext(
            workTree: workTree, environment: environment, fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
            retryPolicy: RetryPolicy(environment: environment), savedCopies: store,
            gitFolder: (store.folder as NSString).deletingLastPathComponent
        )
    }

    /// HTTP with this context's retries, every secret of the environment (and `secrets`) redacted.
    func transport(secrets: [String] = []) -> HTTPTransport {
        HTTPTransport(
            sender: http, retryPolicy: retryPolicy,
            redactor: SecretRedactor(secrets: Array(environment.secretValues) + secrets)
        )
    }

    /// The repository of the work tree.
    func repository() throws -> Repository {
        try RepositoryAccess.open(at: workTree)
    }

    /// A path as messages show it: relative to the work tree when inside it.
    func display(_ path: String) -> String {
        path.hasPrefix(workTree + "/") ? String(path.dropFirst(workTree.count + 1)) : path
    }

    /// Removes the lock files a git write that was killed midway leaves (libgit2, like git, writes
    /// `NAME.lock` and renames it). Called only for an effect the record shows was in flight, by
    /// the process holding the run lock, and only for files older than this process: what the
    /// killed run left, not what a git command running now holds.
    func removeStaleGitLocks(_ names: [String]) {
        guard let gitFolder else { return }
        let started = ProcessStart.seconds
        for name in names {
            let path = gitFolder + "/" + name
            guard let modified = modificationSeconds(path), modified < started else { continue }
            unlink(path)
        }
    }

    private func modificationSeconds(_ path: String) -> Double? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Double(info.modificationTime.tv_sec)
    }
}

/// When this process started looking (seconds since 1970): a lock file older than that is stale.
enum ProcessStart {
    static let seconds = Date().timeIntervalSince1970
}

/// Where the bytes a file write replaced are kept until the run ends.
protocol SavedCopies: Sendable {
    /// Saves bytes about to be replaced; returns the name they are found under.
    func saveCopy(_ data: Data, name: String) throws -> String
    /// The bytes saved under `name`, or nil when there are none.
    func savedCopy(_ name: String) -> Data?
}

extension RunStore: SavedCopies {}

/// Saved copies for a run with no record on disk (a lane run by a test): kept in memory, so the
/// run's own rollback can put the bytes back.
final class MemorySavedCopies: SavedCopies, @unchecked Sendable {
    // @unchecked: `copies` is only touched under `lock`.
    private let lock = NSLock()
    private var copies: [String: Data] = [:]

    func saveCopy(_ data: Data, name: String) throws -> String {
        lock.withLock { copies[name] = data }
        return name
    }

    func savedCopy(_ name: String) -> Data? {
        lock.withLock { copies[name] }
    }
}
