import Foundation
internal import Crypto

/// SHA-256 (FIPS 180-4), incremental: the digest behind checksums files, asset digests and the
/// journal's file hashes.
///
/// A thin wrapper over swift-crypto's `SHA256` (BoringSSL, which uses the CPU's SHA extensions
/// where there are some), so the public API does not expose the crypto package. It replaced a
/// hand-written Swift implementation once swift-crypto became a dependency for the store uploads:
/// two implementations of one digest, the slower one on every checksum.
package struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    /// Starts an empty digest.
    package init() {}

    /// Adds bytes to the digest.
    package mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let copy = Array(bytes)
        copy.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    }

    /// The 32-byte digest of everything added.
    package func finalize() -> [UInt8] {
        Array(hasher.finalize())
    }

    /// The digest as lowercase hex.
    package func hexDigest() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The hex digest of some bytes.
    package static func hex<Bytes: Collection>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.hexDigest()
    }

    /// The hex digest of a file, read in chunks.
    /// - Throws: when the file cannot be opened or read.
    package static func hex(ofFile path: String, chunkSize: Int = 1 << 20) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ShiplaneError("cannot open \(path) to compute its checksum")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
            hasher.update(chunk)
        }
        return hasher.hexDigest()
    }
}
