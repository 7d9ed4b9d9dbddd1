import Foundation

/// A buffered writer to a temporary file that is renamed over the destination only when complete.
final class ArchiveOutput {
    let destination: URL
    let temporary: URL
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private(set) var offset: UInt64 = 0
    private var committed = false

    /// - Throws: when the temporary file cannot be created next to `destination`.
    init(destination: URL) throws {
        self.destination = destination
        let folder = destination.deletingLastPathComponent()
        temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw ShiplaneError("cannot create \(temporary.path)", suggestion: "check that \(folder.path) exists and is writable")
        }
        self.handle = handle
        buffer.reserveCapacity(1 << 20)
    }

    deinit {
        try? handle.close()
        if !committed { try? FileManager.default.removeItem(at: temporary) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: bytes)
        offset += UInt64(bytes.count)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Overwrites bytes already written at `position` (used to patch zip headers).
    func patch(_ bytes: [UInt8], at position: UInt64) throws {
        try flush()
        try handle.seek(toOffset: position)
        try handle.write(contentsOf: bytes)
        try handle.seekToEnd()
    }

    /// Flushes, syncs and renames the temporary file over the destination.
    func commit() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
        try atomicRename(temporary, over: destination)
        committed = true
    }
}

/// Renames `source` over `destination` in one step (POSIX `rename`), replacing any file there.
/// - Throws: `ShiplaneError` with the system's reason.
func atomicRename(_ source: URL, over destination: URL) throws {
    guard rename(source.path, destination.path) == 0 else {
        let reason = String(cString: strerror(errno))
        throw ShiplaneError("cannot move \(source.path) to \(destination.path)", info: [("reason", reason)])
    }
}

/// Reads a file in chunks and hands each to `body`.
func forEachChunk(ofFile path: String, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw ShiplaneError("cannot open \(path) to archive it") }
    defer { try? handle.close() }
    while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
        try chunk.withUnsafeBytes { try body($0) }
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
