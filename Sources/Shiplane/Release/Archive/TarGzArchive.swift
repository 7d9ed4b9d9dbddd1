import Foundation

/// Writes reproducible `.tar.gz` archives: POSIX ustar, sorted entries, fixed times, owners and modes.
///
/// Every entry gets uid/gid 0, empty owner names, the given modification time (0 or a
/// `SOURCE_DATE_EPOCH`) and mode 0644 or 0755. The gzip header carries mtime 0 and no file name, so
/// the same input always gives the same bytes.
package enum TarGzArchive {
    /// Writes `entries` (sorted here) to `destination`, atomically.
    /// - Throws: when a name does not fit ustar, a file changed size while archiving, or I/O fails.
    package static func write(entries: [ArchiveEntry], to destination: URL, modificationTime: Int = 0, compressionLevel: Int32 = 9) throws {
        let output = try ArchiveOutput(destination: destination)
        let gzip = try GzipWriter(output: output, level: compressionLevel)
        for entry in ArchiveEntry.sorted(entries) {
            try gzip.write(try header(for: entry, modificationTime: modificationTime))
            guard case let .file(path, size) = entry.kind else { continue }
            var written: Int64 = 0
            try forEachChunk(ofFile: path) { chunk in
                written += Int64(chunk.count)
                guard written <= size else { return }
                try gzip.write(chunk)
            }
            guard written == size else {
                throw ShiplaneError("\(path) changed size while it was archived", info: [("expected", "\(size)"), ("read", "\(written)")])
            }
            let padding = Int((512 - size % 512) % 512)
            try gzip.write([UInt8](repeating: 0, count: padding))
        }
        try gzip.write([UInt8](repeating: 0, count: 1024))
        try gzip.finish()
        try output.commit()
    }

    /// Archives a folder tree (see `ArchiveEntry.collect`).
    package static func write(directory: URL, prefix: String? = nil, to destination: URL, modificationTime: Int = 0) throws {
        try write(entries: try ArchiveEntry.collect(directory: directory, prefix: prefix), to: destination, modificationTime: modificationTime)
    }

    /// The 512-byte ustar header of one entry.
    static func header(for entry: ArchiveEntry, modificationTime: Int) throws -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        let isDirectory = entry.kind == .directory
        let fullName = isDirectory ? entry.name + "/" : entry.name
        let (prefix, name) = try splitName(fullName)
        func put(_ bytes: [UInt8], at offset: Int) { for (index, byte) in bytes.enumerated() { block[offset + index] = byte } }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        var size: Int64 = 0
        if case let .file(_, fileSize) = entry.kind { size = fileSize }
        guard size < 0o77777777777 else { throw ShiplaneError("\(entry.name) is too large for a ustar archive (8 GiB at most)") }
        put(Array(name.utf8), at: 0)
        put(octal(Int64(entry.mode), width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(Int64(max(0, modificationTime)), width: 12), at: 136)
        put([UInt8](repeating: 0x20, count: 8), at: 148)
        block[156] = isDirectory ? UInt8(ascii: "5") : UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0], at: 257)
        put(Array("00".utf8), at: 263)
        put(octal(0, width: 8), at: 329)
        put(octal(0, width: 8), at: 337)
        put(Array(prefix.utf8), at: 345)
        let checksum = block.reduce(0) { $0 + Int64($1) }
        put(Array((String(repeating: "0", count: max(0, 6 - String(checksum, radix: 8).count)) + String(checksum, radix: 8)).utf8) + [0, 0x20], at: 148)
        return block
    }

    /// Splits a path into ustar's prefix (≤155 bytes) and name (≤100 bytes) at a slash.
    static func splitName(_ path: String) throws -> (prefix: String, name: String) {
        let bytes = Array(path.utf8)
        if bytes.count <= 100 { return ("", path) }
        for index in bytes.indices.reversed() where bytes[index] == UInt8(ascii: "/") && index < bytes.count - 1 {
            let prefix = bytes[..<index], name = bytes[(index + 1)...]
            if prefix.count <= 155, name.count <= 100 {
                return (String(decoding: prefix, as: UTF8.self), String(decoding: name, as: UTF8.self))
            }
        }
        throw ShiplaneError("the path \(path) is too long for a ustar archive", suggestion: "shorten the file or folder names")
    }
}

/// Wraps raw deflate output in a gzip member with mtime 0, no file name and OS "unknown".
final class GzipWriter {
    private let output: ArchiveOutput
    private let deflater: DeflateStream
    private var crc = CRC32()
    private var length: UInt32 = 0

    init(output: ArchiveOutput, level: Int32) throws {
        self.output = output
        deflater = try DeflateStream(level: level)
        try output.write([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff])
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        crc.update(bytes)
        length = length &+ UInt32(truncatingIfNeeded: bytes.count)
        try deflater.compress(bytes, finish: false) { try output.write($0) }
    }

    func finish() throws {
        try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { try output.write($0) }
        var trailer: [UInt8] = []
        trailer.appendLittleEndian(crc.value)
        trailer.appendLittleEndian(length)
        try output.write(trailer)
    }
}
