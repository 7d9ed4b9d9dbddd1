import Foundation

/// Reads entries of a zip file (an IPA or an AAB) without unpacking it: the central directory
/// and the one entry asked for are read, nothing else (an IPA can be gigabytes).
///
/// Written here rather than taken from ZIPFoundation: its zlib module is named `CZlib` like
/// Shiplane's own, and two modules of one name cannot be built together. Zip64 archives
/// (over 4 GiB or 65,535 entries) are read too.
struct ZipEntries {
    struct Entry {
        var path: String
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
    }

    let path: String
    let entries: [Entry]

    /// Reads the central directory.
    /// - Throws: `StorePackageError` when the file is missing, a folder, or not a zip.
    init(_ path: String) throws {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw StorePackageError(path: path, problem: "does not exist", suggestion: "build it first, or pass the path of the artifact")
        }
        guard !isFolder.boolValue else { throw StorePackageError(path: path, problem: "is a folder, not a zip archive") }
        guard let file = FileHandle(forReadingAtPath: path) else { throw StorePackageError(path: path, problem: "cannot be read") }
        defer { try? file.close() }
        let notZip = StorePackageError(path: path, problem: "is not a zip archive")
        do {
            let size = try file.seekToEnd()
            let tailLength = min(size, 22 + 65_535)
            let tail = try Self.read(file, at: size - tailLength, count: Int(tailLength))
            guard tail.count >= 22, let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { Self.u32(tail, $0) == 0x0605_4b50 }) else {
                throw notZip
            }
            var count = UInt64(Self.u16(tail, end + 10))
            var directorySize = UInt64(Self.u32(tail, end + 12))
            var directoryOffset = UInt64(Self.u32(tail, end + 16))
            if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
                // Zip64: the locator sits just before the end record and points at the zip64 end record.
                guard end >= 20, Self.u32(tail, end - 20) == 0x0706_4b50 else { throw notZip }
                let record = try Self.read(file, at: Self.u64(tail, end - 12), count: 56)
                guard record.count == 56, Self.u32(record, 0) == 0x0606_4b50 else { throw notZip }
                count = Self.u64(record, 32)
                directorySize = Self.u64(record, 40)
                directoryOffset = Self.u64(record, 48)
            }
            guard directorySize <= 256 << 20, directoryOffset + directorySize <= size else { throw notZip }
            let directory = try Self.read(file, at: directoryOffset, count: Int(directorySize))
            var entries: [Entry] = []
            var cursor = 0
            for _ in 0..<min(count, 10_000_000) {
                guard cursor + 46 <= directory.count, Self.u32(directory, cursor) == 0x0201_4b50 else { throw notZip }
                let nameLength = Int(Self.u16(directory, cursor + 28))
                let extraLength = Int(Self.u16(directory, cursor + 30))
                let commentLength = Int(Self.u16(directory, cursor + 32))
                let next = cursor + 46 + nameLength + extraLength + commentLength
                guard next <= directory.count else { throw notZip }
                var entry = Entry(
                    path: String(decoding: directory[(cursor + 46)..<(cursor + 46 + nameLength)], as: UTF8.self),
                    method: Self.u16(directory, cursor + 10), crc: Self.u32(directory, cursor + 16),
                    compressedSize: UInt64(Self.u32(directory, cursor + 20)), uncompressedSize: UInt64(Self.u32(directory, cursor + 24)),
                    localHeaderOffset: UInt64(Self.u32(directory, cursor + 42)))
                Self.applyZip64(Array(directory[(cursor + 46 + nameLength)..<(cursor + 46 + nameLength + extraLength)]), to: &entry)
                entries.append(entry)
                cursor = next
            }
            self.entries = entries
        } catch let error as StorePackageError {
            throw error
        } catch {
            throw StorePackageError(path: path, problem: "cannot be read as a zip archive (\(describe(error)))")
        }
    }

    /// The paths of every entry.
    static func paths(in path: String) throws -> [String] {
        try ZipEntries(path).entries.map(\.path)
    }

    /// The uncompressed bytes of one entry, at most `limit` bytes (Info.plist and manifests are small).
    static func contents(of entryPath: String, in path: String, limit: Int = 8 << 20) throws -> Data {
        let zip = try ZipEntries(path)
        guard let entry = zip.entries.first(where: { $0.path == entryPath }) else {
            throw StorePackageError(path: path, problem: "has no \(entryPath)")
        }
        return try zip.contents(of: entry, limit: limit)
    }

    func contents(of entry: Entry, limit: Int) throws -> Data {
        let corrupt = StorePackageError(path: path, problem: "\(entry.path) is corrupt in the zip")
        guard entry.uncompressedSize <= UInt64(limit), entry.compressedSize <= UInt64(limit) else {
            throw StorePackageError(path: path, problem: "\(entry.path) is larger than \(limit) bytes")
        }
        guard let file = FileHandle(forReadingAtPath: path) else { throw StorePackageError(path: path, problem: "cannot be read") }
        defer { try? file.close() }
        let header = try Self.read(file, at: entry.localHeaderOffset, count: 30)
        guard header.count == 30, Self.u32(header, 0) == 0x0403_4b50 else { throw corrupt }
        let dataOffset = entry.localHeaderOffset + 30 + UInt64(Self.u16(header, 26)) + UInt64(Self.u16(header, 28))
        let stored = try Self.read(file, at: dataOffset, count: Int(entry.compressedSize))
        guard stored.count == Int(entry.compressedSize) else { throw corrupt }
        let bytes: [UInt8]
        switch entry.method {
        case 0: bytes = stored
        case 8: bytes = try Inflate.raw(stored, expectedSize: Int(entry.uncompressedSize)) ?? { throw corrupt }()
        default: throw StorePackageError(path: path, problem: "\(entry.path) uses zip compression method \(entry.method), which Shiplane cannot read")
        }
        guard bytes.count == Int(entry.uncompressedSize), Inflate.crc32(bytes) == entry.crc else { throw corrupt }
        return Data(bytes)
    }

    // MARK: - Little-endian fields

    private static func applyZip64(_ extra: [UInt8], to entry: inout Entry) {
        var cursor = 0
        while cursor + 4 <= extra.count {
            let id = u16(extra, cursor), length = Int(u16(extra, cursor + 2))
            guard cursor + 4 + length <= extra.count else { return }
            if id == 0x0001 {
                var field = cursor + 4
                func next() -> UInt64? {
                    guard field + 8 <= cursor + 4 + length else { return nil }
                    defer { field += 8 }
                    return u64(extra, field)
                }
                if entry.uncompressedSize == 0xFFFF_FFFF, let value = next() { entry.uncompressedSize = value }
                if entry.compressedSize == 0xFFFF_FFFF, let value = next() { entry.compressedSize = value }
                if entry.localHeaderOffset == 0xFFFF_FFFF, let value = next() { entry.localHeaderOffset = value }
            }
            cursor += 4 + length
        }
    }

    private static func read(_ file: FileHandle, at offset: UInt64, count: Int) throws -> [UInt8] {
        try file.seek(toOffset: offset)
        return Array(try file.read(upToCount: count) ?? Data())
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16 }
    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(bytes, at)) | UInt64(u32(bytes, at + 4)) << 32 }
}
