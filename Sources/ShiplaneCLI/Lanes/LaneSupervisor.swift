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
struct LaneSupervisor {
    let executable: String
    let arguments: [String]

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
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, nil, &attributes, &cArguments, environ)
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
