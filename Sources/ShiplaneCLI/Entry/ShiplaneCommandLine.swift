import Foundation
import Shiplane

/// The `shiplane` command: built-in commands, or a lane compiled from `Lanes/` and run.
public enum ShiplaneCommandLine {
    public static func main() async -> Never {
        let code = await run(
            arguments: Array(CommandLine.arguments.dropFirst()),
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            executable: executablePath()
        )
        exit(code)
    }

    static func run(arguments: [String], environment: [String: String], currentDirectory: String, executable: String) async -> Int32 {
        // Shell completions: the script, and what it asks for while completing (never a lane run).
        switch arguments.first {
        case "--generate-completion-script":
            return CompletionTree.printScript(shell: arguments.dropFirst().first, environment: environment)
        case "---completion":
            CompletionTree.main(arguments)
        case "---lane-names":
            print(CompletionTree.laneNames().joined(separator: "\n"))
            return ShiplaneExitCode.success.rawValue
        case "---lane-options":
            let words = Array(arguments.dropFirst())
            print(CompletionTree.laneOptions(words: words, environment: environment, executable: executable).joined(separator: "\n"))
            return ShiplaneExitCode.success.rawValue
        default:
            break
        }
        let session: CommandSession
        do {
            session = try CommandSession(arguments: arguments, environment: environment, currentDirectory: currentDirectory)
        } catch {
            return CommandSession.fail(error, arguments: arguments, environment: environment, currentDirectory: currentDirectory)
        }
        do {
            let command = session.rest.first ?? "help"
            let rest = Array(session.rest.dropFirst())
            switch command {
            case "help", "--help", "-h":
                session.out.line(Help.text)
                return ShiplaneExitCode.success.rawValue
            case "--version":
                session.out.line("shiplane \(ShiplaneVersion.current) (libgit2 \(GitSettings.libgit2Version))")
                return ShiplaneExitCode.success.rawValue
            case "actions":
                session.out.line(ActionsCommand.list(json: rest.contains("--json"), markdown: rest.contains("--markdown")))
                return ShiplaneExitCode.success.rawValue
            case "action":
                session.out.line(try ActionsCommand.show(rest.first))
                return ShiplaneExitCode.success.rawValue
            case "init":
                return try await InitCommand.run(session: session, arguments: rest)
            case "version":
                return try VersionCommand.run(session: session, arguments: rest)
            case "edit":
                guard rest.isEmpty || rest == ["--help"] || rest == ["-h"] else {
                    throw UsageError("shiplane edit takes no arguments, not \(rest.joined(separator: " "))", suggestion: "run `shiplane edit` in the repository")
                }
                if !rest.isEmpty {
                    session.out.line("shiplane edit — write Lanes/compile_commands.json so SourceKit-LSP (VS Code, Xcode, any LSP editor) understands the lanes")
                    session.out.line("\nUSAGE: shiplane edit")
                    return ShiplaneExitCode.success.rawValue
                }
                let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
                let toolchain = try Toolchain.locate(environment: environment, executable: executable)
                let written = try EditorSetup.write(root: root, toolchain: toolchain)
                session.out.line("wrote Lanes/\(EditorSetup.databaseName) for \(written.files) lane file\(written.files == 1 ? "" : "s") (listed in .git/info/exclude, so git ignores it)")
                session.out.line("SourceKit-LSP now completes and checks Lanes/*.swift; each later lane compile keeps the file up to date.")
                return ShiplaneExitCode.success.rawValue
            case "changelog":
                let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
                var session = session
                try session.loadDotEnv(root: root)
                return try await ChangelogCommand.run(session: session, arguments: rest)
            case "bump":
                let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
                var session = session
                try session.loadDotEnv(root: root)
                return await LaneHost.runLane(BumpLane.self, arguments: BumpCommand.normalized(rest), hooks: [], root: root, session: session)
            case "lanes" where rest.isEmpty || rest == ["--json"]:
                // Listed from what the lanes program said when it was compiled: no program starts.
                let root = try GitSettings.workTreeRoot(from: session.currentDirectory, environment: environment)
                var session = session
                try session.loadDotEnv(root: root)
                let compiled = try compileLanes(root: root, session: session, environment: environment, executable: executable)
                guard let catalog = compiled.lanes.catalog else {
                    return try await runCompiledLanes(compiled.lanes, root: root, session: session, environment: environment)
                }
                session.out.line(rest.isEmpty ? catalog.text(root: root) : try LaneCatalogFile.json(catalog.lanes))
                return ShiplaneExitCode.success.rawValue
            case "rollback":
                return try await RunCommands.rollback(session: session, arguments: rest)
            case "resume":
                guard let again = try RunCommands.resumeArguments(session: session) else {
                    session.out.line("No unfinished run in this repository: nothing to resume.")
                    return ShiplaneExitCode.success.rawValue
                }
                var arguments = Array(arguments.prefix(arguments.count - session.rest.count))
                arguments.append(contentsOf: again)
                return await run(arguments: arguments, environment: environment, currentDirectory: currentDirectory, executable: executable)
            default:
                // A mistyped built-in command in a repository without lanes: say which was meant,
                // rather than that there are no lanes.
                if let meant = LaneDeclarationError.closeBuiltInCommand(to: command),
                   let root = try? GitSettings.workTreeRoot(from: session.currentDirectory, environment: environment),
                   !FileManager.default.fileExists(atPath: root + "/Lanes") {
                    throw UsageError(
                        "unknown command `\(command)`", suggestion: "run `shiplane help` for the commands",
                        info: [("did you mean", meant)]
                    )
                }
                return try await runLanes(session: session, environment: environment, executable: executable)
            }
        } catch {
            return session.failWithoutRun(error, command: "shiplane" + (session.rest.first.map { " " + $0 } ?? ""))
        }
    }

