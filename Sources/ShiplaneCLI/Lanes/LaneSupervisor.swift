import Dispatch
import Foundation
import Shiplane

/// Starts the compiled lane program as a child and outlives it.
///
/// `exec` would leave nobody to speak when the lane program dies: a trap (a force unwrap of nil,
/// an index out of range) would end the run with a bare signal and no report. The supervisor
/// starts the child in a process group of its own (made the terminal's foreground group when
/// there is a terminal, so Ctrl-C reaches the lane and its commands once, as a shell would do),
/// forwards SIGINT, SIGTERM and SIGHUP sent to `shiplane` itself, waits for the child, and turns
/// a death by signal into a reported error with a documented exit code: a crash is a defect
/// (70), a kill an interrupt (130).
///
/// The child's standard output and error come back through pipes and pass the secret redactor
/// before they reach the terminal, so what lane code prints (`print`, writes to stderr, a trap's
/// message) is redacted like everything Shiplane prints. The child is told whether the streams
/// are terminals (`SHIPLANE_STDOUT_IS_TERMINAL`, `SHIPLANE_STDERR_IS_TERMINAL`) to keep its colours.
struct LaneSupervisor {
    let executable: String
    let arguments: [String]
    var redactor = SecretRedactor()

    /// How the child ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Runs the child to its end.
    /// - Throws: `EnvironmentProblem` when it cannot be started.
    func run() throws -> Ending {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no blocked signals and default dispositions, whatever this
        // process inherited or set for itself.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var cArguments = argv + [nil]
        fflush(nil)

        // While the child runs, what is sent to this process is passed on to it.
        let forwardedSignals = [SIGINT, SIGTERM, SIGHUP]
        let forwarded = forwardedSignals.map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw EnvironmentProblem("could not start the compiled lanes: no pipe (\(String(cString: strerror(errno))))")
        }
        for descriptor in [outPipe[0], errPipe[0]] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, outPipe[1])
        posix_spawn_file_actions_addclose(&actions, errPipe[1])
        var environment = ProcessInfo.processInfo.environment
        environment["SHIPLANE_STDOUT_IS_TERMINAL"] = isatty(1) == 1 ? "1" : nil
        environment["SHIPLANE_STDERR_IS_TERMINAL"] = isatty(2) == 1 ? "1" : nil
        let environmentStrings = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { environmentStrings.forEach { free($0) } }
        var cEnvironment = environmentStrings + [nil]

        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &cArguments, &cEnvironment)
        close(outPipe[1])
        close(errPipe[1])
        let relays = [OutputRelay(from: outPipe[0], to: 1, redactor: redactor), OutputRelay(from: errPipe[0], to: 2, redactor: redactor)]
        defer { relays.forEach { $0.finish() } }
        guard spawned == 0 else {
            throw EnvironmentProblem(
                "could not start the compiled lanes at \(executable): \(String(cString: strerror(spawned)))",
                suggestion: "delete the lane cache folder and run again"
            )
        }
        let child = pid
        for (source, number) in zip(forwarded, forwardedSignals) {
            source.setEventHandler { kill(child, number) }
            source.resume()
        }
        defer { forwarded.forEach { $0.cancel() } }
        let terminal = ForegroundTerminal(handingTo: child)
        defer { terminal?.takeBack() }

        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 {
            guard errno == EINTR else {
                throw EnvironmentProblem("lost track of the lane program (pid \(child)): \(String(cString: strerror(errno)))")
            }
        }
        relays.forEach { $0.finish() }
        // The wait status: the low 7 bits are the signal that ended the process, 0 for an exit.
        let endingSignal = status & 0x7f
        return endingSignal == 0 ? .exited((status >> 8) & 0xff) : .signaled(endingSignal)
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

    static let crashSignals: Set<Int32> = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGSYS]

    var isCrash: Bool { Self.crashSignals.contains(signal) }

    var name: String {
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
        isCrash
            ? "the lane program crashed (\(name)): a Swift runtime trap, such as a force unwrap of nil or an index out of range"
            : "the lane program was stopped by \(name)"
    }

    /// True when the supervisor settled the run from its record (rolled back, or left resumable).
    var settled = false

    var info: [(key: String, value: String)] {
        settled ? [] : [("rollback", "the lane program could not roll back what it changed before it ended")]
    }

    var suggestion: String? {
        isCrash
            ? "the crash message above names the file and line; check `git status` and `git log` for what the run left, fix the lane (or report the defect), and run again"
            : "check `git status` and `git log` for what the run left, then run again"
    }

    var category: ErrorCategory { isCrash ? .defect : .interrupted }
}

/// Copies what a child writes to a pipe onto one of this process's streams, redacted: whole lines
/// as they come, and a partial line (a prompt, a progress bar) once the child pauses for 50 ms.
final class OutputRelay: @unchecked Sendable {
    // @unchecked: `stopping` is only touched under `lock`; the buffer belongs to the relay thread.
    private let source: Int32
    private let target: Int32
    private let redactor: SecretRedactor
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    init(from source: Int32, to target: Int32, redactor: SecretRedactor) {
        self.source = source
        self.target = target
        self.redactor = redactor
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Waits for the child's output to end (at most 2 s after the child: a command it left in the
    /// background may hold the pipe open), then stops. Safe to call more than once.
    func finish() {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        _ = done.wait(timeout: .now() + 2)
    }

    private func run() {
        defer {
            close(source)
            done.signal()
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var idleRounds = 0
        while true {
            var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                if !pending.isEmpty { emit(&pending, all: true) }
                idleRounds += 1
                if lock.withLock({ stopping }) && idleRounds > 40 { return }
                continue
            }
            idleRounds = 0
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                emit(&pending, all: true)
                return
            }
            pending.append(contentsOf: buffer[0..<count])
            emit(&pending, all: pending.count > 1 << 16)
        }
    }

    /// Writes the complete lines of `pending` (all of it with `all`), redacted, and keeps the rest.
    private func emit(_ pending: inout [UInt8], all: Bool) {
        let end = all ? pending.count : (pending.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
        guard end > 0 else { return }
        let text = redactor.redact(String(decoding: pending[0..<end], as: UTF8.self))
        pending.removeFirst(end)
        writeAll(Array(text.utf8), to: target)
    }
}
