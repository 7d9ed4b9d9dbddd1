import Foundation
internal import CLibgit2

/// Process-wide libgit2 setup: initialisation and the few global options Shiplane sets.
public enum Libgit2 {
    /// libgit2 is initialised once per process; the library keeps a reference count.
    ///
    /// Strict hash verification (re-hashing every object read) is turned off: git does not do it
    /// on reads either, and it costs a tenth of a history walk. Corruption is still caught by
    /// zlib's checksums and by `git fsck`.
    private static let initialised: Bool = {
        guard git_libgit2_init() > 0 else { return false }
        _ = shiplane_set_strict_hash_verification(0)
        return true
    }()

    /// Makes sure `git_libgit2_init` ran; every entry point of this module calls it.
    @inline(__always)
    static func ensureInitialised() { _ = initialised }

    /// Runs libgit2's initialisation on a thread of its own, for a command that will need it soon.
    ///
    /// Initialising parsed the system's whole CA bundle (libgit2 as Debian builds it, with
    /// mbedTLS, loads it eagerly): about 5 ms on the critical path of every command that touches a
    /// repository. The parse now waits for the first TLS connection (CShiplane's
    /// `DeferredCACertificates.c`), so what is left is about 1 ms of set-up, where mbedTLS is a
    /// shared library. Started first thing by a command that finds its work tree without libgit2, it
    /// overlaps with reading options, settings, the run record and version files; the first real
    /// call waits for it (the initialisation runs once, whichever thread gets there first).
    public static func initialiseInBackground() {
        Thread.detachNewThread { ensureInitialised() }
    }

    /// The linked libgit2 version, for `shiplane --version` and bug reports. Needs no
    /// initialisation (which would parse the whole CA bundle for a version string).
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        git_libgit2_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// Bounds libgit2's memory for a pass over a whole history, for the rest of the process.
    ///
    /// libgit2 caches up to 256 MiB of objects by default, and maps pack files in 1 GiB windows
    /// that stay mapped (and count as resident) once touched. A whole-history changelog reads each
    /// commit once or twice, far apart, so the cache holds tens of megabytes it seldom serves, and
    /// the pack's commit region stays resident though it is read front to back. On git/git (82,000
    /// commits) the defaults took `changelog --all` to 172 MB peak; with 4 MiB windows, at most
    /// 16 MiB mapped, it stays near 100 MB. The window sizes apply to packs opened afterwards, so
    /// call this before the repository is opened.
    ///
    /// The object cache is turned off rather than bounded: bounded, it is full after a few thousand
    /// commits and its bookkeeping (hash-map lookups, inserts and evictions: `git_oid_equal`,
    /// `memcmp`, `git_oidmap_iterate` in a profile) cost about a tenth of a whole-history
    /// changelog's CPU. On git/git, off against bounded to 4 MiB: 2.5 s of user time against
    /// 2.8–3.0 s, 95 MiB peak against 100 MiB, the same bytes out.
    public static func boundMemoryForHistoryPass() {
        ensureInitialised()
        withGlobalState {
            _ = shiplane_set_caching(0)
            _ = shiplane_set_mwindow_limits(4 << 20, 16 << 20)
        }
    }

    /// Turns libgit2's object cache off for the rest of the process, leaving its pack windows as
    /// they are: for a pass that reads many objects once each but no whole history's worth of
    /// commit messages (the monorepo plan). Its pack reads jump between the regions of a release
    /// batch, so the 4 MiB windows of `boundMemoryForHistoryPass` were mapped and faulted in again
    /// 55 times on the 10,000-package plan (220 MB for a 43 MB pack); libgit2's own windows map
    /// such a pack once.
    public static func turnOffObjectCache() {
        ensureInitialised()
        withGlobalState { _ = shiplane_set_caching(0) }
    }

    /// Turns libgit2's repository-owner check on or off for this process.
    ///
    /// libgit2, like git, refuses a repository owned by another user unless it is listed in
    /// `safe.directory`. CI containers often check out as one user and run as another; the CLI
    /// turns the check off only when the user asks (`SHIPLANE_TRUST_REPOSITORY_OWNER=1`).
    public static func setOwnerValidation(_ enabled: Bool) throws {
        ensureInitialised()
        try withGlobalState { try check(shiplane_set_owner_validation(enabled ? 1 : 0), "set owner validation") }
    }
}

extension Libgit2 {
    /// Runs `body` holding the lock of libgit2's process-wide state: its global options
    /// (`git_libgit2_opts`: the object cache, mmap windows, owner validation), which every handle
    /// of the process reads. A repository's handle has a lock of its own (`Repository.lock`).
    static func withGlobalState<T>(_ body: () throws -> T) rethrows -> T {
        globalStateLock.lock()
        defer { globalStateLock.unlock() }
        return try body()
    }

    /// Serialises changes to libgit2's global options (see `withGlobalState`).
    private static let globalStateLock = NSLock()
}
