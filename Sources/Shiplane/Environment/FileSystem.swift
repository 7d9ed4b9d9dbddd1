import Foundation

/// What is at a path, without following a final symbolic link.
public enum FileKind: String, Sendable, Equatable {
    /// A regular file, a folder, a symbolic link, or anything else (a socket, a device).
    case file, folder, symbolicLink, other
}

/// Reads and writes files; in a dry run writes land in an overlay so later steps see them.
///
/// Every action reaches the disk through this protocol (the lane's `fileSystem`), so a dry run
/// touches nothing and a test can substitute its own.
public protocol FileSystem: Sendable {
    /// The file's bytes, or nil when there is no such file.
    func contents(of path: String) throws -> Data?
    /// Replaces the file's bytes atomically, keeping its permissions.
    func write(_ data: Data, to path: String) throws
    /// Removes the file (or an empty folder); nothing happens when it does not exist.
    func remove(_ path: String) throws
    /// What is at `path`, or nil when nothing is.
    func kind(of path: String) -> FileKind?
    /// The names in a folder, sorted; empty when it does not exist.
    func list(_ folder: String) throws -> [String]
    /// Creates a folder and any missing parents; returns the folders it created, outermost first.
    @discardableResult
    func createFolder(_ path: String) throws -> [String]
    /// Copies a file's bytes to `destination`, atomically.
    func copy(_ source: String, to destination: String) throws
}

extension FileSystem {
    /// True when `path` is a regular file (a link is not followed).
    public func isFile(_ path: String) -> Bool { kind(of: path) == .file }
    /// True when `path` is a folder (a link is not followed).
    public func isFolder(_ path: String) -> Bool { kind(of: path) == .folder }
}

