import Foundation

/// Writes reproducible `.zip` archives: sorted entries, one fixed DOS timestamp, Unix modes 0644/0755.
package enum ZipArchive {
    /// How file contents are stored.
    package enum Compression: Sendable { /** `stored`: the bytes as they are; `deflated`: compressed with deflate. */ case stored, deflated }

    /// Writes `entries` (sorted here) to `destination`, atomically.
    /// - Parameters:
    ///   - entries: the files and folders to archive, with their names inside the archive.
    ///   - destination: the archive file to write.
    ///   - compression: deflate (the default) or store the contents.
    ///   - modificationTime: seconds since 1970 (UTC) for every entry; clamped to 1980, zip's epoch.
    ///   - compressionLevel: zlib's level for deflated entries, 0–9.
    /// - Throws: when an entry exceeds zip's 4 GiB limits, a file changed size, or I/O fails.
    package static func write(entries: [ArchiveEntry], to destination: URL, compression: Compression = .deflated,
                             modificationTime: Int = 0, compressionLevel: Int32 = 9) throws {
        let output = try ArchiveOutput(destination: destination)
        let (dosTime, dosDate) = dosTimestamp(modificationTime)
        var central: [UInt8] = []
        var count = 0
        for entry in ArchiveEntry.sorted(entries) {
            count += 1
            let isDirectory = entry.kind == .directory
            let name = Array((isDirectory ? entry.name + "/" : entry.name).utf8)
            let method: UInt16 = (isDirectory || compression == .stored) ? 0 : 8
            let flags: UInt16 = name.allSatisfy { $0 < 0x80 } ? 0 : 0x0800
            let headerOffset = output.offset
            guard headerOffset < UInt64(UInt32.max) else { throw tooLarge(destination) }
            var local: [UInt8] = []
            local.appendLittleEndian(UInt32(0x0403_4b50))
            local.appendLittleEndian(UInt16(20))
            local.appendLittleEndian(flags)
            local.appendLittleEndian(method)
            local.appendLittleEndian(dosTime)
            local.appendLittleEndian(dosDate)
            local.append(contentsOf: [UInt8](repeating: 0, count: 12))  // crc and sizes, patched below
            local.appendLittleEndian(UInt16(name.count))
            local.appendLittleEndian(UInt16(0))
            local += name
            try output.write(local)

            var crc = CRC32()
            var uncompressed: UInt64 = 0
            let dataStart = output.offset
            if case let .file(path, size) = entry.kind {
                let deflater = method == 8 ? try DeflateStream(level: compressionLevel) : nil
                try forEachChunk(ofFile: path) { chunk in
                    crc.update(chunk)
                    uncompressed += UInt64(chunk.count)
                    if let deflater {
                        try deflater.compress(chunk, finish: false) { try output.write($0) }
                    } else {
                        try output.write(chunk)
                    }
                }
                if let deflater {
                    try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { try output.write($0) }
                }
                guard uncompressed == UInt64(size) else { throw ShiplaneError("\(path) changed size while it was archived") }
            }
            let compressed = output.offset - dataStart
            guard compressed < UInt64(UInt32.max), uncompressed < UInt64(UInt32.max) else { throw tooLarge(destination) }
            var sizes: [UInt8] = []
            sizes.appendLittleEndian(crc.value)
            sizes.appendLittleEndian(UInt32(compressed))
            sizes.appendLittleEndian(UInt32(uncompressed))
            try output.patch(sizes, at: headerOffset + 14)

            let unixMode: UInt32 = (isDirectory ? 0o040000 : 0o100000) | entry.mode
            central.appendLittleEndian(UInt32(0x0201_4b50))
            central.appendLittleEndian(UInt16(0x0314))  // made by Unix, spec 2.0
            central.appendLittleEndian(UInt16(20))
            central.appendLittleEndian(flags)
            central.appendLittleEndian(method)
            central.appendLittleEndian(dosTime)
            central.appendLittleEndian(dosDate)
            central += sizes
            central.appendLittleEndian(UInt16(name.count))
            central.appendLittleEndian(UInt16(0))  // extra
            central.appendLittleEndian(UInt16(0))  // comment
            central.appendLittleEndian(UInt16(0))  // disk
            central.appendLittleEndian(UInt16(0))  // internal attributes
            central.appendLittleEndian(unixMode << 16 | (isDirectory ? 0x10 : 0))
            central.appendLittleEndian(UInt32(headerOffset))
            central += name
        }
        guard count < 0xffff else { throw tooLarge(destination) }
        let centralOffset = output.offset
        try output.write(central)
        var end: [UInt8] = []
        end.appendLittleEndian(UInt32(0x0605_4b50))
        end.appendLittleEndian(UInt16(0))
        end.appendLittleEndian(UInt16(0))
        end.appendLittleEndian(UInt16(count))
        end.appendLittleEndian(UInt16(count))
        end.appendLittleEndian(UInt32(central.count))
        end.appendLittleEndian(UInt32(truncatingIfNeeded: centralOffset))
        end.appendLittleEndian(UInt16(0))
        try output.write(end)
        try output.commit()
    }

    /// Archives a folder tree (see `ArchiveEntry.collect`).
    package static func write(directory: URL, prefix: String? = nil, to destination: URL, compression: Compression = .deflated,
                             modificationTime: Int = 0) throws {
        try write(entries: try ArchiveEntry.collect(directory: directory, prefix: prefix), to: destination,
                  compression: compression, modificationTime: modificationTime)
    }

    /// MS-DOS time and date fields for a Unix time, in UTC, no earlier than 1980-01-01.
    static func dosTimestamp(_ seconds: Int) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        guard let year = parts.year, year >= 1980, year <= 2107 else { return (0, UInt16(1 << 5 | 1)) }
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        let date = UInt16((year - 1980) << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        return (time, date)
    }

    private static func tooLarge(_ destination: URL) -> ShiplaneError {
        ShiplaneError("\(destination.lastPathComponent) would exceed the zip format's 4 GiB / 65,535 entry limits",
                      suggestion: "use a .tar.gz archive for this content")
    }
}
