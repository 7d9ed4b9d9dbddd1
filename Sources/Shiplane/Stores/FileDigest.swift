import Foundation
internal import Crypto

/// Digests of a file read from disk in chunks (never loaded whole).
enum FileDigest {
    /// Lowercase hex SHA-256 and MD5 of the file, in one pass.
    /// - Throws: `StorePackageError` when the file cannot be read.
    static func sha256AndMD5(of path: String, chunkSize: Int = 4 << 20) throws -> (sha256: String, md5: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StorePackageError(path: path, problem: "cannot be read")
        }
        defer { try? handle.close() }
        var sha = Crypto.SHA256()
        var md5 = Insecure.MD5()
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw StorePackageError(path: path, problem: "cannot be read (\(error))")
            }
            if chunk.isEmpty { break }
            sha.update(data: chunk)
            md5.update(data: chunk)
        }
        return (hex(sha.finalize()), hex(md5.finalize()))
    }

    static func hex<Digest: Sequence>(_ digest: Digest) -> String where Digest.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
