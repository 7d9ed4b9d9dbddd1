import Dispatch
import Foundation
import Shiplane

/// Starts the compiled lane program as a child and outlives it.
///
/// `exec` would leave nobody to speak when the lane program dies: a trap (a force unwrap of nil,
/// an index out of range) would end the run with a bare signal and no report. The supervisor
/// starts the child in a process group of its own (made the terminal's foreground group when
/// there is a terminal, so Ctrl-C reaches the lane program once, as a shell would do, and it
/// stops its commands), forwards SIGINT, SIGTERM and SIGHUP sent to `shiplane` itself, waits for
/// the child, and turns a death by signal into a reported error with a documented exit code: a
/// crash is a defect (70), a kill an interrupt (130). A child still running `stopGrace` seconds
/// after the first interrupt is killed (`GracePeriod`), and the child dies when the supervisor
/// dies (`SupervisorLifeline`).
///
/// The child's standard output and error come back through pipes and pass the secret redactor
/// before they reach the terminal, so what lane code prints (`print`, writes to stderr, a trap's
/// message) is redacted like everything Shiplane prints. The child is told whether the streams
/// are terminals (`SHIPLANE_STDOUT_IS_TERMINAL`, `SHIPLANE_STDERR_IS_TERMINAL`) to keep its colours.
struct LaneSupervisor {
    let executable: String
    let arguments: [String]
    var redactor = SecretRedactor()
    /// What the session resolved once (the `.env` variables), handed to the lane program.
    var shared = SharedSession(dotEnv: [:])

    /// Seconds the lane program has to end after an interrupt before it is killed (README,
    /// "Interrupts and CI cancellation"): enough for a run to roll itself back, short enough to
    /// settle the run before a CI runner's own SIGKILL (GitHub Actions: 7.5 s after SIGINT).
    static let stopGrace: TimeInterval = 5

    /// What the lane program sends `shiplane` when an interrupt reached it and not `shiplane`
    /// (Ctrl-C at a terminal goes to the lane program's foreground group): the grace starts.
    static let interruptedSignal = SIGUSR1

