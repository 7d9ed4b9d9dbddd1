import Dispatch
import Foundation
import Shiplane

/// The entry point of a compiled lanes executable: lists lanes, shows help, runs one.
///
/// `shiplane` compiles `Lanes/*.swift` with a generated entry that calls `LaneHost.main`, then
/// hands over the command line (`--shiplane-root ROOT [global options] LANE [lane options]`).
public enum LaneHost {
    /// The generated entry's call: runs the command line and ends the process.
    ///
    /// `signingKeys` are the signing keys the lane sources name (`SigningKeyDiscovery`): use
    /// (`sign`, `provenance`, `commit`, `tag`), format, variable and where, for the run's preflight.
    public static func main(
        lanes: [any Lane.Type], hooks: [any LaneHooks.Type], locations: [String] = [], effects: [any Effect.Type] = [],
        signingKeys: [(use: String, format: String?, variable: String?, location: String)] = []
    ) async -> Never {
        LaneEffectTypes.register(effects)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 2, arguments[0] == LaneEffectUndo.argument {
            // Asked by the supervisor or `shiplane rollback` to undo one of lane code's own effects.
            endProcess(await LaneEffectUndo.undo(requestFile: arguments[1], environment: ProcessEnvironment.current()))
        }
        let supervisor = SupervisorLifeline.hold()
        lineBufferStandardOutput()
        var environment = ProcessEnvironment.current()
        let shared: Result<SharedSession?, any Error> = Result { try SharedSession.readFromSupervisor(environment: environment) }
        if let value = environment.removeValue(forKey: SessionChannel.secretsVariable), let descriptor = Int32(value) {
            // Secrets that become known from now on reach the supervisor's redactor too; commands
            // this program starts do not inherit the channel.
            unsetenv(SessionChannel.secretsVariable)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            RuntimeSecrets.forward(to: descriptor)
        }
        environment.removeValue(forKey: SessionChannel.sessionVariable)
        let code = await run(
            arguments: arguments, lanes: lanes, hooks: hooks, locations: locations,
            environment: environment, currentDirectory: FileManager.default.currentDirectoryPath, supervisor: supervisor,
            shared: shared, signingKeys: signingKeys.compactMap { NamedSigningKey(use: $0.use, format: $0.format, variable: $0.variable, location: $0.location) }
        )
        endProcess(code)
    }

    /// Ends the process once the run is over and everything it wrote is durable: the standard
    /// streams are flushed, then `_exit`. `exit` would run the C++ and C library destructors while
    /// threads of the run (Dispatch workers, HTTP event loops) may still touch what they destroy:
    /// about 3 in 100 runs of an empty lane crashed there (SIGSEGV in `pthread_rwlock_rdlock`),
    /// after the lane had succeeded, and the supervisor reported the run as failed.
    static func endProcess(_ code: Int32) -> Never {
        fflush(nil)
        _exit(code)
    }

    /// Under the supervisor standard output is a pipe, which C buffers fully: lane code's `print`
    /// would show only at the end (or never, if the program is killed). Line buffering keeps it
    /// live. The C `stdout` is found by its symbol: Swift 6 refuses the mutable global itself.
    static func lineBufferStandardOutput() {
        #if os(Linux)
        let (handle, name): (UnsafeMutableRawPointer?, String) = (nil, "stdout")  // RTLD_DEFAULT is 0
        #else
        let (handle, name): (UnsafeMutableRawPointer?, String) = (UnsafeMutableRawPointer(bitPattern: -2), "__stdoutp")
        #endif
        guard let symbol = dlsym(handle, name) else { return }
        setvbuf(symbol.load(as: UnsafeMutablePointer<FILE>.self), nil, _IOLBF, 0)
    }

    /// Runs the command line and returns the exit code; everything the run prints goes to the
    /// process's standard output and error. `supervisor` is the `shiplane` process that started
    /// this one, told when an interrupt reaches the lane first (Ctrl-C at a terminal).
    public static func run(
        arguments: [String], lanes: [any Lane.Type], hooks: [any LaneHooks.Type], locations: [String] = [],
        environment: [String: String], currentDirectory: String, supervisor: pid_t? = nil
    ) async -> Int32 {
        await run(
            arguments: arguments, lanes: lanes, hooks: hooks, locations: locations, environment: environment,
            currentDirectory: currentDirectory, supervisor: supervisor, shared: .success(nil)
        )
    }

