import Foundation

/// Keeps Shiplane's writes inside the repository: a path below the work tree that is (or lies
/// under) a symbolic link leading out of it is refused, so a committed link cannot make a
/// release write over a file elsewhere on the machine.
package enum LinkGuard {
    /// Where `path` really leads when it lies below `root` as written but resolves outside it
    /// (through a symbolic link, itself or one of its folders); nil when it stays inside, or
    /// when it was outside `root` to begin with (an absolute path the user chose).
    ///
    /// A file that does not exist yet is judged by its nearest existing folder; a dangling link
    /// by where it points.
    package static func destinationOutside(_ root: String, of path: String) -> String? {
        let lexicalRoot = lexical(root)
        let lexicalPath = lexical(path)
        guard lexicalPath.hasPrefix(lexicalRoot == "/" ? "/" : lexicalRoot + "/"),
              let realRoot = realPath(lexicalRoot) else { return nil }
        var existing = lexicalPath
        var rest: [String] = []
        var hops = 0
        while realPath(existing) == nil {
            if hops < 40, let target = danglingLinkTarget(existing) {
                // A link to a file not made yet: judged by where it points (40 hops, as the kernel allows).
                hops += 1
                existing = target
                continue
            }
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing, !parent.isEmpty else { return nil }
            existing = parent
        }
        guard let real = realPath(existing) else { return nil }
        let resolved = ([real] + rest).joined(separator: "/")
        return resolved == realRoot || resolved.hasPrefix(realRoot + "/") ? nil : resolved
    }

    /// `path` with `.`, `..` and repeated slashes taken out by its text alone: no link is followed
    /// (`standardizingPath` may resolve them, which would hide the very link looked for).
    static func lexical(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` with every symbolic link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a symbolic link that leads nowhere points, as an absolute path; nil for anything else.
    private static func danglingLinkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
              let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { return nil }
        let absolute = target.hasPrefix("/") ? target : (path as NSString).deletingLastPathComponent + "/" + target
        return lexical(absolute)
    }
}

/// A file Shiplane was to write is a symbolic link (or lies under one) that leads out of the
/// repository: nothing was written there.
package struct LinkLeavesRepository: ReportableError {
    /// The path as the user or the lane named it.
    package var path: String
    /// Where the link leads.
    package var destination: String

    /// Creates the error for `path`, which leads to `destination`.
    package init(path: String, destination: String) {
        self.path = path
        self.destination = destination
    }

    /// Names the link and where it leads.
    package var message: String { "\(path) is a symbolic link to \(destination), outside the repository" }
    /// Replace the link.
    package var suggestion: String? {
        "Shiplane only writes inside the repository: replace the link with the file itself; nothing was written"
    }
}
