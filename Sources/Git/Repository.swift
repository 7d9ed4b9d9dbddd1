import Foundation
internal import CLibgit2

/// An open git repository; owns its libgit2 handle and frees it exactly once.
public final class Repository: @unchecked Sendable {
    // @unchecked: libgit2 allows a handle on one thread at a time. Every public method, and
    // HistoryWalker's, takes `lock` before it touches `pointer`, so callers on other threads take
    // turns on this handle while other repositories' handles go on in parallel. The Git module's
    // own threads (the work-tree walk) use the handle only while their caller holds the lock and
    // waits for them; they never take it.
    let pointer: OpaquePointer

    /// Guards `pointer`: this handle's lock, no other repository's. Recursive, since operations
    /// nest (a commit reads HEAD, a history walk asks what each commit changed).
    let lock: NSRecursiveLock = NSRecursiveLock()

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Runs `body` holding this repository's lock, so that several calls on it happen with no
    /// other thread's call on it in between (each call alone already takes the lock).
    public func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    deinit {
        git_repository_free(pointer)
    }

    // MARK: - Opening

    /// Finds the repository that contains `path` (the folder itself or any parent) and opens it.
    /// - Throws: `GitError` with `.notFound` when no repository encloses `path`, `.notOwner`
    ///   when libgit2's ownership check refuses it.
    public static func discover(from path: String) throws -> Repository {
        Libgit2.ensureInitialised()
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        try check(git_repository_discover(&buffer, path, 0, nil), "find a git repository from \(path)")
        guard let found = buffer.ptr else {
            throw GitError(code: .notFound, operation: "find a git repository from \(path)", message: "no path returned")
        }
        return try open(String(cString: found))
    }

    /// Opens the repository at exactly `path` (a work tree or a `.git`/bare folder).
    public static func open(_ path: String) throws -> Repository {
        Libgit2.ensureInitialised()
        var handle: OpaquePointer?
        try check(git_repository_open(&handle, path), "open repository \(path)")
        guard let handle else {
            throw GitError(code: .other(-1), operation: "open repository \(path)", message: "no handle returned")
        }
        return Repository(pointer: handle)
    }

    // MARK: - Facts

    /// True for a repository with no work tree.
    public var isBare: Bool { exclusively { git_repository_is_bare(pointer) == 1 } }

    /// True for a shallow clone (`git clone --depth N`): history stops at the commits in `.git/shallow`.
    public var isShallow: Bool { exclusively { git_repository_is_shallow(pointer) == 1 } }

    /// The work tree's root folder (no trailing slash), or nil for a bare repository.
    public var workingDirectory: String? {
        lock.lock(); defer { lock.unlock() }
        guard let path = git_repository_workdir(pointer) else { return nil }
        var text = String(cString: path)
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The `.git` folder (or the bare repository's folder).
    public var gitDirectory: String {
        lock.lock(); defer { lock.unlock() }
        var text = String(cString: git_repository_path(pointer))
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        return text
    }

    // MARK: - Config

    /// A configuration value as git resolves it (repository, then global, then system).
    public func configString(_ name: String) throws -> String? {
        lock.lock(); defer { lock.unlock() }
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "read git config")
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let result = git_config_get_string(&value, config, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result, "read git config \(name)")
        return value.map { String(cString: $0) }
    }
}
