import Foundation
internal import CLibgit2

/// Who left `index.lock` in a git folder. libgit2 writes the index as git does: the new index
/// goes to `index.lock`, renamed over `index` once whole. A process killed in between leaves
/// `index.lock`, and every later index write (git's, libgit2's) stops on it. Before each index
/// write the Git module leaves word of its process beside it (`shiplane-index-writer`: the pid
/// and, where the system says, the process's start), removed once the write is done; so a later
/// run tells a lock a dead Shiplane left (removed) from one another process holds (an error).
public enum IndexLockOwner {
    /// What was found.
    public enum Finding: Sendable, Equatable {
        /// No `index.lock`.
        case none
        /// A Shiplane process that is gone (this pid) left it while it wrote the index: stale.
        case deadShiplane(pid: Int32)
        /// A Shiplane process that is still running (this pid) is writing the index.
        case liveShiplane(pid: Int32)
        /// No Shiplane process left word of it: another program (a running `git`) holds it, or
        /// one that crashed left it.
        case foreign
    }

    /// The marker's name in the git folder.
    static let markerName = "shiplane-index-writer"

    /// The lock file of the index in `gitDirectory`.
    public static func lockPath(gitDirectory: String) -> String { gitDirectory + "/index.lock" }

    /// Whose `index.lock` is in `gitDirectory`.
    public static func inspect(gitDirectory: String) -> Finding {
        var info = stat()
        guard lstat(lockPath(gitDirectory: gitDirectory), &info) == 0 else { return .none }
        guard let text = try? String(contentsOfFile: gitDirectory + "/" + markerName, encoding: .utf8) else { return .foreign }
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count >= 2, words[0] == "pid", let pid = Int32(words[1]) else { return .foreign }
        let started = words.count >= 4 && words[2] == "started" ? words[3] : nil
        return isRunning(pid: pid, started: started) ? .liveShiplane(pid: pid) : .deadShiplane(pid: pid)
    }

    /// Removes a stale `index.lock` (and the marker) that `inspect` found a dead Shiplane left.
    /// - Returns: false when the finding is not that (nothing removed).
    public static func removeStale(gitDirectory: String) -> Bool {
        guard case .deadShiplane = inspect(gitDirectory: gitDirectory) else { return false }
        unlink(lockPath(gitDirectory: gitDirectory))
        unlink(gitDirectory + "/" + markerName)
        return true
    }

    /// True while the process `pid` runs and, when `started` is known, is the one that started then
    /// (not a later process given the same pid).
    static func isRunning(pid: Int32, started: String?) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let started, let now = startTime(of: pid) else { return true }
        return now == started
    }

    /// The start of process `pid` in clock ticks since boot (`/proc/PID/stat`, field 22) on
    /// Linux; nil elsewhere (macOS has no `/proc`): there the pid alone says whether the writer
    /// lives, so a later process given the same pid keeps the lock, an error naming the file.
    static func startTime(of pid: Int32) -> String? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.range(of: ")", options: .backwards) else { return nil }
        let fields = stat[close.upperBound...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
        #else
        return nil
        #endif
    }

    /// Writes this process's word to `path` (best effort: without it a lock this process left
    /// reads as another program's, an error rather than a removal).
    static func leaveWord(at path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        ownWord.withUnsafeBytes { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
        close(descriptor)
    }

    /// Removes a file, whatever is there.
    static func remove(_ path: String) { unlink(path) }

    /// This process's word, as the marker holds it.
    static let ownWord: [UInt8] = {
        let pid = getpid()
        return Array(("pid \(pid)" + (startTime(of: pid).map { " started \($0)" } ?? "") + "\n").utf8)
    }()
}

extension Repository {
    /// Runs `body`, which writes the index (`git_index_write`, a checkout), with this process's
    /// word beside the index (`IndexLockOwner`), removed after.
    func markingIndexWrite<T>(_ body: () throws -> T) rethrows -> T {
        let marker = gitDirectory + "/" + IndexLockOwner.markerName
        // Written in place, with no fsync and no temporary file: the word only has to outlive
        // this process, not the machine (`FileManager.createFile` writes atomically, which costs
        // a temporary file, an fsync and a rename on every index write: one of a bump's fsyncs).
        IndexLockOwner.leaveWord(at: marker)
        defer { IndexLockOwner.remove(marker) }
        return try body()
    }

    /// `git_index_write` of `index`, marked (`markingIndexWrite`).
    func writeIndex(_ index: OpaquePointer?, _ operation: String) throws {
        try markingIndexWrite { try check(git_index_write(index), operation) }
    }
}
