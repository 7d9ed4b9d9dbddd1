import Foundation
internal import Git

/// Process-wide git settings the CLI applies before a run.
package enum GitSettings {
    /// The git folder all worktrees of the repository at `workTree` share (`.git`, or the main
    /// worktree's for a linked one).
    package static func commonGitDirectory(workTree: String) throws -> String {
        try RunStore.commonGitDirectory(ofWorkTree: workTree)
    }

    /// Accepts repositories owned by another user (`SHIPLANE_TRUST_REPOSITORY_OWNER=1`).
    package static func trustRepositoryOwners() throws {
        try git { try Libgit2.setOwnerValidation(false) }
    }

    /// The libgit2 version Shiplane is linked with.
    package static var libgit2Version: String { Libgit2.version }

    /// Starts libgit2 (its certificate-bundle parse) on another thread, for a command that finds
    /// its work tree with `workTreeRoot(from:environment:)` and needs git a little later.
    package static func prepareInBackground() { Libgit2.initialiseInBackground() }

    /// The root of the work tree enclosing `path`.
    /// - Throws: `RepositoryProblem` when there is none, or it is bare or owned by another user.
    package static func workTreeRoot(from path: String) throws -> String {
        let repository = try RepositoryAccess.open(at: path)
        return repository.workingDirectory ?? path
    }

    /// The root of the work tree enclosing `path`, found by looking upwards for `.git` without
    /// starting libgit2 (whose start parses the system's certificate bundle): what a cached lane
    /// run needs to find its lanes. Anything unusual — `GIT_DIR`, `GIT_WORK_TREE` or
    /// `GIT_CEILING_DIRECTORIES` set, no `.git` found, a `.git` that is neither a folder with a
    /// `HEAD` nor a `gitdir:` file — is left to libgit2, which also gives the errors.
    /// - Throws: `RepositoryProblem`, as `workTreeRoot(from:)`.
    package static func workTreeRoot(from path: String, environment: [String: String]) throws -> String {
        let overrides = ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"]
        guard !overrides.contains(where: { environment[$0] != nil }) else { return try workTreeRoot(from: path) }
        var folder = lexicallyStandardized(path)
        while true {
            let dotGit = (folder == "/" ? "" : folder) + "/.git"
            var info = stat()
            if lstat(dotGit, &info) == 0 {
                let kind = info.st_mode & S_IFMT
                if kind == S_IFDIR, access(dotGit + "/HEAD", F_OK) == 0 { return folder }
                if kind == S_IFREG, let text = try? String(contentsOfFile: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") {
                    return folder
                }
                break
            }
            guard folder != "/" else { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return try workTreeRoot(from: path)
    }
}

/// `path` made absolute (against the current folder) with `.`, `..` and repeated or trailing
/// slashes removed, without looking at the file system (no symbolic link is resolved): what
/// `URL.standardizedFileURL.path` gives, without `URL`, whose standardizing costs a scan of every
/// protocol conformance of a 100 MB static program on its first use, at every lane's start.
package func lexicallyStandardized(_ path: String) -> String {
    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    var parts: [Substring] = []
    for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
        switch part {
        case ".": continue
        case "..": if !parts.isEmpty { parts.removeLast() }
        default: parts.append(part)
        }
    }
    var result = ""
    for part in parts {
        result += "/"
        result += String(part)
    }
    return result.isEmpty ? "/" : result
}