/// The real file system; writes go to a temporary file in the same folder, then a rename.
package struct LiveFileSystem: FileSystem {
    /// Creates the real file system.
    package init() {}

    /// The file's bytes read from disk, or nil when nothing exists at `path`.
    package func contents(of path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Writes through `writeAtomically`: a temporary file in the same folder, then a rename.
    package func write(_ data: Data, to path: String) throws {
        try writeAtomically(data, to: path)
    }

    /// Unlinks a file or link; removes a folder only when it is empty.
    package func remove(_ path: String) throws {
        switch kind(of: path) {
        case nil:
            return
        case .folder:
            // rmdir, not removeItem: a folder goes only when it is empty, never with what is in it.
            guard rmdir(path) == 0 else {
                throw ShiplaneError("cannot remove the folder \(path): \(String(cString: strerror(errno)))")
            }
        default:
            guard unlink(path) == 0 else {
                throw ShiplaneError("cannot remove \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// What `lstat` finds at `path`, or nil when nothing is there.
    package func kind(of path: String) -> FileKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// The folder's entries, sorted; empty when `folder` is not a folder.
    package func list(_ folder: String) throws -> [String] {
        guard kind(of: folder) == .folder else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// Creates the missing folders and returns them, outermost first; empty when the folder exists.
    @discardableResult
    package func createFolder(_ path: String) throws -> [String] {
        let missing = Self.missingFolders(path) { kind(of: $0) }
        guard !missing.isEmpty else { return [] }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return missing
    }

    /// Copies the bytes through an atomic write.
    package func copy(_ source: String, to destination: String) throws {
        guard let data = try contents(of: source) else {
            throw ShiplaneError("cannot copy \(source): there is no such file")
        }
        try writeAtomically(data, to: destination)
    }

    /// The folders `createFolder(path)` would create, outermost first.
    static func missingFolders(_ path: String, kind: (String) -> FileKind?) -> [String] {
        var missing: [String] = []
        var current = (path as NSString).standardizingPath
        while !current.isEmpty, current != "/", kind(current) == nil {
            missing.insert(current, at: 0)
            current = (current as NSString).deletingLastPathComponent
        }
        return missing
    }
}

/// The whole content of the file at `path`; nil when it cannot be opened or read (missing, a
/// folder, no permission), as `FileManager.contents(atPath:)` says. By `open` and `read`: a
/// missing file costs Foundation an error value built and thrown inside (a run record looked for
/// on every lane's start).
package func readWholeFile(_ path: String) -> Data? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { return nil }
    var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
    var filled = 0
    while true {
        if filled == bytes.count { bytes += [UInt8](repeating: 0, count: max(bytes.count, 4096)) }
        let count = bytes.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return read(descriptor, base + filled, buffer.count - filled)
        }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if count == 0 { break }
        filled += count
    }
    return Data(bytes[0..<filled])
}

/// `path` with every symbolic link and `.`/`..` resolved by the C library (`realpath`); nil when
/// it does not exist. Not `URL.resolvingSymlinksInPath()`: its first use costs a statically linked
/// program a scan of every protocol conformance, which a cached lane's start must not pay.
package func resolvedPath(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
}

/// Writes `data` to `path` through a temporary file in the same folder (`.NAME.shiplane-PID-N`,
/// which rollback and resume remove if a kill leaves one), fsync and a rename, keeping the old
/// file's permissions; a symbolic link is followed (its target is replaced), not replaced.
package func writeAtomically(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    let path = url.path
    let folder = url.deletingLastPathComponent().path
    let temporary = folder + "/.\(url.lastPathComponent).shiplane-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    var info = stat()
    let exists = stat(path, &info) == 0
    // A rename over a device (`/dev/full`), a pipe or a folder would replace it, not write to it.
    if exists, info.st_mode & S_IFMT != S_IFREG {
        throw ShiplaneError("could not write \(path): it is not a file (a device, a pipe, a socket or a folder)", suggestion: "give the path of a file")
    }
    let mode = exists ? info.st_mode & 0o7777 : 0o644
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
    guard descriptor >= 0 else {
        throw ShiplaneError(
            "could not write \(path): \(String(cString: strerror(errno)))", info: [("temporary file", temporary)],
            suggestion: "check that the folder exists and is writable"
        )
    }
    var failure = writeAll(data, to: descriptor) ? nil : String(cString: strerror(errno))
    if failure == nil, fchmod(descriptor, mode_t(mode)) != 0 || fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
    close(descriptor)
    if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
        unlink(temporary)
        throw ShiplaneError("could not replace \(path): \(failure)", suggestion: "check that the disk has room and the folder is writable")
    }
}

/// Writes every byte to a file descriptor, retrying short writes and interrupts.
/// - Returns: false on an error (then `errno` says which).
@discardableResult
package func writeAll<Bytes: ContiguousBytes>(_ bytes: Bytes, to descriptor: Int32) -> Bool {
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let count = write(descriptor, base + offset, buffer.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }
}

/// A dry run's file system: reads fall through to the base, writes are kept in memory.
package final class OverlayFileSystem: FileSystem, @unchecked Sendable {
    // @unchecked: every stored property is either immutable or guarded by `lock`.
    private let base: any FileSystem
    private let lock = NSLock()
    private var overlay: [String: Data?] = [:]
    private var folders: Set<String> = []
    private var order: [String] = []

    /// Creates an overlay over `base`, which it reads but never writes.
    package init(base: any FileSystem) {
        self.base = base
    }

    /// The overlay's bytes for `path`, if a write or removal is pending there, else the base's.
    package func contents(of path: String) throws -> Data? {
        let entry = lock.withLock { overlay[path] }
        if let entry { return entry }
        return try base.contents(of: path)
    }

    /// Keeps the bytes in memory; the base is not touched.
    package func write(_ data: Data, to path: String) throws {
        record(path, data)
    }

    /// Records the removal in memory; later reads see no file.
    package func remove(_ path: String) throws {
        record(path, nil)
    }

    /// What the overlay has at `path` (a pending file or folder), else what the base has.
    package func kind(of path: String) -> FileKind? {
        let (entry, folder) = lock.withLock { (overlay[path], folders.contains(path)) }
        if let entry { return entry == nil ? nil : .file }
        if folder { return .folder }
        return base.kind(of: path)
    }

    /// The base's entries with the overlay's writes, removals and folders applied, sorted.
    package func list(_ folder: String) throws -> [String] {
        var names = Set(try base.list(folder))
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        lock.withLock {
            for (path, data) in overlay where path.hasPrefix(prefix) && !path.dropFirst(prefix.count).contains("/") {
                let name = String(path.dropFirst(prefix.count))
                if data == nil { names.remove(name) } else { names.insert(name) }
            }
            for path in folders where path.hasPrefix(prefix) && !path.dropFirst(prefix.count).contains("/") {
                names.insert(String(path.dropFirst(prefix.count)))
            }
        }
        return names.sorted()
    }

    /// Records the folders that are missing, in memory, and returns them outermost first.
    @discardableResult
    package func createFolder(_ path: String) throws -> [String] {
        let missing = LiveFileSystem.missingFolders(path) { kind(of: $0) }
        lock.withLock { folders.formUnion(missing) }
        return missing
    }

    /// Records a copy of the source's bytes (as the overlay sees them) in memory.
    package func copy(_ source: String, to destination: String) throws {
        guard let data = try contents(of: source) else {
            throw ShiplaneError("cannot copy \(source): there is no such file")
        }
        record(destination, data)
    }

    private func record(_ path: String, _ data: Data?) {
        lock.withLock {
            if overlay[path] == nil { order.append(path) }
            overlay[path] = .some(data)
        }
    }

    /// The files a real run would have written (nil data: removed), in first-write order.
    package var plannedWrites: [(path: String, data: Data?)] {
        lock.withLock { order.map { ($0, overlay[$0] ?? nil) } }
    }

    /// The folders a real run would have created, sorted.
    package var plannedFolders: [String] {
        lock.withLock { folders.sorted() }
    }
}
