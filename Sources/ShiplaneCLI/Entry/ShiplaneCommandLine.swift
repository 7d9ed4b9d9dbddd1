import Foundation
import Shiplane

/// The `shiplane` command: built-in commands, or a lane compiled from `Lanes/` and run.
package enum ShiplaneCommandLine {
    package static func main() async -> Never {
        let code = await run(
            arguments: Array(CommandLine.arguments.dropFirst()),
            environment: ProcessEnvironment.current(),
            currentDirectory: FileManager.default.currentDirectoryPath,
            executable: executablePath()
        )
        LaneHost.endProcess(code)
    }

    static func run(arguments: [String], environment: [String: String], currentDirectory: String, executable: String) async -> Int32 {
        // Shell completions: the script, and what it asks for while completing (never a lane run).
        switch arguments.first {
        case "--generate-completion-script":
            return ShiplaneCommand.printScript(shell: arguments.dropFirst().first, environment: environment)
        case "---completion":
            ShiplaneCommand.main(arguments)
        case "---lane-names":
            print(ShiplaneCommand.laneNames().joined(separator: "\n"))
            return ShiplaneExitCode.success.rawValue
        case "---lane-options":
            // Exit 1 when the words name no lane: the shell then completes the built-in commands.
            guard let offered = ShiplaneCommand.laneCompletions(words: Array(arguments.dropFirst()), environment: environment, executable: executable) else {
                return ShiplaneExitCode.failure.rawValue
            }
            print(offered.joined(separator: "\n"))
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
                // `shiplane help bump` is `shiplane bump --help`.
                if command == "help", let name = rest.first {
                    guard let type = ShiplaneCommand.command(named: name) else {
                        throw UsageError("`\(name)` is not a command of Shiplane", suggestion: "run `shiplane help` for the commands; `shiplane \(name) --help` for a lane's options")
                    }
                    session.out.line(ShiplaneCommand.help(for: type))
                } else {
                    session.out.line(ShiplaneCommand.rootHelp)
                }
                return ShiplaneExitCode.success.rawValue
            case "--version":
                session.out.line("shiplane \(ShiplaneVersion.current) (libgit2 \(GitSettings.libgit2Version))")
                return ShiplaneExitCode.success.rawValue
            default:
                break
            }
            if let type = ShiplaneCommand.command(named: command) {
                guard let builtIn = try parseCommand(type, words: rest) else {
                    session.out.line(ShiplaneCommand.help(for: type))
                    return ShiplaneExitCode.success.rawValue
                }
                let invocation = Invocation(session: session, environment: environment, executable: executable, arguments: arguments)
                return try await builtIn.run(invocation)
            }
            // A mistyped built-in command in a repository without lanes: say which was meant,
            // rather than that there are no lanes.
            if let meant = ShiplaneCommand.closeCommand(to: command),
               let root = try? GitSettings.workTreeRoot(from: session.currentDirectory, environment: environment),
               !FileManager.default.fileExists(atPath: root + "/Lanes") {
                throw UsageError(
                    "unknown command `\(command)`", suggestion: "run `shiplane help` for the commands",
                    info: [("did you mean", meant)]
                )
            }
            return try await runLanes(session: session, environment: environment, executable: executable)
        } catch {
            return session.failWithoutRun(error, command: "shiplane" + (session.rest.first.map { " " + $0 } ?? ""))
        }
    }

    /// The built-in command `type` parsed from its words (what follows its name; the global
    /// options were read from the line by `CommandLineWords`): each word is parsed once, by the
    /// command's own node of the tree (building the whole tree, or the global options again, for
    /// every start would cost more than the rest of a cached start). Nil when the words ask for
    /// the command's help.
    /// - Throws: `UsageError` with the parser's message.
    static func parseCommand(_ type: any BuiltInCommand.Type, words: [String]) throws -> (any BuiltInCommand)? {
        do {
            return try type.parse(type.prepared(words))
        } catch {
            if type.exitCode(for: error) == .success { return nil }
            throw UsageError("\(type._commandName): \(type.message(for: error))", suggestion: "run `shiplane \(type._commandName) --help`")
        }
    }

    /// `shiplane lanes [--json]`: from what the lanes program said when it was compiled, so no
    /// program starts; from the program itself when it left nothing (a declaration mistake).
    static func listLanes(json: Bool, _ invocation: Invocation) async throws -> Int32 {
        let environment = invocation.environment
        var session = invocation.session
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory, environment: environment)
        try session.loadDotEnv(root: root)
        let compiled = try compileLanes(root: root, session: session, environment: environment, executable: invocation.executable)
        guard let catalog = compiled.lanes.catalog else {
            return try await runCompiledLanes(compiled.lanes, root: root, session: session, environment: environment)
        }
        session.out.line(json ? try LaneCatalogFile.json(catalog.lanes) : catalog.text(root: root))
        return ShiplaneExitCode.success.rawValue
    }

    /// Compiles the lanes (or finds them cached), runs them as a supervised child, and returns
    /// the child's exit code — or, when it died of a signal, the code of that ending.
    static func runLanes(session given: CommandSession, environment: [String: String], executable: String) async throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: given.currentDirectory, environment: environment)
        // `.env` files are read once, here: the supervisor redacts their secrets from what the
        // lane program prints, and hands the variables to the lane program (`SharedSession`).
        var session = given
        try session.loadDotEnv(root: root)
        let compiled = try compileLanes(root: root, session: session, environment: environment, executable: executable)
        return try await runCompiledLanes(compiled.lanes, root: root, session: session, environment: environment)
    }

    /// The compiled lanes of `root`, from the cache or compiled now (saying so on stderr).
    static func compileLanes(
        root: String, session: CommandSession, environment: [String: String], executable: String
    ) throws -> (lanes: LaneCompiler.Compiled, toolchain: Toolchain) {
        let toolchain = try Toolchain.locate(environment: environment, executable: executable)
        let interrupts = CompileInterruptWatch()
        defer { interrupts.stop() }
        var compiler = LaneCompiler(
            toolchain: toolchain, cacheFolder: LaneCompiler.defaultCacheFolder(environment: environment), environment: environment
        )
        compiler.interrupted = { interrupts.interrupted }
        let compiled = try compiler.executable(root: root) {
            interrupts.start()
            session.err.line("Compiling Lanes/ (first run, or the lanes or Shiplane changed)…")
        }
        if interrupts.interrupted { throw CompileInterrupted() }
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
        if environment["SHIPLANE_NO_SUPERVISOR"] == "1" {
            let laneArguments = ["--shiplane-root", root] + session.globals.asArguments + session.rest
            // Without the supervisor (for measuring what it costs, or debugging a lane program):
            // the lane program replaces this process. A crash is then a bare signal, a killed
            // run is settled by the next run, and raw output is not redacted.
            let argv = ([compiled.executable] + laneArguments).map { strdup($0) } + [nil]
            fflush(nil)
            execv(compiled.executable, argv)
            throw EnvironmentProblem("could not start the compiled lanes at \(compiled.executable): \(String(cString: strerror(errno)))")
        }
        // The global options go in the shared session, already read: the lane program does not
        // parse the line again.
        let supervisor = LaneSupervisor(
            executable: compiled.executable, arguments: ["--shiplane-root", root] + session.rest, redactor: session.out.redactor, shared: session.shared
        )
        let (ending, child, printedCrashMessage) = try supervisor.run()
        switch ending {
        case .exited(let code):
            // A run record of this child still marked running means the program ended in the middle
            // of its run (`exit()` in lane code): settle it as for a death by signal.
            // A clean end leaves what lane code started in the background alone; an end in the
            // middle of the run (`exit()` in lane code) stops the commands it left.
            guard !session.globals.dryRun, let settled = await settleAfterDeath(root: root, child: child, program: compiled.executable, session: session) else { return code }
            let lane = session.rest.first ?? "lanes"
            let cause = ShiplaneError(
                "the lane program exited with code \(code) in the middle of its run",
                suggestion: "lane code should throw rather than call exit(): a thrown error is reported and rolled back"
            )
            return session.finish(LaneRunResult(
                lane: lane, dryRun: false, startedAt: Date(), duration: 0, steps: [],
                failure: LaneFailure(lane: lane, causes: [cause] + (settled.takenBack.map { [$0] } ?? []), rollback: settled.rollback, pointOfNoReturn: settled.pointOfNoReturn),
                plannedWrites: []
            ), summary: false)
        case .signaled(let signal):
            return await settleDeath(LaneProgramDied(signal: signal, printedCrashMessage: printedCrashMessage), root: root, child: child, program: compiled.executable, session: session)
        case .killedAfterGrace(let interrupt):
            return await settleDeath(LaneProgramDied(signal: SIGKILL, ignoredInterrupt: interrupt), root: root, child: child, program: compiled.executable, session: session)
        }
    }

    /// The lane program died of a signal: its run is settled from the record and reported.
    static func settleDeath(_ death: LaneProgramDied, root: String, child: pid_t, program: String, session: CommandSession) async -> Int32 {
        var died = death
        let lane = session.rest.first ?? "lanes"
        var rollback: [RollbackEntry] = []
        var noReturn: String?
        var causes: [any Error] = [died]
        if !session.globals.dryRun, let settled = await settleAfterDeath(root: root, child: child, program: program, session: session, orDeadRun: true) {
            (rollback, noReturn) = (settled.rollback, settled.pointOfNoReturn)
            died.settled = true
            causes = [died] + (settled.takenBack.map { [$0] } ?? [])
        }
        return session.finish(LaneRunResult(
            lane: lane, dryRun: session.globals.dryRun, startedAt: Date(), duration: 0, steps: [],
            failure: LaneFailure(lane: lane, causes: causes, rollback: rollback, interrupted: !died.isCrash, pointOfNoReturn: noReturn),
            plannedWrites: []
        ), summary: false)
    }

    /// After the lane program `child` died: rolls its run back from the record when it had not
    /// passed its point of no return, else leaves it for `shiplane resume`. Nil when there was no
    /// record of `child`'s run (or another process holds the lock): a record another process left
    /// (a run killed with its supervisor, which this child refused to start over) is not this
    /// supervisor's to settle — refusing must not destroy it.
    /// Lane code's own effects are undone by `program`, the lane program that died (started anew).
    ///
    /// With `orDeadRun` (the child died of a signal), a record of a run whose process is gone is
    /// settled too: the child was killed before it took that run over (a Ctrl-C in the first
    /// moments of the same command again), which it would have resumed and then rolled back. A
    /// child that exited — refusing to start, say — never settles another run's record.
    static func settleAfterDeath(
        root: String, child: pid_t, program: String, session: CommandSession, orDeadRun: Bool = false
    ) async -> (rollback: [RollbackEntry], pointOfNoReturn: String?, takenBack: UnlandedPush?)? {
        guard let store = try? RunStore.forWorkTree(root), (try? store.lock()) != nil else { return nil }
        defer { store.unlock() }
        guard let found = try? store.load(), found.state == .running else { return nil }
        let deadRun = orDeadRun && found.pid != child && found.pid > 1 && found.host == RunRecord.currentHost
            && OrphanedCommands.hasEnded(found.pid)
        guard found.pid == child || deadRun else { return nil }
        OrphanedCommands.stop()
        // A push cut short that another run's release proves can never land passed no point:
        // the same check as a resume's and `shiplane rollback`'s, so the run rolls back here.
        let (record, takenBack) = RecordedRollback.takingBackUnlandedPush(found, workTree: root, environment: session.laneEnvironment)
        if let noReturn = record.pointOfNoReturn {
            var unfinished = record
            unfinished.state = .unfinished
            try? store.save(unfinished)
            return ([], noReturn, nil)
        }
        let elsewhere = LaneEffectUndo.elsewhere(workTree: root, store: store, environment: session.laneEnvironment.variables) { program }
        guard let outcome = try? await RecordedRollback(store: store, workTree: root, environment: session.laneEnvironment, undoElsewhere: elsewhere)
            .run(record) else { return nil }
        if outcome.failed.isEmpty {
            store.clear()
        } else {
            var unfinished = outcome.record
            unfinished.state = .unfinished
            try? store.save(unfinished)
        }
        return (outcome.entries, nil, takenBack)
    }

    /// This executable's own path, so the library and modules can be found beside it.
    static func executablePath() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
