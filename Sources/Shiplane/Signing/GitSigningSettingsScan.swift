import Foundation

/// Whether git's configuration could ask for signed commits or tags, read from the bytes of its
/// files without libgit2.
///
/// `SigningKeyCheck` reads `commit.gpgSign` and `tag.gpgSign` before every run's first effect.
/// Through libgit2 that opens the repository, and initialising libgit2 parses the system's whole CA
/// bundle (libgit2 as Debian builds it, with mbedTLS): a sixth of a cached no-op lane's CPU
/// (`perf record`, a lane program linked statically). A setting can only come from a file that
/// holds its name, so when none of the files libgit2 reads mentions `gpgsign`, nothing asks.
/// Anything this scan cannot see through — an `include`, a `.git` file (a linked work tree, a
/// submodule), `GIT_DIR` or a `GIT_CONFIG…` variable naming settings in the environment, a file
/// that exists but cannot be read — counts as "could ask", and libgit2 reads the settings as before.
enum GitSigningSettingsScan {
    /// False only when no configuration file libgit2 reads for the repository enclosing
    /// `workingDirectory` names `gpgsign` (any case), and none includes another.
    static func mayAskForSignatures(workingDirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        // Variables that name other files or settings (GIT_CONFIG_NOSYSTEM only leaves one out).
        let elsewhere = ["GIT_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"]
        if elsewhere.contains(where: { environment[$0] != nil }) { return true }
        guard let gitDirectory = gitDirectory(enclosing: workingDirectory) else { return true }
        var files = [gitDirectory + "/config", gitDirectory + "/config.worktree", "/etc/gitconfig"]
        if let home = environment["HOME"], !home.isEmpty {
            files.append(home + "/.gitconfig")
            files.append((environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/git/config")
        } else {
            return true
        }
        for file in files {
            guard access(file, F_OK) == 0 else { continue }
            guard let data = FileManager.default.contents(atPath: file) else { return true }
            let text = String(decoding: data, as: UTF8.self).lowercased()
            if text.contains("gpgsign") || text.contains("include") { return true }
        }
        return false
    }

    /// The `.git` folder of the work tree enclosing `path`; nil when it is a file or none is found.
    private static func gitDirectory(enclosing path: String) -> String? {
        var folder = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        while true {
            var info = stat()
            if lstat(folder + "/.git", &info) == 0 {
                return (info.st_mode & S_IFMT) == S_IFDIR ? folder + "/.git" : nil
            }
            guard let slash = folder.lastIndex(of: "/"), folder != "/" else { return nil }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
    }
}