    /// How the child ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// It did not end within `stopGrace` of this interrupt, and was killed (SIGKILL).
        case killedAfterGrace(Int32)
    }

    /// Runs the child to its end; returns how it ended and its process id (which its run record names).
    /// - Throws: `EnvironmentProblem` when it cannot be started.
    /// - Returns: how the program ended, its pid, and whether it printed a crash message (the Swift
    ///   runtime's `Fatal error: …` or a backtrace) on its standard error before it died.
    func run() throws -> (ending: Ending, child: pid_t, printedCrashMessage: Bool) {
        // While the child runs, what is sent to this process is passed on to it; the first
        // interrupt also starts the grace period.
        let forwardedSignals = [SIGINT, SIGTERM, SIGHUP]
        let sources = (forwardedSignals + [Self.interruptedSignal]).map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        let outPipe: (read: Int32, write: Int32), errPipe: (read: Int32, write: Int32)
        do {
            outPipe = try SpawnedProcess.makePipe()
            errPipe = try SpawnedProcess.makePipe()
        } catch {
            throw EnvironmentProblem("could not start the compiled lanes: \(describe(error))")
        }
        var environment = ProcessEnvironment.current()
        environment["SHIPLANE_STDOUT_IS_TERMINAL"] = isatty(1) == 1 ? "1" : nil
        environment["SHIPLANE_STDERR_IS_TERMINAL"] = isatty(2) == 1 ? "1" : nil
        environment[SupervisorLifeline.variable] = String(getpid())
        let channel: SessionChannel
        do {
            channel = try SessionChannel()
        } catch {
            throw EnvironmentProblem("could not start the compiled lanes: \(describe(error))")
        }
        environment.merge(channel.environment) { $1 }

        OrphanedCommands.adopt()
        // A lane program that dies before it reads the session must not take this process with
        // it: writing to its pipe then fails with EPIPE instead of raising SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        fflush(nil)
        // Started and waited for on this one thread: on Linux the lane program's parent-death
        // signal (`SupervisorLifeline`) fires when the thread that started it ends. The child
        // starts with nothing blocked, default signal actions and a process group of its own.
        // Not a `Result`: its metadata checks `Failure: Error` at run time, a scan of every
        // protocol conformance of the program on every lane's start.
        var spawned: SpawnedProcess?
        var spawnFailure: (any Error)?
        do {
            spawned = try SpawnedProcess.spawn(
                path: executable, arguments: arguments, environment: environment, workingDirectory: nil,
                standardInput: STDIN_FILENO, standardOutput: outPipe.write, standardError: errPipe.write,
                inherited: channel.inherited
            )
        } catch {
            spawnFailure = error
        }
        close(outPipe.write)
        close(errPipe.write)
        channel.started(sharing: shared)
        // One thread relays both streams (a thread less to start on every lane's start).
        let relay = OutputRelay(streams: [(outPipe.read, 1), (errPipe.read, 2)], redactor: redactor, secrets: channel)
        defer {
            relay.finish()
            channel.finish()
        }
        guard let child = spawned else {
            throw EnvironmentProblem(
                "could not start the compiled lanes at \(spawnFailure.map { "\($0)" } ?? executable)",
                suggestion: "delete the lane cache folder and run again"
            )
        }
        let stopping = GracePeriod(group: child.pid, seconds: Self.stopGrace)
        for (source, number) in zip(sources, forwardedSignals + [Self.interruptedSignal]) {
            let forwarded = number == Self.interruptedSignal ? nil : number
            source.setEventHandler {
                if let forwarded { kill(child.pid, forwarded) }
                stopping.begin(after: forwarded ?? SIGINT)
            }
            source.resume()
        }
        defer { sources.forEach { $0.cancel() } }
        let terminal = ForegroundTerminal(handingTo: child.pid)
        defer { terminal?.takeBack() }

        let ending = child.wait()
        let interrupt = stopping.childEnded()
        // Killed, the lane program could not stop the commands it had started: they are stopped
        // here, before the run is settled (and before their output ends the relays).
        if case .signaled = ending { OrphanedCommands.stop() }
        relay.finish()
        let printedCrashMessage = relay.printedCrashMessage
        if ending == .signaled(SIGKILL), let interrupt { return (.killedAfterGrace(interrupt), child.pid, printedCrashMessage) }
        switch ending {
        case .exited(let code): return (.exited(code), child.pid, printedCrashMessage)
        case .signaled(let signal): return (.signaled(signal), child.pid, printedCrashMessage)
        case .lost(let error):
            throw EnvironmentProblem("lost track of the lane program (pid \(child.pid)): \(String(cString: strerror(error)))")
        }
    }
}

/// The controlling terminal's foreground process group, lent to the lane program while it runs.
struct ForegroundTerminal {
    private let ownGroup: pid_t

    /// Makes `child`'s group the foreground group when standard input is this process's terminal.
    init?(handingTo child: pid_t) {
        guard isatty(STDIN_FILENO) == 1, tcgetpgrp(STDIN_FILENO) == getpgrp() else { return nil }
        ownGroup = getpgrp()
        // A background group that changes the terminal gets SIGTTOU; this process is about to be one.
        signal(SIGTTOU, SIG_IGN)
        guard tcsetpgrp(STDIN_FILENO, child) == 0 else { return nil }
        // Had the child touched the terminal in the moment before it owned it, it was stopped
        // (SIGTTIN/SIGTTOU): let it go on.
        kill(-child, SIGCONT)
    }

    /// Gives the terminal back to `shiplane`'s own group.
    func takeBack() {
        tcsetpgrp(STDIN_FILENO, ownGroup)
    }
}

/// The lane program died of a signal.
struct LaneProgramDied: ReportableError {
    var signal: Int32
    /// Whether the program printed a crash message (`Fatal error: …`, a backtrace) before it died.
    var printedCrashMessage = false

