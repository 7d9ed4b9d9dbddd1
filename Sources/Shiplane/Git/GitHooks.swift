import Foundation
internal import Git

/// The repository's git hooks, run as git runs them for the commits and pushes Shiplane makes:
/// `pre-commit` and `commit-msg` around a commit, `pre-push` before a push.
///
/// Hooks live in `core.hooksPath` (relative to the work tree root, `~/` expanded) or else in
/// `hooks/` of the git folder all worktrees share. A hook that is missing or not executable is
/// skipped, as git does. A hook runs in the work tree root with the lane's environment (and
/// `GIT_INDEX_FILE` for the commit hooks); its output is shown under the step; a non-zero exit
/// fails the step with that output. `--no-verify` skips them all.
struct GitHooks {
    let folder: String
    let workTree: String
    let gitDirectory: String
    let environment: [String: String]

    init(repository: Repository, workTree: String, environment: [String: String]) throws {
        self.workTree = workTree
        self.environment = environment
        gitDirectory = repository.gitDirectory.hasSuffix("/") ? String(repository.gitDirectory.dropLast()) : repository.gitDirectory
        if var configured = try git({ try repository.configString("core.hooksPath") }), !configured.isEmpty {
            if configured.hasPrefix("~/") { configured = (environment["HOME"] ?? NSHomeDirectory()) + configured.dropFirst(1) }
            folder = configured.hasPrefix("/") ? configured : workTree + "/" + configured
        } else {
            folder = (try? RunStore.commonGitDirectory(ofWorkTree: workTree)).map { $0 + "/hooks" } ?? gitDirectory + "/hooks"
        }
    }

    /// The hook's path when it exists and may be run.
    func hook(_ name: String) -> String? {
        let path = folder + "/" + name
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else { return nil }
        return path
    }

    /// Runs `pre-commit`, then `commit-msg` on the message (through `COMMIT_EDITMSG`, which the
    /// hook may edit); returns the message to commit.
    func aroundCommit(message: String, log: (String) -> Void) throws -> String {
        let index = ["GIT_INDEX_FILE": gitDirectory + "/index"]
        if let preCommit = hook("pre-commit") {
            try run("pre-commit", preCommit, arguments: [], input: nil, extra: index, log: log)
        }
        guard let commitMessage = hook("commit-msg") else { return message }
        let file = gitDirectory + "/COMMIT_EDITMSG"
        // As git writes it: the message ends with a newline (a hook that appends a trailer with
        // `echo >>` would otherwise join it to the last line).
        try writeAtomically(Data((message.hasSuffix("\n") ? message : message + "\n").utf8), to: file)
        try run("commit-msg", commitMessage, arguments: [file], input: nil, extra: index, log: log)
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? message
    }

    /// Runs `pre-push` with the remote's name and URL and one line per ref on its input.
    func beforePush(remote: String, url: String, updates: [Repository.RefUpdate], log: (String) -> Void) throws {
        guard let prePush = hook("pre-push") else { return }
        let lines = updates.map(\.hookLine).joined(separator: "\n") + "\n"
        try run("pre-push", prePush, arguments: [remote, url], input: lines, extra: [:], log: log)
    }

    /// Runs one hook to its end with its output collected. An interrupt of the run (the task is
    /// cancelled) stops the hook as it stops a command: SIGTERM to its process group, SIGKILL 3 s
    /// later. The hook starts with nothing blocked and its own process group (`SpawnedProcess`).
    /// - Throws: `GitHookFailed` when it cannot start or refuses; `CancellationError` when it was stopped.
    private func run(_ name: String, _ path: String, arguments: [String], input: String?, extra: [String: String], log: (String) -> Void) throws {
        // The input comes from a file, not a pipe: a hook that exits without reading it must not
        // leave this process writing to a closed pipe (SIGPIPE).
        var inputFile: String?
        defer { if let inputFile { unlink(inputFile) } }
        if let input {
            let file = NSTemporaryDirectory() + "shiplane-\(name)-\(getpid())-\(UUID().uuidString)"
            try writeAtomically(Data(input.utf8), to: file)
            inputFile = file
        }
        let output = HookOutput()
        let ending: SpawnedProcess.Termination
        do {
            let standardInput = open(inputFile ?? "/dev/null", O_RDONLY | O_CLOEXEC)
            guard standardInput >= 0 else { throw SpawnFailure(path: inputFile ?? "/dev/null", reason: String(cString: strerror(errno))) }
            defer { close(standardInput) }
            let pipe = try SpawnedProcess.makePipe()
            let process: SpawnedProcess
            do {
                defer { close(pipe.write) }
                process = try SpawnedProcess.spawn(
                    path: path, arguments: arguments, environment: environment.merging(extra) { $1 }, workingDirectory: workTree,
                    standardInput: standardInput, standardOutput: pipe.write, standardError: pipe.write
                )
            } catch {
                close(pipe.read)
                throw error
            }
            output.collect(from: pipe.read)
            ending = process.wait(stoppingWhen: { Task.isCancelled })
        } catch {
            throw GitHookFailed(hook: name, path: path, status: nil, output: ["could not start it: \(describe(error))"])
        }
        let lines = String(decoding: output.wait(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.isEmpty }
        for line in lines { log("\(name): \(line)") }
        if Task.isCancelled { throw CancellationError() }
        guard ending == .exited(0) else {
            throw GitHookFailed(hook: name, path: path, status: ending.code, output: lines)
        }
    }
}

/// What a hook prints, read on a thread of its own while the hook runs.
private final class HookOutput: @unchecked Sendable {
    // @unchecked: `data` is written by the reader thread before `done` is signalled, read after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    /// Reads `descriptor` to its end on a new thread, then closes it.
    func collect(from descriptor: Int32) {
        Thread.detachNewThread { [self] in
            var bytes = Data()
            SpawnedProcess.readAll(descriptor) { bytes.append($0) }
            close(descriptor)
            data = bytes
            done.signal()
        }
    }

    /// The bytes, once the hook and whatever it left holding its output have ended.
    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A git hook refused the commit or push.
package struct GitHookFailed: ReportableError {
    /// The hook's name (`pre-commit`, `commit-msg`, `pre-push`).
    package var hook: String
    /// The hook file that ran.
    package var path: String
    /// The exit code (or signal), nil when it could not start.
    package var status: Int32?
    /// The lines the hook printed, standard output and error together.
    package var output: [String]

    /// Names the hook and its exit code.
    package var message: String {
        "the \(hook) hook refused" + (status.map { " (exit code \($0))" } ?? "")
    }

    /// The hook file and the last 20 lines it printed.
    package var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = [("hook", path)]
        if !output.isEmpty { facts.append(("its output", output.suffix(20).joined(separator: "\n"))) }
        return facts
    }

    /// Fix what the hook reports, or skip the hooks with `--no-verify`.
    package var suggestion: String? { "fix what the hook reports, or pass --no-verify to skip the git hooks" }
}
