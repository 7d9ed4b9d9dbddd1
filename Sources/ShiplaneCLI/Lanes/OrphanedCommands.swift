import Foundation

/// Commands the lane program started and left behind when it died. Each command runs in a process
/// group of its own, so killing the lane program alone (SIGKILL, a crash, `exit()` in lane code)
/// would leave them running — a `sh("deploy")` going on while the run is rolled back. On Linux the
/// supervisor is their subreaper: orphaned, they become its children, and it stops them (SIGTERM
/// to each one's group, SIGKILL after `grace` seconds) before it settles the run. Elsewhere they
/// are left to the lane program's own handling of interrupts.
enum OrphanedCommands {
    /// Makes this process the reaper of the orphans among its descendants (Linux).
    static func adopt() {
        #if os(Linux)
        // `prctl` is variadic in C (see `SupervisorLifeline`); PR_SET_CHILD_SUBREAPER is 36.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        if let symbol = dlsym(nil, "prctl") { _ = unsafeBitCast(symbol, to: Prctl.self)(36, 1, 0, 0, 0) }
        #endif
    }

    /// The processes whose parent is this one now, except `except`.
    static func children(except: Set<pid_t> = []) -> [pid_t] {
        #if os(Linux)
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap(pid_t.init).filter { pid in
            guard !except.contains(pid), let fields = statFields(of: pid), fields.count > 1 else { return false }
            return pid_t(fields[1]) == me
        }
        #else
        return []
        #endif
    }

    /// The fields of `/proc/PID/stat` after the name ("state ppid pgrp …"; the name may hold
    /// spaces and parentheses), nil when there is no such process (or no `/proc`).
    static func statFields(of pid: pid_t) -> [Substring]? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
        #else
        return nil
        #endif
    }

    /// True when `pid` has ended: no such process, or one that died and waits to be reaped (a
    /// zombie answers `kill(pid, 0)` as if alive).
    static func hasEnded(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        return statFields(of: pid)?.first == "Z"
    }

    /// Stops every orphaned command and what it started, and reaps them. Returns how many there were.
    @discardableResult
    static func stop(grace: Double = 3) -> Int {
        let orphans = children()
        guard !orphans.isEmpty else { return 0 }
        let groups = Set(orphans.map { getpgid($0) }.filter { $0 > 1 && $0 != getpgrp() })
        for group in groups { kill(-group, SIGTERM) }
        for pid in orphans where !groups.contains(getpgid(pid)) { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        var left = Set(orphans)
        while !left.isEmpty {
            for pid in left {
                var status: Int32 = 0
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid || (reaped == -1 && errno == ECHILD) { left.remove(pid) }
            }
            // Their own children, orphaned in turn, are this process's now too.
            for pid in children(except: left) { left.insert(pid) }
            if left.isEmpty { break }
            if Date() >= deadline {
                for pid in left {
                    let group = getpgid(pid)
                    if group > 1 && group != getpgrp() { kill(-group, SIGKILL) }
                    kill(pid, SIGKILL)
                }
                for pid in left { var status: Int32 = 0; _ = waitpid(pid, &status, 0) }
                break
            }
            usleep(20_000)
        }
        return orphans.count
    }
}
