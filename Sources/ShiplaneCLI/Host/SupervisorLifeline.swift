import Foundation

/// Ties the lane program's life to its supervisor's: when `shiplane` dies (`kill -9`, a CI
/// runner killing it, the OOM killer), the lane program is killed too, instead of carrying on the
/// release with no one to relay its output or settle its end.
///
/// The lane program dies by SIGKILL, exactly as when both were killed: the run's record stays,
/// and the next `shiplane` in the repository settles it (the same command resumes or rolls back,
/// `shiplane rollback` undoes it). The supervisor names itself in `SHIPLANE_SUPERVISOR_PID`; a
/// lane program started any other way (`SHIPLANE_NO_SUPERVISOR=1`, the catalog query) is not tied.
enum SupervisorLifeline {
    /// The variable that carries the supervisor's pid to the lane program.
    static let variable = "SHIPLANE_SUPERVISOR_PID"

    /// Arranges for this process to be killed when the supervisor named in the environment dies,
    /// and removes the variable so that commands the lane starts do not inherit it. Kills this
    /// process at once when the supervisor is already gone. Returns the supervisor's pid, nil
    /// when this process was not started by one.
    static func hold() -> pid_t? {
        guard let value = getenv(variable), let supervisor = pid_t(String(cString: value)), supervisor > 1 else { return nil }
        unsetenv(variable)
        #if os(Linux)
        // `prctl` is variadic in C, so Swift's Glibc module leaves it out; it reads its arguments
        // as unsigned longs, which Linux's x86_64 and arm64 calling conventions pass in the same
        // registers whether the call is variadic or not. PR_SET_PDEATHSIG is 1 (linux/prctl.h).
        // The kernel sends the signal when the thread that started this process ends: the
        // supervisor starts it and waits for it on one thread (`LaneSupervisor.run`).
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        if let symbol = dlsym(nil, "prctl") {
            _ = unsafeBitCast(symbol, to: Prctl.self)(1, UInt(SIGKILL), 0, 0, 0)
        }
        #elseif canImport(Darwin)
        watchExit(of: supervisor)
        #endif
        // The supervisor may have died before the line above took effect: this process then
        // already has another parent (init, or a subreaper).
        if getppid() != supervisor { kill(getpid(), SIGKILL) }
        return supervisor
    }

    #if canImport(Darwin)
    /// macOS has no parent-death signal: a kqueue reports the supervisor's exit to a thread that
    /// then kills this process.
    private static func watchExit(of supervisor: pid_t) {
        let queue = kqueue()
        guard queue >= 0 else { return }
        var change = kevent(
            ident: UInt(supervisor), filter: Int16(EVFILT_PROC), flags: UInt16(EV_ADD | EV_ONESHOT),
            fflags: UInt32(NOTE_EXIT), data: 0, udata: nil
        )
        guard Darwin.kevent(queue, &change, 1, nil, 0, nil) == 0 else {
            // ESRCH: the supervisor is already gone.
            if errno == ESRCH { kill(getpid(), SIGKILL) }
            close(queue)
            return
        }
        Thread.detachNewThread {
            var event = kevent()
            while Darwin.kevent(queue, nil, 0, &event, 1, nil) == -1 && errno == EINTR {}
            kill(getpid(), SIGKILL)
        }
    }
    #endif
}
