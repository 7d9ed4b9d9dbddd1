import Dispatch
import Foundation
import Shiplane

/// SIGINT, SIGTERM and SIGHUP while `shiplane` compiles the lanes: noted instead of ending the
/// process, so the compile stops the compiler, removes its staging folder and reports an
/// interrupt (exit 130) — not a bare death by SIGTERM (143) or SIGHUP (129). The cache only ever
/// gains a folder by one rename of a finished build, so a stopped compile leaves it as it was.
final class CompileInterruptWatch: @unchecked Sendable {
    // @unchecked: `caught` and `sources` are only touched under `lock`.
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var caught = false

    /// Starts watching, when a compile starts (a cached run never does); `stop()` ends it.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard sources.isEmpty else { return }
        for number in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.withLock { self.caught = true }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True once a signal arrived.
    var interrupted: Bool { lock.withLock { caught } }

    /// Stops watching: the signals have their default action again.
    func stop() {
        let started = lock.withLock { () -> [DispatchSourceSignal] in
            defer { sources = [] }
            return sources
        }
        guard !started.isEmpty else { return }
        for source in started { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}

/// The lanes were being compiled when `shiplane` was interrupted: nothing ran.
struct CompileInterrupted: ReportableError {
    var message: String { "interrupted while compiling Lanes/: no lane ran, and the lane cache is as it was" }
    var suggestion: String? { "run the command again to compile and run the lanes" }
    var category: ErrorCategory { .interrupted }
}
