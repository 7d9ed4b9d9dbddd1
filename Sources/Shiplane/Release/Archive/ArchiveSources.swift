import Foundation

#if canImport(Glibc)
import Glibc

#elseif canImport(Darwin)
import Darwin

#endif

/// What `archive` packs: files, folders and globs, resolved to the entries of one archive.
///
/// A file goes in under its own name; a folder's contents go in at the archive's root, relative
/// to the folder; a glob (`*`, `?`, `[…]`) stands for every file or folder it matches. Every
/// problem is collected before failing: a path that does not exist, a glob that matches nothing,
/// an empty folder, two files that would get the same name, and — always — an archive that would
/// hold no file at all.
enum ArchiveSources {
    /// The entries for `inputs`, each resolved against `root` unless absolute.
    /// - Throws: `AggregateError` listing every input that cannot be packed, or `ShiplaneError`
    ///   when there is nothing to pack.
    static func entries(for inputs: [String], root: String) throws -> [ArchiveEntry] {
        guard !inputs.isEmpty else {
            throw ShiplaneError("archive was given nothing to pack", suggestion: "pass a file, a folder or a glob such as \"dist/*.txt\"")
        }
        var entries: [ArchiveEntry] = []
        var problems: [any Error] = []
        for input in inputs {
            let path = input.hasPrefix("/") ? input : root + "/" + input
            let matches: [String]
            if isGlob(input) {
                // The root is a path, not a pattern: its own `*`, `?` or `[` must match literally.
                matches = expand(input.hasPrefix("/") ? input : escapedForGlob(root) + "/" + input)
                if matches.isEmpty {
                    problems.append(ShiplaneError("\(input) matches no file or folder"))
                    continue
                }
            } else {
                matches = [path]
            }
            for match in matches {
                do {
                    entries.append(contentsOf: try self.entries(at: match, shownAs: matches.count == 1 ? input : match))
                } catch {
                    problems.append(error)
                }
            }
        }
        problems.append(contentsOf: collisions(in: entries))
        if !problems.isEmpty {
            throw AggregateError(
                "\(problems.count) problem\(problems.count == 1 ? "" : "s") with what to archive", errors: problems
            )
        }
        guard entries.contains(where: { if case .file = $0.kind { return true } else { return false } }) else {
            throw ShiplaneError(
                "there is no file to archive in \(inputs.joined(separator: ", "))",
                suggestion: "an archive without files is never what a release wants: check the paths, or build first"
            )
        }
        return ArchiveEntry.sorted(deduplicatedFolders(entries))
    }

    /// The entries for one existing path: a regular file by its name, a folder by its contents.
    private static func entries(at path: String, shownAs shown: String) throws -> [ArchiveEntry] {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw ShiplaneError("\(shown) does not exist", info: [("looked for", path)])
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let name = URL(fileURLWithPath: path).lastPathComponent
            return [ArchiveEntry(name: name, kind: .file(path: path, size: Int64(info.st_size)), executable: info.st_mode & 0o111 != 0)]
        case S_IFDIR:
            let contents = try ArchiveEntry.collect(directory: URL(fileURLWithPath: path))
            guard !contents.isEmpty else { throw ShiplaneError("the folder \(shown) is empty") }
            return contents
        default:
            throw ShiplaneError("cannot archive \(shown): only regular files and folders are supported (it is a link or a special file)")
        }
    }

    /// Two files, or a file and a folder, that would get the same name in the archive.
    private static func collisions(in entries: [ArchiveEntry]) -> [any Error] {
        var seen: [String: ArchiveEntry] = [:]
        var problems: [any Error] = []
        for entry in entries {
            if let earlier = seen[entry.name] {
                if case .directory = earlier.kind, case .directory = entry.kind { continue }
                problems.append(ShiplaneError(
                    "two inputs would both be \(entry.name) in the archive",
                    info: [("first", source(of: earlier)), ("second", source(of: entry))],
                    suggestion: "archive them separately, or rename one"
                ))
            } else {
                seen[entry.name] = entry
            }
        }
        return problems
    }

    private static func source(of entry: ArchiveEntry) -> String {
        if case .file(let path, _) = entry.kind { return path }
        return "a folder"
    }

    /// Folders named by several inputs (`lib/` of two trees) go in once.
    private static func deduplicatedFolders(_ entries: [ArchiveEntry]) -> [ArchiveEntry] {
        var seen = Set<String>()
        return entries.filter { seen.insert($0.name).inserted }
    }

    static func escapedForGlob(_ path: String) -> String {
        var escaped = ""
        for character in path {
            if "*?[\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    static func isGlob(_ input: String) -> Bool {
        input.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The paths `pattern` matches, sorted, as the C library's `glob` finds them.
    static func expand(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            if let path = result.gl_pathv[index] { paths.append(String(cString: path)) }
        }
        return paths.sorted()
    }
}