    /// `run(arguments:…)` with what the supervisor resolved for the session (`shared`: nil when
    /// this program was not started by a supervisor, which then reads `.env` itself).
    static func run(
        arguments: [String], lanes: [any Lane.Type], hooks: [any LaneHooks.Type], locations: [String],
        environment: [String: String], currentDirectory: String, supervisor: pid_t?, shared: Result<SharedSession?, any Error>,
        signingKeys: [NamedSigningKey] = []
    ) async -> Int32 {
        var arguments = arguments
        var root = currentDirectory
        if arguments.count >= 2, arguments[0] == "--shiplane-root" {
            root = arguments[1]
            arguments.removeFirst(2)
        }
        let catalog = LaneCatalog(lanes: lanes)
        if arguments == [LaneCatalogFile.argument] {
            // Asked once, right after compiling: what `shiplane lanes` and completions show.
            guard (try? LaneDeclarationError.check(lanes, locations: locations)) != nil,
                  let json = try? LaneCatalogFile(lanes: catalog.lanes.map(LaneCatalog.describe), listing: listingBody(catalog)).encoded()
            else { return ShiplaneExitCode.usage.rawValue }
            print(String(decoding: json, as: UTF8.self))
            return ShiplaneExitCode.success.rawValue
        }
        var session: CommandSession
        do {
            if case .success(let resolved?) = shared, let globals = resolved.globals {
                // Started by a supervisor, which read the global options: the words are the rest.
                session = try CommandSession(
                    globals: globals, rest: arguments, environment: environment, currentDirectory: currentDirectory
                )
            } else {
                session = try CommandSession(arguments: arguments, environment: environment, currentDirectory: currentDirectory)
            }
        } catch {
            return CommandSession.fail(error, arguments: arguments, environment: environment, currentDirectory: currentDirectory)
        }
        session.namedSigningKeys = signingKeys
        do {
            try LaneDeclarationError.check(lanes, locations: locations)
            if let resolved = try shared.get() {
                session.adopt(resolved)
            } else {
                try session.loadDotEnv(root: root)
            }
            guard let command = session.rest.first else {
                session.out.line(listing(catalog, root: root, environment: environment))
                return ShiplaneExitCode.success.rawValue
            }
            if command == "lanes" {
                let options = try ShiplaneCommand.ListLanes.parse(Array(session.rest.dropFirst()))
                if options.json {
                    session.out.line(try LaneCatalogFile.json(catalog.lanes.map(LaneCatalog.describe)))
                } else {
                    session.out.line(listing(catalog, root: root, environment: environment))
                }
                return ShiplaneExitCode.success.rawValue
            }
            guard let lane = catalog.lane(named: command) else {
                var info: [(key: String, value: String)] = [("lanes", catalog.publicNames.joined(separator: ", "))]
                if let close = catalog.suggestion(for: command) {
                    info.insert(("did you mean", close), at: 0)
                } else if let builtIn = LaneDeclarationError.closeBuiltInCommand(to: command) {
                    // A mistyped built-in (`rollbak`) is not a lane the user meant to have.
                    info.insert(("did you mean", builtIn), at: 0)
                    throw UsageError("unknown command `\(command)`", suggestion: "run `shiplane help` for the commands, `shiplane lanes` for the lanes", info: info)
                }
                throw UsageError("unknown lane `\(command)`", suggestion: "run `shiplane lanes` to see every lane and its options", info: info)
            }
            if lane.isPrivate {
                throw UsageError(
                    "lane `\(command)` is private: lanes can call it, the command line cannot",
                    suggestion: "call it from another lane with `try await lane.call(\(lane).self)`"
                )
            }
            return await runLane(lane, arguments: Array(session.rest.dropFirst()), hooks: hooks, root: root, session: session, supervisor: supervisor)
        } catch {
            return session.failWithoutRun(error, command: "shiplane" + (session.rest.first.map { " " + $0 } ?? ""))
        }
    }

    static func runLane<L: Lane>(
        _ type: L.Type, arguments: [String], hooks: [any LaneHooks.Type], root: String, session given: CommandSession,
        supervisor: pid_t? = nil, fromOrigin: RunRecord? = nil
    ) async -> Int32 {
        let converted = keyValueConverted(arguments, for: type)
        let lane: L
        do {
            lane = try withoutOptions(type, arguments: converted) ?? type.parse(converted)
        } catch {
            var translated = given
            translated.hintTranslations = builtInHints(of: type) ?? []
            let session = translated
            if type.exitCode(for: error) == .success {
                session.out.line("shiplane \(type.name)" + (type.summary.isEmpty ? "" : " — \(type.summary)"))
                session.out.line("")
                session.out.line(commandHelp(type.helpMessage(columns: nil), commandLine: "shiplane \(type.name)"))
                return ShiplaneExitCode.success.rawValue
            }
            let message = type.message(for: error)
            return session.failWithoutRun(UsageError(
                (builtInHints(of: type) != nil ? "\(type.name): " : "lane \(type.name): ") + message,
                suggestion: "run `shiplane \(type.name) --help` to see its options"
            ), command: "shiplane \(type.name)")
        }
        return await runLane(lane, arguments: arguments, hooks: hooks, root: root, session: given, supervisor: supervisor, fromOrigin: fromOrigin)
    }