    /// Compiles the lanes (or finds them cached), runs them as a supervised child, and returns
    /// the child's exit code — or, when it died of a signal, the code of that ending.
    static func runLanes(session: CommandSession, environment: [String: String], executable: String) async throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory, environment: environment)
        let compiled = try compileLanes(root: root, session: session, environment: environment, executable: executable)
        return try await runCompiledLanes(compiled.lanes, root: root, session: session, environment: environment)
    }

    /// The compiled lanes of `root`, from the cache or compiled now (saying so on stderr).
    static func compileLanes(
        root: String, session: CommandSession, environment: [String: String], executable: String
    ) throws -> (lanes: LaneCompiler.Compiled, toolchain: Toolchain) {
        let toolchain = try Toolchain.locate(environment: environment, executable: executable)
        let compiler = LaneCompiler(
            toolchain: toolchain, cacheFolder: LaneCompiler.defaultCacheFolder(environment: environment), environment: environment
        )
        let compiled = try compiler.executable(root: root) {
            session.err.line("Compiling Lanes/ (first run, or the lanes or Shiplane changed)…")
        }
        if compiled.compiled {
            session.err.line("Compiled Lanes/ in \(formatSeconds(compiled.seconds)).")
            // The lanes changed: keep the editors' compilation database (`shiplane edit`) in step.
            if FileManager.default.fileExists(atPath: root + "/Lanes/" + EditorSetup.databaseName) {
                _ = try? EditorSetup.write(root: root, toolchain: toolchain)
            }
        }
        return (compiled, toolchain)
    }

    /// Runs the compiled lanes as a supervised child with this command line.
    static func runCompiledLanes(
        _ compiled: LaneCompiler.Compiled, root: String, session: CommandSession, environment: [String: String]
    ) async throws -> Int32 {
        let laneArguments = ["--shiplane-root", root] + session.globals.asArguments + session.rest
        if environment["SHIPLANE_NO_SUPERVISOR"] == "1" {
            // Without the supervisor (for measuring what it costs, or debugging a lane program):
            // the lane program replaces this process. A crash is then a bare signal, a killed
            // run is settled by the next run, and raw output is not redacted.
            let argv = ([compiled.executable] + laneArguments).map { strdup($0) } + [nil]
            fflush(nil)
            execv(compiled.executable, argv)
            throw EnvironmentProblem("could not start the compiled lanes at \(compiled.executable): \(String(cString: strerror(errno)))")
        }
        let supervisor = LaneSupervisor(
            executable: compiled.executable, arguments: laneArguments, redactor: session.out.redactor
        )
        switch try supervisor.run() {
        case .exited(let code):
            // A run record still marked running means the program ended in the middle of its run
            // (`exit()` in lane code): settle it as for a death by signal.
            guard !session.globals.dryRun, let settled = await settleAfterDeath(root: root, session: session) else { return code }
            let lane = session.rest.first ?? "lanes"
            let cause = ShiplaneError(
                "the lane program exited with code \(code) in the middle of its run",
                suggestion: "lane code should throw rather than call exit(): a thrown error is reported and rolled back"
            )
            return session.finish(LaneRunResult(
                lane: lane, dryRun: false, startedAt: Date(), duration: 0, steps: [],
                failure: LaneFailure(lane: lane, causes: [cause], rollback: settled.rollback, pointOfNoReturn: settled.pointOfNoReturn),
                plannedWrites: []
            ), summary: false)
        case .signaled(let signal):
            var died = LaneProgramDied(signal: signal)
            let lane = session.rest.first ?? "lanes"
            var rollback: [RollbackEntry] = []
            var noReturn: String?
            if !session.globals.dryRun, let settled = await settleAfterDeath(root: root, session: session) {
                (rollback, noReturn) = settled
                died.settled = true
            }
            return session.finish(LaneRunResult(
                lane: lane, dryRun: session.globals.dryRun, startedAt: Date(), duration: 0, steps: [],
                failure: LaneFailure(lane: lane, causes: [died], rollback: rollback, interrupted: !died.isCrash, pointOfNoReturn: noReturn),
                plannedWrites: []
            ), summary: false)
        }
    }

    /// After the lane program died: rolls its run back from the record when it had not passed its
    /// point of no return, else leaves it for `shiplane resume`. Nil when there was no record (or
    /// another process holds the lock).
    static func settleAfterDeath(root: String, session: CommandSession) async -> (rollback: [RollbackEntry], pointOfNoReturn: String?)? {
        guard let store = try? RunStore.forWorkTree(root), (try? store.lock()) != nil else { return nil }
        defer { store.unlock() }
        guard let record = try? store.load(), record.state == .running else { return nil }
        if let noReturn = record.pointOfNoReturn {
            var unfinished = record
            unfinished.state = .unfinished
            try? store.save(unfinished)
            return ([], noReturn)
        }
        guard let outcome = try? await RecordedRollback(store: store, workTree: root, environment: session.laneEnvironment).run(record) else { return nil }
        if outcome.failed.isEmpty {
            store.clear()
        } else {
            var unfinished = outcome.record
            unfinished.state = .unfinished
            try? store.save(unfinished)
        }
        return (outcome.entries, nil)
    }

    /// This executable's own path, so the library and modules can be found beside it.
    static func executablePath() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}

