import Foundation

/// A child process started with `posix_spawn`: no blocked signals, the default action for the
/// signals Shiplane handles, and a process group of its own.
///
/// Foundation's `Process` cannot do this: its children inherit the blocked-signal mask of the
/// thread that starts them, and Dispatch's threads block nearly every signal, so a command started
/// from lane code never saw SIGINT, SIGTERM or SIGHUP (`SigBlk: fffffffe3bfbea27`) and every stop
/// waited for SIGKILL. Shells unblock signals themselves, which hid this for `sh -c` commands.
/// The group lets one `kill(-pid, …)` reach what the command started too (`sh -c` children).
package struct SpawnedProcess: Sendable {
    /// The child's pid, which is also its process group's id.
    package let pid: pid_t

    /// Seconds between SIGTERM and SIGKILL when a command is stopped (README: "sh").
    package static let stopGrace: TimeInterval = 3

    /// The signals the child gets with their default action, whatever this process does with them.
    static let signalsReset: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD]

    /// How a child ended.
    package enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// `waitpid` failed with this `errno`: something else reaped the child (SIGCHLD ignored).
        case lost(Int32)

        /// The exit code, the signal number for a death by signal, -1 when lost.
        package var code: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            case .lost: -1
            }
        }

        /// True for a death by signal.
        package var bySignal: Bool {
            if case .signaled = self { return true }
            return false
        }
    }

    /// Starts `path` with `arguments` (not including the program name) and exactly `environment`.
    /// The descriptors are the child's standard input, output and error; `inherited` maps more of
    /// this process's descriptors to the child's (source → number in the child, which must not be
    /// another source's number). None are closed here.
    /// - Throws: `SpawnFailure` with `posix_spawn`'s error.
    package static func spawn(
        path: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        standardInput: Int32, standardOutput: Int32, standardError: Int32, inherited: [(source: Int32, target: Int32)] = []
    ) throws -> SpawnedProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in signalsReset { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        for descriptor in inherited { posix_spawn_file_actions_adddup2(&actions, descriptor.source, descriptor.target) }
        // Nothing else this process has open reaches the child: a descriptor it inherited without
        // close-on-exec (a CI runner's pipe) or one opened by another thread a moment ago would
        // otherwise outlive it in every command, holding pipes open after the lane ends.
        let closeFrom = (inherited.map(\.target) + [2]).max().map { $0 + 1 } ?? 3
        let closesOthers = SpawnDescriptors.closeAll(from: closeFrom, in: &actions)

        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
        if !closesOthers { flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT) }
        #else
        _ = closesOthers
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var program = path
        var words = [path] + arguments
        if let workingDirectory {
            if !SpawnDirectory.add(workingDirectory, to: &actions) {
                // A C library without `posix_spawn_file_actions_addchdir_np` (glibc before 2.29):
                // a shell changes the folder and then becomes the command.
                program = "/bin/sh"
                words = ["/bin/sh", "-c", #"cd -- "$0" && shift && exec "$@""#, workingDirectory, path] + arguments
            }
        }

        let argv = words.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var cArguments = argv + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { variables.forEach { free($0) } }
        var cEnvironment = variables + [nil]

        var pid = pid_t()
        let result = posix_spawn(&pid, program, &actions, &attributes, &cArguments, &cEnvironment)
        guard result == 0 else { throw SpawnFailure(path: path, reason: String(cString: strerror(result))) }
        return SpawnedProcess(pid: pid)
    }

    /// Waits for the child to end and reaps it (blocking this thread).
    package func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .lost(errno) }
        }
        return Self.termination(status)
    }

    /// Waits for the child to end, checking `shouldStop` every 50 ms; once it says so, the child
    /// is stopped (`stop()`) and waited for.
    package func wait(stoppingWhen shouldStop: () -> Bool) -> Termination {
        var status: Int32 = 0
        var stopping = false
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return Self.termination(status) }
            if reaped == -1 && errno != EINTR { return .lost(errno) }
            if !stopping && shouldStop() {
                stopping = true
                stop()
            }
            usleep(50_000)
        }
    }

    /// SIGTERM to the child's process group, then SIGKILL `stopGrace` seconds later (on a thread
    /// of its own) to what is left of the group: a grandchild may outlive the command.
    package func stop() {
        if kill(-pid, SIGTERM) != 0 { kill(pid, SIGTERM) }
        let pid = self.pid
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(Self.stopGrace)
            // Polls the group: signal 0 only asks whether any member is left.
            while Date() < deadline, kill(-pid, 0) == 0 { usleep(50_000) }
            if kill(-pid, 0) == 0 { kill(-pid, SIGKILL) }
        }
    }

    /// A pipe whose two ends are closed in every program this process starts, so another command
    /// started at the same moment does not hold it open. (A command started in the instant
    /// between `pipe` and `fcntl` still could: Swift's Glibc module has no `pipe2`.)
    /// - Throws: `SpawnFailure` when there are no descriptors left.
    package static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnFailure(path: "pipe", reason: String(cString: strerror(errno))) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Reads a descriptor to its end, handing each chunk to `chunk`.
    package static func readAll(_ descriptor: Int32, _ chunk: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            chunk(Data(buffer[0..<count]))
        }
    }

    /// Decodes a wait status: the low 7 bits are the signal that ended the process, 0 for an exit.
    package static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}

/// `posix_spawn` refused to start a program.
package struct SpawnFailure: Error, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// Starting a child in another folder without changing this process's own.
private enum SpawnDirectory {
    /// Adds a `chdir` to the spawn's actions; false when the C library cannot.
    static func add(_ folder: String, to actions: inout posix_spawn_file_actions_t) -> Bool {
        #if canImport(Darwin)
        return posix_spawn_file_actions_addchdir_np(&actions, folder) == 0
        #else
        // Swift's Glibc module does not export it (it is a GNU extension): found by its symbol.
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return false }
        let addChdir = unsafeBitCast(symbol, to: AddChdir.self)
        return addChdir(&actions, folder) == 0
        #endif
    }
}

private enum SpawnDescriptors {
    /// Closes every descriptor from `lowest` up in the child; false when the C library cannot
    /// (macOS then uses `POSIX_SPAWN_CLOEXEC_DEFAULT`; glibc before 2.34 leaves them).
    static func closeAll(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        #if canImport(Darwin)
        return false
        #else
        // A GNU extension (glibc 2.34) that Swift's Glibc module does not export: found by its symbol.
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return false }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest) == 0
        #endif
    }
}