    /// The lane itself, validated, when it stores nothing (a struct of size 0: no option, flag
    /// or argument, whose property wrappers take room) and the command line gives it no word:
    /// what `parse([])` returns, without swift-argument-parser building the command's argument
    /// tree by reflection and looking for its completion-script options, which took a sixth of a
    /// no-op lane program's start. (Asking a `Mirror` for the properties instead cost a third of
    /// that again: its first use instantiates the type-erased collections it hands out.)
    /// Nil when the lane stores something, words were given, or `validate()` refuses: `parse`
    /// then does the work and reports as it always does.
    static func withoutOptions<L: Lane>(_ type: L.Type, arguments: [String]) -> L? {
        guard arguments.isEmpty, MemoryLayout<L>.size == 0 else { return nil }
        var lane = L()
        guard (try? lane.validate()) != nil else { return nil }
        return lane
    }

    /// Runs `lane`, parsed from `arguments` (its words on the command line, which the run record
    /// keeps), with its run record, rollback and report.
    static func runLane<L: Lane>(
        _ lane: sending L, arguments: [String], hooks: [any LaneHooks.Type], root: String, session given: CommandSession,
        supervisor: pid_t? = nil, fromOrigin: RunRecord? = nil
    ) async -> Int32 {
        let type = L.self
        var translated = given
        translated.hintTranslations = builtInHints(of: type) ?? []
        let session = translated
        // `shiplane plan`: the steps go to standard error, standard output is the matrix alone.
        let planFormat = session.globals.plan
        let reporter = TerminalReporter(terminal: planFormat == nil ? session.out : session.err, verbose: session.globals.verbose, ci: session.ci)
        var dependencies = LaneContext.Dependencies(
            workingDirectory: root, environment: session.laneEnvironment,
            retryPolicy: RetryPolicy(environment: session.laneEnvironment),
            reporter: reporter, isDryRun: session.globals.dryRun || planFormat != nil, runsGitHooks: !session.globals.noVerify
        )
        dependencies.fanOut = planFormat != nil ? .plan : session.globals.part.map { .part($0) } ?? (session.globals.fanIn ? .fanIn : .inline)
        let context = LaneContext(dependencies, hooks: hooks.map { $0.init() })
        var recorder: RunRecorder?
        // A pull request's pipeline: the run reads, builds and tests, but its first effect is
        // refused before it happens; a dry run shows the release and says the real one would stop.
        if let pullRequest = session.laneEnvironment.refusingPullRequest {
            let command = (["shiplane", type.name] + arguments).map(RunRecord.shellQuoted).joined(separator: " ")
            if session.globals.dryRun {
                session.err.line("Note: this is a pull-request pipeline (\(pullRequest.variable), \(pullRequest.ci)): the real run would stop before its first change (exit 4).")
            } else {
                context.journal.refuseEffects(PullRequestPipeline(pullRequest: pullRequest, command: command))
            }
        }
        if planFormat != nil {
            // A plan only lists the parts: no record, no look at unfinished runs.
        } else if session.globals.dryRun {
            DurableRun.noteUnfinishedRunForDryRun(lane: type.name, arguments: arguments, root: root, session: session)
        } else {
            do {
                recorder = try await DurableRun.begin(
                    lane: type.name, arguments: arguments, root: root, context: context, session: session, fromOrigin: fromOrigin)
            } catch is RunFinishedElsewhere {
                // Re-running (or resuming) a release another machine finished: nothing is left to do.
                session.err.line("Nothing to resume: the release is done.")
                return ShiplaneExitCode.success.rawValue
            } catch {
                return session.failWithoutRun(error, command: "shiplane \(type.name)")
            }
        }
        defer { recorder?.store.unlock() }
        let runner = LaneRunner(rollbackOnFailure: !session.globals.noRollback, namedSigningKeys: session.namedSigningKeys)
        let task = Task { await runner.run(lane, in: context) }
        let interrupts = InterruptHandler(
            onInterrupt: {
                task.cancel()
                // The supervisor starts its grace period (`LaneSupervisor`): Ctrl-C at a terminal
                // reaches the lane program's process group, not `shiplane`.
                if let supervisor { kill(supervisor, LaneSupervisor.interruptedSignal) }
            },
            onRepeat: {
                session.err.line("Still stopping: undoing what the run did first (the record in .git/shiplane lets `shiplane rollback` finish it if this process is killed).")
            }
        )
        let result = await task.value
        interrupts.stop()
        if let found = result.failure?.resumingFromOrigin, fromOrigin == nil {
            // A fresh clone of a half-published release: this attempt changed nothing; the
            // command starts again as the resume of the run origin recorded.
            recorder?.store.unlock()
            recorder = nil
            session.err.line(
                "Found the unfinished run of `\(found.record.commandLine)` recorded on origin (\(RemoteRunRecord.reference)); "
                    + "this attempt changed nothing and stops here (what it said above is not the outcome): resuming that run."
            )
            // The command starts again from its words (the lane value went to the run that stopped).
            return await runLane(L.self, arguments: arguments, hooks: hooks, root: root, session: given, supervisor: supervisor, fromOrigin: found.record)
        }
        if let planFormat {
            guard result.succeeded else { return session.finish(result, summary: false) }
            do {
                session.out.line(try PartsMatrix(lane: type.name, arguments: arguments, parts: context.fanOut.parts).rendered(as: planFormat))
            } catch {
                return session.failWithoutRun(error, command: "shiplane plan \(type.name)")
            }
            return ShiplaneExitCode.success.rawValue
        }
        return session.finish(result)
    }