/// `shiplane help`.
enum Help {
    static let text = """
    shiplane — release lanes in Swift

    USAGE: shiplane [global options] <lane> [lane options]
           shiplane [global options] <command> [arguments]

    COMMANDS:
      <lane> [options]     compile Lanes/*.swift (cached) and run the lane; key:value options work too
      lanes [--json]       list the lanes with their summaries and options
      actions [--json|--markdown]  list the built-in actions
      action NAME          show one action's options
      init [--commit]      create Lanes/ with a first lane for this project (and commit it)
      edit                 let SourceKit-LSP editors (VS Code, Xcode, …) complete and check Lanes/*.swift
      version [--json]     the current version, where it was read (files, or release tags), the last release tag
      resume               finish the unfinished run of this repository (the same command again)
      rollback [--forget]  undo the unfinished run as far as it safely can; say what stays
      bump LEVEL [--build [N]] [--commit] [--tag] [--push]
                           LEVEL: major, minor, patch, auto, release, pre NAME, or a version;
                           with no version file, the version is the last release tag and bump tags
      changelog [--from REF] [--to REF] [--unreleased] [--all] [--write FILE] [--json] [--template FILE]
                           release notes from the conventional commits (default: since the last release tag)

    GLOBAL OPTIONS:
      --dry-run            do everything that only reads; print what would be written, run, pushed or sent
      --verbose            show debug messages
      --report-json FILE   write the run (steps, timings, errors) as JSON
      --junit FILE         write the run as JUnit XML, one test case per step
      --no-rollback        on failure, keep what the lane changed instead of undoing it
      --no-verify          skip git's pre-commit, commit-msg and pre-push hooks
      --ci github|gitlab|none  CI-native output (detected from GITHUB_ACTIONS / GITLAB_CI)
      --env NAME           also load .env.NAME (after .env; the process environment wins over both)
      --no-color           no colour (also NO_COLOR=1, or when output is not a terminal;
                           FORCE_COLOR=1 or CLICOLOR_FORCE=1 force it into a pipe or CI log)
      --version            print Shiplane's version

    EXIT CODES: 0 success, 1 failed (rolled back), 2 usage, 3 lanes do not compile,
                4 environment (no repository, no Lanes/, no swiftc), 5 nothing to release,
                6 another run holds the repository, 7 an unfinished run is recorded,
                70 defect, 75 stopped past the point of no return (run it again to finish),
                130 interrupted (rolled back)
    """
}
