import Foundation
internal import Crypto

/// The SHA-256 of a file read from disk in chunks (never loaded whole).
enum FileDigest {
    /// Lowercase hex SHA-256 of the file; stops early (throwing `CancellationError`) once `isCancelled` says so.
    /// One buffer of `chunkSize` bytes is read into again and again: nothing is allocated per chunk.
    /// - Throws: `StorePackageError` when the file cannot be read.
    static func sha256(of path: String, chunkSize: Int = 1 << 20, isCancelled: () -> Bool = { false }) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StorePackageError(path: path, problem: "cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var sha = Crypto.SHA256()
        var buffer = [UInt8](repeating: 0, count: max(1, chunkSize))
        while true {
            if isCancelled() { throw CancellationError() }
            let count = buffer.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress, raw.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorePackageError(path: path, problem: "cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { sha.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return sha.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Starts hashing the file on a thread of its own (it reads and computes for a while, so it
    /// stays off the cooperative pool), to run alongside an upload of the same file.
    ///
    /// The thread runs at the lowest priority: the checksum is only needed once every part has
    /// gone up, so where cores are short (a 2-core runner, a fast link) the upload takes them
    /// first and the digest finishes in what is left; where the link is the limit, the digest
    /// is done long before the last part.
    static func startSHA256(of path: String) -> BackgroundDigest {
        let digest = BackgroundDigest()
        let thread = Thread {
            yieldToOtherThreads()
            digest.finish(Result { try sha256(of: path, isCancelled: { digest.isCancelled }) })
        }
        thread.name = "shiplane-sha256"
        thread.start()
        return digest
    }

    /// A digest already known (read by the package check just before): nothing is read again.
    static func known(_ sha256: String) -> BackgroundDigest {
        let digest = BackgroundDigest()
        digest.finish(.success(sha256))
        return digest
    }

    /// Gives the calling thread the lowest scheduling priority.
    static func yieldToOtherThreads() {
        #if os(Linux)
        // On Linux a nice value belongs to a thread, and `who` 0 is the calling thread: this
        // one only, not the process.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #else
        Thread.current.qualityOfService = .background
        #endif
    }
}

/// A SHA-256 being computed in the background: await `value`, or `cancel()` it.
final class BackgroundDigest: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`.
    private let lock = NSLock()
    private var result: Result<String, any Error>?
    private var waiter: CheckedContinuation<String, any Error>?
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() { lock.withLock { cancelled = true } }

    func finish(_ outcome: Result<String, any Error>) {
        let continuation: CheckedContinuation<String, any Error>? = lock.withLock {
            result = outcome
            defer { waiter = nil }
            return waiter
        }
        continuation?.resume(with: outcome)
    }

    var value: String {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<String, any Error>? = lock.withLock {
                    if result == nil { waiter = continuation }
                    return result
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
