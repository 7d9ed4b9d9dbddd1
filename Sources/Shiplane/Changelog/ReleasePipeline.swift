import Foundation

/// Reads a whole history's releases on a thread of its own while the caller parses and renders
/// them: the walk (object reads, history order) and the rest (conventional-commit parsing,
/// Markdown or JSON, output) overlap on two cores instead of taking turns.
///
/// At most `capacity` releases wait between the two, so memory stays bounded however long the
/// history. When the caller stops early (an error while rendering), the reading thread is told to
/// stop at its next release and is waited for before `forEach` returns: the repository is never
/// used after the caller is done with it.
struct ReleasePipeline {
    private let history: ChangelogHistory
    private let capacity: Int

    init(history: ChangelogHistory, capacity: Int = 8) {
        self.history = history
        self.capacity = max(1, capacity)
    }

    /// Calls `body` with each release of `.all`, newest first, in the order `eachRelease` gives.
    /// - Throws: what reading the history or `body` throws.
    func forEach(_ body: (ChangelogRelease) throws -> Void) throws {
        let channel = Channel(capacity: capacity)
        // Only the reading thread touches the history (and its libgit2 handles) until `finished`
        // is signalled, and this function waits for that before returning.
        let reader = UncheckedBox(history)
        let thread = Thread {
            do {
                try reader.value.eachRelease(.all, title: nil, parsingMessages: false) { release in
                    guard channel.put(release) else { throw Channel.Stopped() }
                }
                channel.finish(nil)
            } catch is Channel.Stopped {
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
        defer {
            channel.stop()
            channel.waitUntilFinished()
        }
        while var release = try channel.take() {
            release.commits = release.commits.map { $0.parsed() }
            try body(release)
        }
    }

    /// A bounded queue between one writer and one reader, with an end that may carry an error.
    private final class Channel: @unchecked Sendable {
        // @unchecked: every field is read and written with `condition` locked.
        struct Stopped: Error {}

        private let condition = NSCondition()
        private var queue: [ChangelogRelease] = []
        private var head = 0
        private let capacity: Int
        private var isFinished = false
        private var isStopped = false
        private var failure: (any Error)?

        init(capacity: Int) { self.capacity = capacity }

        /// Waits for room; false when the reader stopped and the writer should end.
        func put(_ release: ChangelogRelease) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while queue.count - head >= capacity && !isStopped { condition.wait() }
            guard !isStopped else { return false }
            queue.append(release)
            condition.broadcast()
            return true
        }

        /// The next release, nil at the end; rethrows the writer's error at the end.
        func take() throws -> ChangelogRelease? {
            condition.lock()
            defer { condition.unlock() }
            while head == queue.count && !isFinished { condition.wait() }
            if head < queue.count {
                let release = queue[head]
                head += 1
                if head > 64 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                condition.broadcast()
                return release
            }
            if let failure { throw failure }
            return nil
        }

        func finish(_ error: (any Error)?) {
            condition.lock()
            failure = error
            isFinished = true
            condition.broadcast()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            isStopped = true
            condition.broadcast()
            condition.unlock()
        }

        func waitUntilFinished() {
            condition.lock()
            while !isFinished { condition.wait() }
            condition.unlock()
        }
    }
}

/// Carries a value that is not `Sendable` to another thread; the caller guarantees the two never
/// use it at the same time (see `ReleasePipeline.forEach`).
private struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: the one caller hands the value over and never touches it again meanwhile.
    let value: Value
    init(_ value: Value) { self.value = value }
}
