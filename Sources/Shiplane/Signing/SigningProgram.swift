import Foundation

/// Runs a signing program (`gpg`) with bytes on its standard input and on more descriptors
/// (a passphrase on fd 3), never on its command line, and collects what it prints.
///
/// The inputs go through socket pairs written with `MSG_NOSIGNAL`: a program that exits
/// without reading them does not raise SIGPIPE here, and nothing secret touches the disk.
enum SigningProgram {
    struct Result {
        var status: SpawnedProcess.Termination
        var output: Data
        var errors: String
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let noSignal: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    /// Runs `executable` (looked up on the environment's `PATH`) to its end.
    /// - Throws: `CommandNotFound` when it is not installed; `SpawnFailure` when it cannot start.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8],
        extraInputs: [Int32: [UInt8]] = [:]
    ) throws -> Result {
        guard let path = findExecutable(executable, path: environment["PATH"], workingDirectory: nil) else {
            throw CommandNotFound(command: executable, searched: environment["PATH"] ?? "")
        }
        var writers: [(descriptor: Int32, bytes: [UInt8])] = []
        var childEnds: [(source: Int32, target: Int32)] = []
        defer { for end in childEnds { close(end.source) } }
        for (target, bytes) in [(Int32(0), input)] + extraInputs.sorted(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, streamType, 0, &pair) == 0 else { throw SpawnFailure(path: "socketpair", reason: String(cString: strerror(errno))) }
            for end in pair { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            writers.append((pair[0], bytes))
            childEnds.append((pair[1], target))
        }
        let output = try SpawnedProcess.makePipe(), errors = try SpawnedProcess.makePipe()
        let process: SpawnedProcess
        do {
            defer { close(output.write); close(errors.write) }
            process = try SpawnedProcess.spawn(
                path: path, arguments: arguments, environment: environment, workingDirectory: nil,
                standardInput: childEnds[0].source, standardOutput: output.write, standardError: errors.write,
                inherited: Array(childEnds.dropFirst()))
        } catch {
            for writer in writers { close(writer.descriptor) }
            close(output.read)
            close(errors.read)
            throw error
        }
        for end in childEnds { close(end.source) }
        childEnds = []
        let group = DispatchGroup()
        for writer in writers {
            group.enter()
            Thread.detachNewThread {
                var sent = 0
                while sent < writer.bytes.count {
                    let count = writer.bytes[sent...].withUnsafeBytes { send(writer.descriptor, $0.baseAddress, $0.count, noSignal) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    sent += count
                }
                shutdown(writer.descriptor, Int32(SHUT_WR))
                close(writer.descriptor)
                group.leave()
            }
        }
        let collected = Collected()
        group.enter()
        Thread.detachNewThread {
            SpawnedProcess.readAll(errors.read) { collected.appendError($0) }
            close(errors.read)
            group.leave()
        }
        SpawnedProcess.readAll(output.read) { collected.appendOutput($0) }
        close(output.read)
        let status = process.wait()
        group.wait()
        return Result(status: status, output: collected.output, errors: String(decoding: collected.errors, as: UTF8.self))
    }

    /// What the reader threads collect.
    private final class Collected: @unchecked Sendable {
        // @unchecked: `output` is written by the calling thread only, `errors` by one reader
        // thread; both are read after the group the threads leave has been waited for.
        var output = Data()
        var errors = Data()
        func appendOutput(_ data: Data) { output.append(data) }
        func appendError(_ data: Data) { errors.append(data) }
    }
}