    static func listing(_ catalog: LaneCatalog, root: String, environment: [String: String]) -> String {
        (["Lanes in \(root)/Lanes:"] + listingBody(catalog)).joined(separator: "\n")
    }

    /// The listing's lines after its first, which names the repository.
    static func listingBody(_ catalog: LaneCatalog) -> [String] {
        var lines: [String] = []
        let visible = catalog.lanes.filter { !$0.isPrivate }
        let width = visible.map { $0.name.count }.max() ?? 0
        for lane in visible {
            lines.append("  " + lane.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + lane.summary)
            for option in OptionInfo.options(of: lane) {
                var text = "      " + option.displayName
                if option.kind != "flag", let value = option.valueName { text += " <\(value)>" }
                if let help = option.abstract, !help.isEmpty { text += "  " + help }
                if let value = option.defaultValue { text += " (default: \(value))" }
                lines.append(text)
            }
        }
        let hidden = catalog.lanes.filter { $0.isPrivate }.map { $0.name }
        if !hidden.isEmpty { lines.append("Private (callable from lanes): " + hidden.joined(separator: ", ")) }
        lines.append("Run `shiplane <lane> --help` for a lane's options; `--dry-run` shows what a lane would do.")
        return lines
    }
}

/// Ctrl-C, SIGTERM or SIGHUP during a run: the first cancels the lane (which rolls back, or stops
/// past its point of no return); later ones do not cut the rollback short, they only say so.
final class InterruptHandler: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`; the sources are set once in `init`.
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var count = 0

    init(onInterrupt: @escaping @Sendable () -> Void, onRepeat: @escaping @Sendable () -> Void = {}) {
        for number in Self.signals {
            // A handler that does nothing, not SIG_IGN: an ignored signal stays ignored in every
            // command the lane starts (so `sleep` would shrug off SIGTERM), while a caught one is
            // reset to its default action when a command starts. The dispatch source still sees it.
            signal(number, ignoreSignalKeepingChildrenDefault)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.lock.withLock {
                    self.count += 1
                    return self.count == 1
                }
                if first { onInterrupt() } else { onRepeat() }
            }
            source.resume()
            sources.append(source)
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}

/// The do-nothing signal handler `InterruptHandler` installs (see there why not `SIG_IGN`).
private func ignoreSignalKeepingChildrenDefault(_ signal: Int32) {}

/// A lane's `--help` text as the user types the command: swift-argument-parser starts the usage
/// line with the type's own name (`USAGE: bump_lane …`); it becomes `USAGE: shiplane bump …`.
func commandHelp(_ help: String, commandLine: String) -> String {
    guard let range = help.range(of: #"USAGE: \S+"#, options: .regularExpression) else { return help }
    return help.replacingCharacters(in: range, with: "USAGE: " + commandLine)
}

extension LaneHost {
    /// The hints of a built-in command's lane (`BuiltInLane`); nil for a lane of `Lanes/`. Told
    /// by identity, not by `as? any BuiltInLane.Type`: a cast that misses (every lane of
    /// `Lanes/`) scans every protocol conformance of the program, on every lane's start.
    static func builtInHints<L: Lane>(of type: L.Type) -> [(lane: String, command: String)]? {
        let id = ObjectIdentifier(type)
        if id == ObjectIdentifier(BumpLane.self) { return BumpLane.commandLineHints }
        if id == ObjectIdentifier(ChangelogLane.self) { return ChangelogLane.commandLineHints }
        return nil
    }
}

/// The lanes behind built-in commands (`bump`, `changelog --write`): their messages name the
/// command, not a lane, and their hints name its flags, not lane parameters. Each is listed in
/// `LaneHost.builtInHints(of:)`.
protocol BuiltInLane {
    /// Lane-code phrases in hints, and what to say on this command's line instead.
    static var commandLineHints: [(lane: String, command: String)] { get }
}

extension BuiltInLane {
    static var commandLineHints: [(lane: String, command: String)] { [] }
}
