import Foundation

/// Reads and writes files; in a dry run writes land in an overlay so later steps see them.
public protocol FileSystem: Sendable {
    /// The file's bytes, or nil when there is no such file.
    func contents(of path: String) throws -> Data?
    /// Replaces the file's bytes atomically, keeping its permissions.
    func write(_ data: Data, to path: String) throws
    /// Removes the file; nothing happens when it does not exist.
    func remove(_ path: String) throws
}

/// The real file system; writes go to a temporary file in the same folder, then a rename.
public struct LiveFileSystem: FileSystem {
    public init() {}

    public func contents(of path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    public func write(_ data: Data, to path: String) throws {
        try writeAtomically(data, to: path)
    }

    public func remove(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }
}

/// Writes `data` to `path` through a temporary file in the same folder and a rename, keeping the
/// old file's permissions; a symbolic link is followed (its target is replaced), not replaced.
public func writeAtomically(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    let path = url.path
    let folder = url.deletingLastPathComponent().path
    let temporary = folder + "/.\(url.lastPathComponent).shiplane-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let manager = FileManager.default
    let mode = (try? manager.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber
    guard manager.createFile(atPath: temporary, contents: data) else {
        throw ShiplaneError(
            "could not write \(path)", info: [("temporary file", temporary)],
            suggestion: "check that the folder exists and is writable"
        )
    }
    do {
        if let mode { try manager.setAttributes([.posixPermissions: mode], ofItemAtPath: temporary) }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            throw ShiplaneError("could not replace \(path): \(reason)")
        }
    } catch {
        try? manager.removeItem(atPath: temporary)
        throw error
    }
}

/// A dry run's file system: reads fall through to the base, writes are kept in memory.
public final class OverlayFileSystem: FileSystem, @unchecked Sendable {
    private let base: any FileSystem
    private let lock = NSLock()
    private var overlay: [String: Data?] = [:]
    private var order: [String] = []

    public init(base: any FileSystem) {
        self.base = base
    }

    public func contents(of path: String) throws -> Data? {
        lock.lock()
        let entry = overlay[path]
        lock.unlock()
        if let entry { return entry }
        return try base.contents(of: path)
    }

    public func write(_ data: Data, to path: String) throws {
        record(path, data)
    }

    public func remove(_ path: String) throws {
        record(path, nil)
    }

    private func record(_ path: String, _ data: Data?) {
        lock.lock()
        if overlay[path] == nil { order.append(path) }
        overlay[path] = .some(data)
        lock.unlock()
    }

    /// The files a real run would have written (nil data: removed), in first-write order.
    public var plannedWrites: [(path: String, data: Data?)] {
        lock.lock()
        defer { lock.unlock() }
        return order.map { ($0, overlay[$0] ?? nil) }
    }
}
