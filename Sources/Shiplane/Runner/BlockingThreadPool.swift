import Foundation

/// A task executor whose jobs run on threads that may block: a thread is started whenever every
/// thread it has is busy, and one that has had nothing to do for a while ends.
///
/// Lane code is ordinary Swift and calls synchronous APIs that wait: a history walk over a large
/// repository, libgit2, a lock, a `DispatchSemaphore`. On Swift's cooperative pool (one thread per
/// core: two on a 2-core runner) each such wait holds a thread that every HTTP call, timer and
/// stand-in handler of the process needs, and two of them stop the run. `LaneRunner` runs each lane
/// with this executor as its task executor preference, so the lane's code and its child tasks run
/// here and the cooperative pool stays free for the work that suspends.
@available(macOS 15.0, *)
package final class BlockingThreadPool: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `idle` and `threads` are read and written only while `condition` is locked.

    /// The threads lanes run on.
    package static let lanes = BlockingThreadPool(name: "shiplane-lane")

    /// The name each of the pool's threads carries (seen in `/proc/PID/task/*/comm` and debuggers).
    package let name: String
    /// How long a thread waits for work before it ends.
    private let idleTimeout: TimeInterval
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0
    private var idle = 0
    private var threads = 0

    /// Creates a pool whose threads are named `name` and end after `idleTimeout` seconds without work.
    package init(name: String, idleTimeout: TimeInterval = 20) {
        self.name = name
        self.idleTimeout = idleTimeout
    }

    /// The pool whose thread is the calling thread, if any.
    package static var ofCurrentThread: BlockingThreadPool? {
        guard let pointer = pthread_getspecific(threadKey) else { return nil }
        return Unmanaged<BlockingThreadPool>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The key under which each of a pool's threads holds its pool (unretained: a pool's threads
    /// hold the pool itself while they live).
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// How many threads the pool has now (for tests).
    package var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // Every job waiting must have a thread waiting for it: a woken thread still counts as idle
        // until it takes a job, and the jobs it will take are still in the queue.
        let startThread = idle < jobs.count - next
        if startThread { threads += 1 } else { condition.signal() }
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// One thread's life: run jobs as they come, end after `idleTimeout` with nothing to do.
    private func work() {
        Thread.current.name = name
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while next == jobs.count {
                idle += 1
                let woken = condition.wait(until: Date().addingTimeInterval(idleTimeout))
                idle -= 1
                if !woken && next == jobs.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs `body` with `BlockingThreadPool.lanes` as its task executor preference where the system has
/// task executors (Linux; macOS 15 and later), else as it is.
package func onLaneThreads<T>(_ body: () async -> T) async -> T {
    if #available(macOS 15.0, *) {
        return await withTaskExecutorPreference(BlockingThreadPool.lanes, operation: body)
    }
    return await body()
}
