internal import Crypto
import Foundation

/// The MD5 of a file body computed from the bytes as they are read to be sent: one read of the
/// file serves both the upload and its checksum, and the checksum is of exactly the bytes that
/// went out.
///
/// It may continue the MD5 of earlier parts of the same file (`continuing`), so the parts of a
/// multi-part upload, sent one after the other, give the whole file's digest. Each attempt at
/// sending the body starts again from that state (`beginAttempt`), so a retried part is counted
/// once; only an attempt that read its body to the end leaves a result (`completed`).
package final class BodyDigest: @unchecked Sendable {
    // @unchecked: `attempt` and `end` are only touched under `lock`; `start` never changes.
    private let lock = NSLock()
    private let start: Insecure.MD5
    private var attempt = 0
    private var end: Insecure.MD5?

    /// A digest of a body that starts at the beginning of its file.
    package convenience init() { self.init(continuing: Insecure.MD5()) }

    /// A digest that goes on from `start`, the state after the bytes before this body.
    init(continuing start: Insecure.MD5) { self.start = start }

    /// Starts an attempt at reading the body: forgets any earlier result and returns the
    /// attempt's number and the state to update as the bytes are read.
    func beginAttempt() -> (number: Int, state: Insecure.MD5) {
        lock.withLock {
            attempt += 1
            end = nil
            return (attempt, start)
        }
    }

    /// Records the state after the last byte of attempt `number`; an attempt that a later one
    /// replaced leaves nothing.
    func complete(attempt number: Int, _ state: Insecure.MD5) {
        lock.withLock { if number == attempt { end = state } }
    }

    /// The state after the last attempt's last byte, or nil when no attempt has read the body to its end.
    var completed: Insecure.MD5? { lock.withLock { end } }

    /// Records a body that was sent whole from memory (a sender that does not stream, such as a
    /// test's recorder).
    package func record(wholeBody bytes: [UInt8]) {
        let (number, state) = beginAttempt()
        var md5 = state
        md5.update(data: bytes)
        complete(attempt: number, md5)
    }

    /// The lowercase hex MD5 of everything the completed attempt read, after `continuing`'s
    /// bytes; nil when no attempt has read the body to its end.
    package var hex: String? { completed.map(Self.hex) }

    static func hex(_ state: Insecure.MD5) -> String {
        state.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