    static let crashSignals: Set<Int32> = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGSYS]

    var isCrash: Bool { Self.crashSignals.contains(signal) }

    var name: String { Self.name(of: signal) }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGFPE: "SIGFPE"
        case SIGSYS: "SIGSYS"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    var message: String {
        if let ignoredInterrupt {
            return "the lane program did not stop within \(formatSeconds(LaneSupervisor.stopGrace)) of \(Self.name(of: ignoredInterrupt)) (lane code blocked), so it was killed (SIGKILL)"
        }
        return isCrash
            ? "the lane program crashed (\(name)): a Swift runtime trap, such as a force unwrap of nil or an index out of range"
            : "the lane program was stopped by \(name)"
    }

    /// True when the supervisor settled the run from its record (rolled back, or left resumable).
    var settled = false

    /// The interrupt the lane program did not end within the grace period of; it was then killed.
    var ignoredInterrupt: Int32?

    var info: [(key: String, value: String)] {
        settled ? [] : [("rollback", "the lane program could not roll back what it changed before it ended")]
    }

    var suggestion: String? {
        guard isCrash else { return "check `git status` and `git log` for what the run left, then run again" }
        return printedCrashMessage
            ? "the crash message above names the file and line; check `git status` and `git log` for what the run left, fix the lane (or report the defect), and run again"
            : "it printed no crash message; run it again with SWIFT_BACKTRACE=enable=yes for a backtrace (a static lane program also needs swift-backtrace=PATH, the toolchain's usr/libexec/swift/linux/swift-backtrace-static), check `git status` and `git log` for what the run left, and report the defect with that output"
    }

    var category: ErrorCategory { isCrash ? .defect : .interrupted }
}

/// Copies what a child writes to pipes onto this process's streams, redacted: whole lines as they
/// come, and a partial line (a prompt, a progress bar) once the child pauses for 50 ms. One
/// thread serves every stream it is given (standard output and error: one `poll` for both).
final class OutputRelay: @unchecked Sendable {
    // @unchecked: `stopping` is only touched under `lock`; the buffers belong to the relay thread.
    private let streams: [(source: Int32, target: Int32)]
    private let redactor: SecretRedactor
    /// Where the lane program sends secrets that become known while it runs.
    private let secrets: SessionChannel?
    private let lock = NSLock()
    private var stopping = false
    private var sawCrashMessage = false
    private let done = DispatchSemaphore(value: 0)

    /// True once the child wrote the Swift runtime's crash report (`Fatal error:`, a backtrace's
    /// `Program crashed:`) to its standard error.
    var printedCrashMessage: Bool { lock.withLock { sawCrashMessage } }

    init(streams: [(source: Int32, target: Int32)], redactor: SecretRedactor, secrets: SessionChannel? = nil) {
        self.streams = streams
        self.redactor = redactor
        self.secrets = secrets
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Waits for the child's output to end (at most 2 s after the child: a command it left in the
    /// background may hold a pipe open), then stops. Safe to call more than once.
    func finish() {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        _ = done.wait(timeout: .now() + 2)
    }

    private func run() {
        var open = streams.map { _ in true }
        var pending: [[UInt8]] = streams.map { _ in [] }
        defer {
            for (index, stream) in streams.enumerated() where open[index] { close(stream.source) }
            done.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var idleRounds = 0
        while open.contains(true) {
            var pollers = streams.enumerated().map { index, stream in
                pollfd(fd: open[index] ? stream.source : -1, events: Int16(POLLIN), revents: 0)
            }
            let ready = poll(&pollers, nfds_t(pollers.count), 50)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 {
                for index in streams.indices where !pending[index].isEmpty { emit(&pending[index], to: streams[index].target, all: true) }
                idleRounds += 1
                if lock.withLock({ stopping }) && idleRounds > 40 { return }
                continue
            }
            idleRounds = 0
            for (index, stream) in streams.enumerated() where open[index] && pollers[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(stream.source, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    emit(&pending[index], to: stream.target, all: true)
                    close(stream.source)
                    open[index] = false
                    continue
                }
                pending[index].append(contentsOf: buffer[0..<count])
                emit(&pending[index], to: stream.target, all: pending[index].count > 1 << 16)
            }
        }
    }

    /// Writes the complete lines of `pending` (all of it with `all`) to `target`, redacted, and
    /// keeps the rest.
    private func emit(_ pending: inout [UInt8], to target: Int32, all: Bool) {
        let end = all ? pending.count : (pending.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
        guard end > 0 else { return }
        // A secret the lane registered before printing is in its channel by now: take it first.
        secrets?.drainSecrets()
        let text = redactor.redact(String(decoding: pending[0..<end], as: UTF8.self))
        pending.removeFirst(end)
        if target == STDERR_FILENO, text.contains("Fatal error") || text.contains("Program crashed") {
            lock.withLock { sawCrashMessage = true }
        }
        writeAll(Array(text.utf8), to: target)
    }
}
