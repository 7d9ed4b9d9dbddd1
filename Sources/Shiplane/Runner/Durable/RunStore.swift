import Foundation

/// The run folder of a repository (`.git/shiplane/`, shared by all its worktrees): the lock that
/// keeps runs one at a time, the record of the current run, and saved copies of replaced files.
package final class RunStore: @unchecked Sendable {
    // @unchecked: `lockDescriptor` is set while holding the lock only, by the one owning process;
    // `logDescriptor` is only touched under `logLock`.
    /// The run folder.
    package let folder: String
    private var lockDescriptor: Int32 = -1
    /// The record's log, open for appending once its first line is written (`save`); -1 before.
    private var logDescriptor: Int32 = -1
    private let logLock = NSLock()
    /// Under `logLock`: saved copies written since the last write that waited for the disk, open
    /// (their bytes are synced in that write's group, before the record's, and the descriptor closed).
    private var unsyncedCopies: [Int32] = []
    /// Under `logLock`: true when this run made the saved folder and the run folder (its name) is
    /// not synced since.
    private var savedFolderIsNew = false
    /// Under `logLock`: the saved copies this process wrote (`FaultInjection`'s `after-saved-copy`).
    private var copiesWritten = 0
    /// How many appends waited for the disk (their own `fsync`), for the tests.
    package private(set) var appendsWaitedFor = 0
    /// How many `fsync` calls the record and its saved copies made, for the tests.
    package private(set) var syncs = 0

    /// Creates the store of a run folder; nothing is created on disk until it is needed.
    package init(folder: String) {
        self.folder = folder
    }

    /// The run folder of the repository whose work tree is `root`: `shiplane/` in the git folder
    /// all worktrees share (the common dir).
    package static func forWorkTree(_ root: String) throws -> RunStore {
        RunStore(folder: try commonGitDirectory(ofWorkTree: root) + "/shiplane")
    }

    var recordPath: String { folder + "/run.json" }
    var lockPath: String { folder + "/lock" }
    var savedFolder: String { folder + "/saved" }

    // MARK: - The lock

    /// Takes the repository's run lock, or says who holds it.
    ///
    /// The lock is an `flock` on `lock` in the run folder: the kernel lets go of it when the holding
    /// process dies any way at all, so a lock is never stale; a record whose process is gone is an
    /// interrupted run.
    /// - Throws: `RunLocked` when another process holds it.
    package func lock(holder: RunRecord? = nil) throws {
        guard lockDescriptor < 0 else { return }
        try createFolder(folder)
        // Readable by its owner only (a lock an older Shiplane made readable by all is narrowed).
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ShiplaneError("could not open the run lock \(lockPath): \(String(cString: strerror(errno)))",
                                suggestion: "check that the repository's git folder is writable")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            close(descriptor)
            throw RunLocked(holder: holderOfLock() ?? (try? load()), lockPath: lockPath)
        }
        lockDescriptor = descriptor
        fchmod(descriptor, 0o600)
        removeLeftTemporaryFiles()
        // Who holds it, for the message a second run shows (no fsync: it only informs).
        if let holder {
            let data = Self.holderJSON(holder)
            ftruncate(descriptor, 0)
            _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    /// A run just begun as the lock file holds it: JSON that `decoder` reads as that record
    /// (`startedAt` to the second, as `encoder` writes it) without its arguments — the lock file
    /// outlives the run, and an argument may be a secret. Written by hand: `JSONEncoder`'s first
    /// use (and its ISO 8601 dates) costs more than the rest of an empty lane's start, in lookups of
    /// protocol conformances a 100 MB static program pays for on every start.
    package static func holderJSON(_ record: RunRecord) -> [UInt8] {
        var out: [UInt8] = []
        func string(_ value: String) {
            out.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    out += [UInt8(ascii: "\\"), byte]
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0x09: out += Array("\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        func key(_ name: String) {
            out.append(out.count == 1 ? UInt8(ascii: " ") : UInt8(ascii: ","))
            string(name)
            out.append(UInt8(ascii: ":"))
        }
        out.append(UInt8(ascii: "{"))
        key("arguments")
        out += Array("[]".utf8)
        key("effects"); out += Array("[]".utf8)
        key("host"); string(record.host)
        key("id"); string(record.id)
        key("lane"); string(record.lane)
        key("pid"); out += Array(String(record.pid).utf8)
        key("resumes"); out += Array(String(record.resumes).utf8)
        key("startedAt"); string(iso8601(record.startedAt))
        key("state"); string(record.state.rawValue)
        key("steps"); out += Array("[]".utf8)
        key("workTree"); string(record.workTree)
        out += Array("}\n".utf8)
        return out
    }

    /// `date` as `JSONEncoder`'s `.iso8601` writes it: UTC, to the second (`2026-11-26T08:15:02Z`).
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// The run the lock file says holds the lock, if it says.
    private func holderOfLock() -> RunRecord? {
        guard let data = readWholeFile(lockPath), !data.isEmpty else { return nil }
        return try? Self.decoder.decode(RunRecord.self, from: data)
    }

    /// Removes what writes of processes that are gone left (`run.json.tmp-PID`, a saved copy's
    /// `.tmp-PID`: a kill between writing and renaming). Called holding the lock.
    private func removeLeftTemporaryFiles() {
        for folder in [folder, savedFolder] {
            // Listed with readdir and matched without Foundation: the start of every run (`ProcessEnvironment`).
            for name in ProcessEnvironment.names(in: folder) ?? [] {
                guard let pid = Self.temporaryFileOwner(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
                unlink(folder + "/" + name)
            }
        }
    }

    /// The pid at the end of a temporary file's name (`NAME.tmp-PID`, the last `.tmp-` in it).
    static func temporaryFileOwner(_ name: String) -> Int32? {
        let marker = Array(".tmp-".utf8)
        let bytes = Array(name.utf8)
        guard bytes.count > marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count, through: 0, by: -1) where bytes[start..<start + marker.count].elementsEqual(marker) {
            return Int32(String(decoding: bytes[(start + marker.count)...], as: UTF8.self))
        }
        return nil
    }

    /// Lets go of the lock (also done by the kernel when the process ends).
    package func unlock() {
        guard lockDescriptor >= 0 else { return }
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
        lockDescriptor = -1
    }

    /// True when some process holds the lock now (this one included).
    package var isLocked: Bool {
        if lockDescriptor >= 0 { return true }
        let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return true
    }

    // MARK: - The record

    /// The record of the current or last unfinished run, or nil when there is none.
    ///
    /// The file is a log (`RecordChange`): the record's first line, then one line per change,
    /// replayed in order. A last line without its newline is a write a crash cut short: nothing
    /// acted on it (a change is acted on only once its line is synced), so it is left out. A
    /// record an earlier Shiplane wrote whole (one pretty-printed document) is read as it is.
    package func load() throws -> RunRecord? {
        guard let data = readWholeFile(recordPath) else { return nil }
        do {
            return try Self.replay(data)
        } catch {
            throw ShiplaneError(
                "the run record \(recordPath) cannot be read: \(describe(error))",
                suggestion: "look at it, then delete it (and \(savedFolder)) if no release is in progress"
            )
        }
    }

    /// The record a log's bytes hold (see `load`).
    static func replay(_ data: Data) throws -> RunRecord {
        let newline = UInt8(ascii: "\n")
        guard let firstEnd = data.firstIndex(of: newline), firstEnd > data.startIndex,
              var record = try? decoder.decode(RunRecord.self, from: data[data.startIndex..<firstEnd]) else {
            // An earlier Shiplane's record: one document over many lines.
            return try decoder.decode(RunRecord.self, from: data)
        }
        var start = data.index(after: firstEnd)
        var line = 2
        while let end = data[start...].firstIndex(of: newline) {
            if end > start {
                do {
                    try record.apply(try decoder.decode(RecordChange.self, from: data[start..<end]))
                } catch {
                    throw ShiplaneError("line \(line) of the record: \(describe(error))")
                }
            }
            start = data.index(after: end)
            line += 1
        }
        return record
    }

    /// Writes the whole record durably as a log of one line (temporary file, fsync, rename, fsync
    /// of the folder), with every secret `redactor` knows (and those registered while the run
    /// goes, and token shapes) redacted: no secret is on disk in clear. A step result that held
    /// one is left out, so a resume runs its step again, reading the secret from the environment
    /// again. Later changes are appended to it (`append`).
    package func save(_ record: RunRecord, redactor: SecretRedactor = SecretRedactor()) throws {
        try createFolder(folder)
        var copy = record.redactingArguments(redactor)
        copy.steps = copy.steps.map { Self.withoutSecretOutput($0, redactor) }
        let text = redactor.redact(String(decoding: try Self.lineEncoder.encode(copy), as: UTF8.self)) + "\n"
        try logLock.withLock {
            closeLog()
            // One group: the saved copies' bytes, the record's, the rename, then the folders.
            var copies = false, recordSyncs = 0
            try Self.writeDurably(Data(text.utf8), to: recordPath, syncingFolder: false, syncs: &recordSyncs) {
                copies = try syncCopies()
            }
            syncs += recordSyncs
            if copies { sync(folder: savedFolder) }
            savedFolderIsNew = false
            sync(folder: folder)
        }
    }

    /// Appends changes to the record written by `save`, one line each, and fsyncs them: when it
    /// returns they survive a crash. Secrets are redacted as `save` redacts them. A write that
    /// fails is cut off again, so the log never holds half a line before a later one.
    ///
    /// With `waitForDisk` false the lines are written (from then on they survive the process being
    /// killed, as the kernel holds them) and not synced: for changes no effect waits on (a step
    /// finished, a local effect done). The next append that waits — the intent of the next effect —
    /// syncs the log, and one `fsync` of the file covers every line written to it before: no effect
    /// happens before every line written before its intent is on the disk. Saved copies written
    /// since the last wait are synced in the same group, before the line (`saveCopy`).
    /// - Throws: when the lines cannot be written and synced (the caller writes the record whole next).
    func append(_ changes: [RecordChange], redactor: SecretRedactor, waitForDisk: Bool = true) throws {
        var bytes: [UInt8] = []
        for change in changes {
            var change = change
            if case .step(let step) = change { change = .step(Self.withoutSecretOutput(step, redactor)) }
            bytes += Array(redactor.redact(String(decoding: try Self.lineEncoder.encode(change), as: UTF8.self)).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        try logLock.withLock {
            if logDescriptor < 0 {
                logDescriptor = open(recordPath, O_WRONLY | O_APPEND | O_CLOEXEC)
                guard logDescriptor >= 0 else {
                    throw ShiplaneError("could not write \(recordPath): \(String(cString: strerror(errno)))",
                                        suggestion: "check the disk has room and the folder is writable")
                }
            }
            let length = lseek(logDescriptor, 0, SEEK_END)
            guard length >= 0, writeAll(bytes, to: logDescriptor) else {
                let reason = String(cString: strerror(errno))
                if length >= 0 { _ = ftruncate(logDescriptor, length) }
                closeLog()
                throw ShiplaneError("could not write \(recordPath): \(reason)", suggestion: "check the disk has room and the folder is writable")
            }
            guard waitForDisk else { return }
            // A copy the line names is on the disk before the line.
            if try syncCopies() { sync(folder: savedFolder) }
            if savedFolderIsNew {
                savedFolderIsNew = false
                sync(folder: folder)
            }
            syncs += 1
            guard fsync(logDescriptor) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = ftruncate(logDescriptor, length)
                closeLog()
                throw ShiplaneError("could not write \(recordPath): \(reason)", suggestion: "check the disk has room and the folder is writable")
            }
            appendsWaitedFor += 1
        }
    }

    /// Called under `logLock`: fsyncs the saved copies written since the last wait and closes
    /// them; true when there were any (then the caller syncs the saved folder, their names).
    private func syncCopies() throws -> Bool {
        guard !unsyncedCopies.isEmpty else { return false }
        defer {
            for descriptor in unsyncedCopies { close(descriptor) }
            unsyncedCopies = []
        }
        for descriptor in unsyncedCopies {
            syncs += 1
            guard fsync(descriptor) == 0 else {
                throw ShiplaneError("could not write a saved copy in \(savedFolder): \(String(cString: strerror(errno)))",
                                    suggestion: "check the disk has room and the folder is writable")
            }
        }
        return true
    }

    /// Called under `logLock`: fsyncs a folder (the names in it), counting it. A folder some file
    /// system cannot sync is let be, as `writeDurably` lets it be.
    private func sync(folder path: String) {
        syncs += 1
        Self.syncFolder(path)
    }

    /// True when the record on disk holds one of `values` as written or as a JSON string
    /// writes it (a secret registered after the line that holds it was written).
    func recordHolds(anyOf values: [String]) -> Bool {
        guard let data = logLock.withLock({ readWholeFile(recordPath) }), !data.isEmpty else { return false }
        return values.contains { value in
            let escaped = (try? Self.lineEncoder.encode(value)).map { Data($0.dropFirst().dropLast()) }
            return data.range(of: Data(value.utf8)) != nil || escaped.map { data.range(of: $0) != nil } == true
        }
    }

    /// Called under `logLock`.
    private func closeLog() {
        if logDescriptor >= 0 { close(logDescriptor) }
        logDescriptor = -1
    }

    /// `step` without its result when the result held a secret (see `save`).
    private static func withoutSecretOutput(_ step: RecordedStep, _ redactor: SecretRedactor) -> RecordedStep {
        var step = step
        if step.output.map({ redactor.redact($0) != $0 }) == true { step.output = nil }
        return step
    }

    /// Forgets the run: the record, the saved copies and the copy of the record staged for a
    /// push (`refs/shiplane/run`: a push a hook or the remote refused, or a rollback, leaves it).
    package func clear() {
        logLock.withLock {
            closeLog()
            for descriptor in unsyncedCopies { close(descriptor) }
            unsyncedCopies = []
            savedFolderIsNew = false
            unlink(recordPath)
            try? FileManager.default.removeItem(atPath: savedFolder)
            syncs += 1
            Self.syncFolder(folder)
        }
        let gitFolder = (folder as NSString).deletingLastPathComponent
        let packed = (try? String(contentsOfFile: gitFolder + "/packed-refs", encoding: .utf8))?.contains(RemoteRunRecord.reference) == true
        if packed || FileManager.default.fileExists(atPath: gitFolder + "/" + RemoteRunRecord.reference) {
            RemoteRunRecord.deleteLocalCopy(workTree: gitFolder)
        }
    }

    /// Saves a copy of bytes a run is about to replace; returns its name in the saved folder.
    ///
    /// The copy is the user's file as it was, byte for byte, and is not redacted: a rollback puts
    /// it back exactly (a `.env` or a config a step rewrites would be corrupted by `***`), and it
    /// holds nothing the work tree did not already hold — no value of the environment, no step's
    /// output. So it is kept like the record: the folder 0700, each copy 0600, readable by this
    /// user only, removed with the record when the run ends (completed or rolled back), and never
    /// sent anywhere (the record on origin names a copy and a hash, never its bytes).
    func saveCopy(_ data: Data, name: String) throws -> String {
        let made = access(savedFolder, F_OK) != 0
        try createFolder(savedFolder)
        chmod(savedFolder, 0o700)
        if made { logLock.withLock { savedFolderIsNew = true } }
        // Written under its own name at once: nothing reads it before the intent that names it,
        // and that intent's write (it waits for the disk) syncs the copy's bytes and the saved
        // folder first, in one group with the record (`syncCopies`). A kill before then leaves a
        // copy no record names, removed with the folder when the next run ends.
        let path = savedFolder + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ShiplaneError("could not write \(path): \(String(cString: strerror(errno)))", suggestion: "check the disk has room and the folder is writable")
        }
        guard writeAll(data, to: descriptor) else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(path)
            throw ShiplaneError("could not write \(path): \(reason)", suggestion: "check the disk has room and the folder is writable")
        }
        let count = logLock.withLock {
            unsyncedCopies.append(descriptor)
            copiesWritten += 1
            return copiesWritten
        }
        FaultInjection.reached(.afterSavedCopy, count)
        return name
    }

    func savedCopy(_ name: String) -> Data? {
        FileManager.default.contents(atPath: savedFolder + "/" + name)
    }

    // MARK: - Helpers

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = RecordDates.encoding
        return encoder
    }()

    /// Writes a record or a change as one line of the log: no line breaks (a string's are escaped).
    static let lineEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = RecordDates.encoding
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RecordDates.decoding
        return decoder
    }()

    /// Makes the run folder when it is not there yet (a list remembered after a run, before any record).
    /// - Throws: `ShiplaneError` naming the folder when it cannot be made.
    func createRunFolder() throws { try createFolder(folder) }

    private func createFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ShiplaneError("could not create \(path): \(describe(error))",
                                suggestion: "check that the repository's git folder is writable")
        }
    }

    /// Temporary file, write, fsync, rename over `path`, fsync the folder: after a crash the file
    /// holds either the old bytes or the new ones, never a mix.
    static func writeDurably(_ data: Data, to path: String, syncingFolder: Bool = true) throws {
        var syncs = 0
        try writeDurably(data, to: path, syncingFolder: syncingFolder, syncs: &syncs)
    }

    /// `writeDurably(_:to:syncingFolder:)`, counting its `fsync` calls in `syncs`; `beforeSync`
    /// runs once the bytes are written, before their `fsync`: the other files of the same group
    /// (saved copies) are synced there, so the record's bytes reach the disk after theirs.
    static func writeDurably(_ data: Data, to path: String, syncingFolder: Bool, syncs: inout Int,
                             beforeSync: () throws -> Void = {}) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ShiplaneError("could not write \(path): \(String(cString: strerror(errno)))") }
        var ok = writeAll(data, to: descriptor)
        var reason = String(cString: strerror(errno))
        do {
            if ok { try beforeSync() }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        if ok {
            syncs += 1
            ok = fsync(descriptor) == 0
            reason = String(cString: strerror(errno))
        }
        close(descriptor)
        if ok, rename(temporary, path) != 0 {
            ok = false
            reason = String(cString: strerror(errno))
        }
        guard ok else {
            unlink(temporary)
            throw ShiplaneError("could not write \(path): \(reason)", suggestion: "check the disk has room and the folder is writable")
        }
        if syncingFolder {
            syncs += 1
            syncFolder((path as NSString).deletingLastPathComponent)
        }
    }

    /// Fsyncs a folder; false when it cannot be opened or synced (then `errno` says why).
    @discardableResult
    static func syncFolder(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    /// The git folder all worktrees of the repository share, found from the work tree's `.git`
    /// (a folder, or a `gitdir:` file whose folder has a `commondir` file) without libgit2.
    static func commonGitDirectory(ofWorkTree root: String) throws -> String {
        let gitDirectory = try gitDirectory(ofWorkTree: root)
        if gitDirectory == root + "/.git" { return gitDirectory }
        let commonFile = gitDirectory + "/commondir"
        guard let common = try? String(contentsOfFile: commonFile, encoding: .utf8) else {
            return (gitDirectory as NSString).standardizingPath
        }
        var path = common.trimmingCharacters(in: .whitespacesAndNewlines)
        if !path.hasPrefix("/") { path = gitDirectory + "/" + path }
        return (path as NSString).standardizingPath
    }

    /// The work tree's own git folder, where its index (and `index.lock`) is: `root/.git`, or the
    /// folder a `.git` file names (a linked work tree's, a submodule's), found without libgit2 —
    /// opening the repository would initialise libgit2, which parses the system's whole CA bundle
    /// (about 5 ms), on the start of every run.
    package static func gitDirectory(ofWorkTree root: String) throws -> String {
        let dotGit = root + "/.git"
        var info = stat()
        guard lstat(dotGit, &info) == 0 else { throw RepositoryProblem.notARepository(path: root) }
        if info.st_mode & S_IFMT == S_IFDIR { return dotGit }
        guard let text = try? String(contentsOfFile: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else {
            throw RepositoryProblem.notARepository(path: root)
        }
        var gitDirectory = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        if !gitDirectory.hasPrefix("/") { gitDirectory = root + "/" + gitDirectory }
        return (gitDirectory as NSString).standardizingPath
    }
}

/// Another process is running a lane in this repository.
package struct RunLocked: ReportableError {
    /// The run that holds the lock, when the lock file or the record says.
    package var holder: RunRecord?
    /// The lock file.
    package var lockPath: String

    /// Creates the error for the lock at `lockPath`, held by `holder` when known.
    package init(holder: RunRecord?, lockPath: String) {
        self.holder = holder
        self.lockPath = lockPath
    }

    /// Names the command that holds the lock, when known.
    package var message: String {
        guard let holder else { return "another Shiplane run holds this repository's lock" }
        return "another Shiplane run is in progress in this repository: `\(holder.commandLine)`"
    }

    /// The holder's process, host, start and work tree; else the lock file.
    package var info: [(key: String, value: String)] {
        guard let holder else { return [("lock", lockPath)] }
        return [
            ("pid", "\(holder.pid) on \(holder.host)"),
            ("started", ISO8601DateFormatter().string(from: holder.startedAt)),
            ("work tree", holder.workTree),
        ]
    }

    /// Wait for the other run.
    package var suggestion: String? { "wait for it to finish; two releases never run at once in one repository" }
    /// Locked: another run holds the repository.
    package var category: ErrorCategory { .locked }
}
