import Foundation
import Shiplane

/// What the supervisor resolved once for the run and hands the lane program: the global options
/// it read from the command line and the variables its `.env` files gave. The lane program takes
/// them instead of parsing the line and reading the files again, so both processes run with the
/// same options and redact the same secrets.
struct SharedSession: Equatable {
    /// The variables loaded from `.env` and `.env.NAME` (those the process environment did not set).
    var dotEnv: [String: String]
    /// The global options of the command line (nil: the lane program reads them from its arguments).
    var globals: GlobalValues? = nil

    /// What goes down the pipe: NUL-terminated fields, a version field first, then the global
    /// options (`-` when there are none; a Bool as `1`/`0`, a String as `=value`, nil as `!`),
    /// then the `.env` variables as name, value. Not JSON: encoding and decoding it cost the
    /// supervisor and the lane program together a twentieth of a no-op lane's start (the first
    /// use of Codable's generic machinery), and the supervisor used it for nothing else on a
    /// cached run (the lane program still encodes its run record as JSON).
    /// A variable's name or value cannot hold NUL (no process environment can).
    var encoded: [UInt8] {
        var fields = [Self.formatVersion]
        if let globals {
            func flag(_ value: Bool) -> String { value ? "1" : "0" }
            func text(_ value: String?) -> String { value.map { "=" + $0 } ?? "!" }
            fields += [
                "g", flag(globals.dryRun), flag(globals.verbose), text(globals.reportJSON), text(globals.junit),
                flag(globals.noRollback), flag(globals.noVerify), text(globals.ci), text(globals.environmentName), flag(globals.noColor),
                text(globals.part), flag(globals.fanIn), text(globals.plan),
            ]
        } else {
            fields.append("-")
        }
        for (name, value) in dotEnv.sorted(by: { $0.key < $1.key }) { fields += [name, value] }
        var bytes: [UInt8] = []
        for field in fields { bytes += field.utf8; bytes.append(0) }
        return bytes
    }

    fileprivate static let formatVersion = "shiplane-session-1"
}

extension SharedSession {
    /// Reads `encoded`; nil when the bytes are not a session of this format.
    init?(encoded bytes: [UInt8]) {
        guard bytes.last == 0 else { return nil }
        var fields = bytes.dropLast().split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }[...]
        guard fields.popFirst() == Self.formatVersion, let marker = fields.popFirst() else { return nil }
        if marker == "g" {
            guard fields.count >= 12 else { return nil }
            var invalid = false
            func flag() -> Bool {
                let field = fields.popFirst()
                if field != "1" && field != "0" { invalid = true }
                return field == "1"
            }
            func text() -> String? {
                guard let field = fields.popFirst() else { invalid = true; return nil }
                if field == "!" { return nil }
                guard field.hasPrefix("=") else { invalid = true; return nil }
                return String(field.dropFirst())
            }
            let values = GlobalValues(
                dryRun: flag(), verbose: flag(), reportJSON: text(), junit: text(), noRollback: flag(), noVerify: flag(),
                ci: text(), environmentName: text(), noColor: flag(), part: text(), fanIn: flag(), plan: text()
            )
            guard !invalid else { return nil }
            globals = values
        } else {
            guard marker == "-" else { return nil }
            globals = nil
        }
        guard fields.count % 2 == 0 else { return nil }
        dotEnv = [:]
        while let name = fields.popFirst(), let value = fields.popFirst() { dotEnv[name] = value }
    }
}

/// The two pipes between the supervisor and the lane program besides standard output and error:
/// the shared session, written once by the supervisor (the lane program's descriptor 3), and the
/// secret channel, on which the lane program sends each secret that becomes known while it runs
/// (its descriptor 4), read by the supervisor before it redacts the output that follows.
final class SessionChannel: @unchecked Sendable {
    // @unchecked: `pending` is only touched under `lock`; the descriptors are set once in `init`.
    /// The variables that name the lane program's ends.
    static let sessionVariable = "SHIPLANE_SESSION_FD"
    static let secretsVariable = "SHIPLANE_SECRETS_FD"
    static let sessionDescriptor: Int32 = 3
    static let secretsDescriptor: Int32 = 4

