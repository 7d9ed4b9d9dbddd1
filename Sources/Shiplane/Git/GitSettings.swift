internal import Git

/// Process-wide git settings the CLI applies before a run.
public enum GitSettings {
    /// Accepts repositories owned by another user (`SHIPLANE_TRUST_REPOSITORY_OWNER=1`).
    public static func trustRepositoryOwners() throws {
        try git { try Libgit2.setOwnerValidation(false) }
    }

    /// The libgit2 version Shiplane is linked with.
    public static var libgit2Version: String { Libgit2.version }

    /// The root of the work tree enclosing `path`.
    /// - Throws: `RepositoryProblem` when there is none, or it is bare or owned by another user.
    public static func workTreeRoot(from path: String) throws -> String {
        let repository = try RepositoryAccess.open(at: path)
        return repository.workingDirectory ?? path
    }
}
