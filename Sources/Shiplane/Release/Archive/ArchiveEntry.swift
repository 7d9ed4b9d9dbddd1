import Foundation

/// One file or folder to put in an archive: its name inside the archive and where its bytes are.
package struct ArchiveEntry: Sendable, Equatable {
    /// A file with its bytes, or a folder.
    package enum Kind: Sendable, Equatable {
        /// A regular file: where its bytes are read from, and how many there are.
        case file(path: String, size: Int64)
        /// A folder.
        case directory
    }

    /// The path inside the archive, `/`-separated, without a trailing slash.
    package var name: String
    /// A file or a folder.
    package var kind: Kind
    /// Stored as mode 0755 when true, else 0644 (folders are always 0755).
    package var executable: Bool

    /// Creates an entry named `name` inside the archive.
    package init(name: String, kind: Kind, executable: Bool = false) {
        self.name = name
        self.kind = kind
        self.executable = executable
    }

    /// The Unix permission bits written for this entry.
    package var mode: UInt32 {
        if case .directory = kind { return 0o755 }
        return executable ? 0o755 : 0o644
    }

    /// The entries of a folder tree, sorted by name, folders included, without git folders and
    /// the repositories nested in it; `prefix` is put in front of every name.
    /// - Throws: when the folder cannot be read or holds symbolic links or special files (which would not
    ///   archive reproducibly).
    package static func collect(directory: URL, prefix: String? = nil) throws -> [ArchiveEntry] {
        let fileManager = FileManager.default
        let root = directory.standardizedFileURL.path
        var entries: [ArchiveEntry] = []
        var problems: [any Error] = []
        let cleanedPrefix = prefix.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }.flatMap { $0.isEmpty ? nil : $0 }
        if let cleanedPrefix { entries.append(ArchiveEntry(name: cleanedPrefix, kind: .directory)) }
        guard let relativePaths = fileManager.subpaths(atPath: root) else {
            throw ShiplaneError("cannot read the folder \(root) to archive it")
        }
        // A git folder, and a submodule, nested clone or linked worktree below the folder (a folder
        // with a `.git` of its own), are other projects: never packed. Named itself, such a
        // folder is packed without its `.git`.
        let otherProjects = Set(relativePaths.filter { ($0 as NSString).lastPathComponent == ".git" }.map { ($0 as NSString).deletingLastPathComponent })
        func belongsToAnotherProject(_ relative: String) -> Bool {
            if relative == ".git" || relative.hasPrefix(".git/") { return true }
            return otherProjects.contains { !$0.isEmpty && (relative == $0 || relative.hasPrefix($0 + "/")) }
        }
        for relative in relativePaths where !belongsToAnotherProject(relative) {
            let full = root + "/" + relative
            let attributes = try fileManager.attributesOfItem(atPath: full)
            let name = cleanedPrefix.map { "\($0)/\(relative)" } ?? relative
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?:
                entries.append(ArchiveEntry(name: name, kind: .directory))
            case .typeRegular?:
                let permissions = (attributes[.posixPermissions] as? NSNumber)?.uint32Value ?? 0
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                entries.append(ArchiveEntry(name: name, kind: .file(path: full, size: size), executable: permissions & 0o111 != 0))
            default:
                problems.append(ShiplaneError("cannot archive \(full): only regular files and folders are supported"))
            }
        }
        if !problems.isEmpty {
            throw AggregateError("\(problems.count) item\(problems.count == 1 ? "" : "s") cannot be archived", errors: problems)
        }
        return sorted(entries)
    }

    /// Entries sorted by the bytes of their names, so the order never depends on the file system.
    package static func sorted(_ entries: [ArchiveEntry]) -> [ArchiveEntry] {
        entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