    private let session: (read: Int32, write: Int32)
    private let secrets: (read: Int32, write: Int32)
    private let lock = NSLock()
    private var pending: [UInt8] = []

    /// Opens both pipes.
    /// - Throws: `SpawnFailure` when there are no descriptors left.
    init() throws {
        // Above 2 … 4, so that handing them to the child as 3 and 4 cannot overwrite one another.
        func high(_ pipe: (read: Int32, write: Int32)) -> (read: Int32, write: Int32) {
            let moved = (fcntl(pipe.read, F_DUPFD_CLOEXEC, 10), fcntl(pipe.write, F_DUPFD_CLOEXEC, 10))
            close(pipe.read)
            close(pipe.write)
            return moved
        }
        session = high(try SpawnedProcess.makePipe())
        secrets = high(try SpawnedProcess.makePipe())
        _ = fcntl(secrets.read, F_SETFL, fcntl(secrets.read, F_GETFL) | O_NONBLOCK)
    }

    /// The child's ends, as descriptors 3 and 4.
    var inherited: [(source: Int32, target: Int32)] {
        [(session.read, Self.sessionDescriptor), (secrets.write, Self.secretsDescriptor)]
    }

    /// The variables that tell the lane program where its ends are.
    var environment: [String: String] {
        [Self.sessionVariable: String(Self.sessionDescriptor), Self.secretsVariable: String(Self.secretsDescriptor)]
    }

    /// Once the child is started: closes this process's copies of the child's ends and writes the
    /// shared session (on a thread of its own: a pipe holds 64 KB until the child reads).
    func started(sharing shared: SharedSession) {
        close(session.read)
        close(secrets.write)
        let descriptor = session.write
        let data = shared.encoded
        // A session that fits in one page (the usual: a few global options and `.env` values)
        // goes into the new, empty pipe at once, which never blocks (Linux pipes hold at least a
        // page): no thread to start on every lane's start.
        if data.count <= 4096 {
            _ = writeAll(data, to: descriptor)
            close(descriptor)
            return
        }
        Thread.detachNewThread {
            _ = writeAll(data, to: descriptor)
            close(descriptor)
        }
    }

    /// Registers every secret the lane program has sent so far. Called before each piece of its
    /// output is redacted: a secret registered before a `print` is in the pipe before the print is.
    func drainSecrets() {
        lock.withLock {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(secrets.read, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
            }
            pending = RuntimeSecrets.registerChannelLines(pending)
        }
    }

    /// Takes the last secrets and closes the supervisor's read end (after the child ended and
    /// its output was relayed).
    func finish() {
        drainSecrets()
        close(secrets.read)
    }
}

extension SharedSession {
    /// The shared session the supervisor wrote on descriptor `SessionChannel.sessionDescriptor`,
    /// when this lane program was started by one; nil otherwise.
    /// - Throws: `EnvironmentProblem` when the descriptor is named but cannot be read.
    static func readFromSupervisor(environment: [String: String]) throws -> SharedSession? {
        guard let value = environment[SessionChannel.sessionVariable], let descriptor = Int32(value) else { return nil }
        unsetenv(SessionChannel.sessionVariable)
        var data = Data()
        SpawnedProcess.readAll(descriptor) { data.append($0) }
        Foundation.close(descriptor)
        guard let session = SharedSession(encoded: [UInt8](data)) else {
            throw EnvironmentProblem("the lane program could not read the session its shiplane process handed it (\(data.count) bytes, not a session of this version)",
                                     suggestion: "run the lane again; if it persists, delete the lane cache folder")
        }
        return session
    }
}
