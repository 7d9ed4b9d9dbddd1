import Foundation

/// The time a lane program has to end after an interrupt: once it is over, the program's process
/// group is killed (SIGKILL), so a lane blocked in a synchronous call (`sleep(30)`, a blocking
/// read) cannot hold the run — the supervisor then settles it from its record.
final class GracePeriod: @unchecked Sendable {
    // @unchecked: `interrupt` and `ended` are only touched under `lock`.
    private let group: pid_t
    private let seconds: TimeInterval
    private let lock = NSLock()
    private var interrupt: Int32?
    private var ended = false

    init(group: pid_t, seconds: TimeInterval) {
        self.group = group
        self.seconds = seconds
    }

    /// Starts the grace period after `signal`, unless one is already running; a later signal
    /// does not make it longer or shorter.
    func begin(after signal: Int32) {
        let first = lock.withLock { () -> Bool in
            guard interrupt == nil, !ended else { return false }
            interrupt = signal
            return true
        }
        guard first else { return }
        let group = self.group, deadline = Date().addingTimeInterval(seconds)
        // A thread of its own: the shared pool may be busy, and the kill must not be late.
        Thread.detachNewThread { [self] in
            while Date() < deadline, !lock.withLock({ ended }) { usleep(20_000) }
            lock.withLock {
                // Checked under the lock that `childEnded` takes: once the supervisor has noted
                // the program's end, its group id (which could be reused) is not signalled.
                if !ended { kill(-group, SIGKILL) }
            }
        }
    }

    /// Marks the lane program reaped; returns the interrupt that started the grace, if any.
    func childEnded() -> Int32? {
        lock.withLock {
            ended = true
            return interrupt
        }
    }
}
