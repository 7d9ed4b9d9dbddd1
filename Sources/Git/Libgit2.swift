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

    /// The linked libgit2 version, for `shiplane --version` and bug reports.
    public static var version: String {
        ensureInitialised()
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        git_libgit2_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// Bounds libgit2's object cache for a pass over a whole history, for the rest of the process.
    ///
    /// libgit2 caches up to 256 MiB of objects by default. A whole-history changelog reads each
    /// commit once or twice, far apart, so the cache holds tens of megabytes it seldom serves:
    /// on git/git (82,000 commits) the default cache took `changelog --all` from 110 MB to
    /// 172 MB peak for 0.1–0.3 s. 4 MiB keeps the tags and recent commits.
    public static func boundMemoryForHistoryPass() {
        ensureInitialised()
        _ = shiplane_set_cache_max_size(4 << 20)
    }

    /// Turns libgit2's repository-owner check on or off for this process.
    ///
    /// libgit2, like git, refuses a repository owned by another user unless it is listed in
    /// `safe.directory`. CI containers often check out as one user and run as another; the CLI
    /// turns the check off only when the user asks (`SHIPLANE_TRUST_REPOSITORY_OWNER=1`).
    public static func setOwnerValidation(_ enabled: Bool) throws {
        ensureInitialised()
        try check(shiplane_set_owner_validation(enabled ? 1 : 0), "set owner validation")
    }
}
