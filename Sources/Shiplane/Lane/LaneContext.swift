import Foundation
internal import Git

/// Everything a lane and its actions reach the world through: repository, files, processes,
/// environment, clock and reporter. Built by the CLI with live values, by tests with their own.
public final class LaneContext: @unchecked Sendable {
    // @unchecked: every stored property is a `let`; all are Sendable but `hooks`, values of lane
    // code's types (`LaneHooks` asks no `Sendable` of lane authors), which the runner calls from one
    // lane at a time, in order.
    /// What a context is built from; every side effect comes in through here.
    package struct Dependencies: Sendable {
        /// The folder lanes run in: the repository's work tree root.
        package var workingDirectory: String
        /// The environment variables the run sees, and the secrets among them.
        package var environment: LaneEnvironment
        /// Reads and writes files (the context wraps it in an overlay for a dry run).
        package var fileSystem: any FileSystem
        /// Runs commands.
        package var processRunner: any ProcessRunning
        /// Sends HTTP requests, once each; retries come from `retryPolicy`.
        package var http: any HTTPSending
        /// How HTTP requests are retried, and how the waits between them are spent.
        package var retryPolicy: RetryPolicy
        /// Receives the run's events: steps, output, messages.
        package var reporter: any Reporting
        /// The current time.
        package var now: @Sendable () -> Date
        /// True for a dry run: steps read for real and write nothing outside the overlay.
        package var isDryRun: Bool
        /// Whether git's pre-commit, commit-msg and pre-push hooks run (`--no-verify` turns them off).
        package var runsGitHooks: Bool
        /// Hear each finished step and each message about to go: durability and fault injection.
        package var observers: [any RunObserving] = RunObservers.standard
        /// How the lane's parts run (`lane.part`): here, planned, one part (`--part`), or from origin (`--fan-in`).
        package var fanOut: FanOutMode = .inline

        /// Creates the dependencies; everything but the folder, environment and reporter has a live default.
        package init(
            workingDirectory: String, environment: LaneEnvironment,
            fileSystem: any FileSystem = LiveFileSystem(), processRunner: any ProcessRunning = LiveProcessRunner(),
            http: any HTTPSending = LiveHTTPClient(), retryPolicy: RetryPolicy = RetryPolicy(),
            reporter: any Reporting, now: @escaping @Sendable () -> Date = { Date() }, isDryRun: Bool = false,
            runsGitHooks: Bool = true
        ) {
            self.workingDirectory = workingDirectory
            self.environment = environment
            self.fileSystem = fileSystem
            self.processRunner = processRunner
            self.http = http
            self.retryPolicy = retryPolicy
            self.reporter = reporter
            self.now = now
            self.isDryRun = isDryRun
            self.runsGitHooks = runsGitHooks
        }
    }

    /// The repository's work tree root: commands run here and relative paths start here.
    public let workingDirectory: String
    /// The environment variables the run sees, and the secrets among them.
    public let environment: LaneEnvironment
    /// Real files, or in a dry run an overlay that keeps writes in memory.
    public let fileSystem: any FileSystem
    /// Runs commands.
    public let processRunner: any ProcessRunning
    /// Sends HTTP requests (AsyncHTTPClient in a live run).
    public let http: any HTTPSending
    /// How HTTP requests are retried.
    package let retryPolicy: RetryPolicy
    /// True for a dry run: steps read for real and write nothing outside the overlay.
    public let isDryRun: Bool
    /// Whether git's hooks run for the commits and pushes of this run.
    package let runsGitHooks: Bool
    /// The hooks found in `Lanes/`, run around every lane.
    package let hooks: [any LaneHooks]
    /// The monorepo package this context works on (`lane.package("core")`): its folder holds the
    /// version files, its tags (`core-v1.2.0`) are the releases, and only commits touching it
    /// count. Nil: the whole repository.
    public let package: ProjectPackage?
    /// The branch a release on a detached HEAD goes to (`onBranch(_:)`, `--branch`); nil: the
    /// CI's variables say (`LaneEnvironment.ciBranch`).
    let branchOverride: String?
    let state: RunState
    /// The parts of a release fanned out over CI jobs (`lane.part`), shared by the contexts of one run.
    package let fanOut: FanOutRun
    let depth: Int
    private let repositories: RepositoryCache

    /// Creates the context for a run from its dependencies and the hooks found in `Lanes/`.
    package init(_ dependencies: Dependencies, hooks: [any LaneHooks] = []) {
        workingDirectory = dependencies.workingDirectory
        environment = dependencies.environment
        isDryRun = dependencies.isDryRun
        runsGitHooks = dependencies.runsGitHooks
        fileSystem = dependencies.isDryRun ? OverlayFileSystem(base: dependencies.fileSystem) : dependencies.fileSystem
        processRunner = dependencies.processRunner
        http = dependencies.http
        retryPolicy = dependencies.retryPolicy
        self.hooks = hooks
        package = nil
        branchOverride = nil
        let undoContext = EffectContext(
            workTree: dependencies.workingDirectory, environment: dependencies.environment, fileSystem: dependencies.fileSystem,
            http: dependencies.http, retryPolicy: dependencies.retryPolicy, savedCopies: MemorySavedCopies(), gitFolder: nil
        )
        state = RunState(reporter: dependencies.reporter, journal: Journal(context: undoContext), now: dependencies.now,
                         observers: dependencies.observers)
        fanOut = FanOutRun(mode: dependencies.fanOut, workTree: dependencies.workingDirectory)
        depth = 0
        repositories = RepositoryCache(path: dependencies.workingDirectory)
    }

    private init(parent: LaneContext, depth: Int, package: ProjectPackage? = nil, branch: String? = nil) {
        self.package = package ?? parent.package
        branchOverride = branch ?? parent.branchOverride
        workingDirectory = parent.workingDirectory
        environment = parent.environment
        isDryRun = parent.isDryRun
        runsGitHooks = parent.runsGitHooks
        fileSystem = parent.fileSystem
        processRunner = parent.processRunner
        http = parent.http
        retryPolicy = parent.retryPolicy
        hooks = parent.hooks
        state = parent.state
        fanOut = parent.fanOut
        self.depth = depth
        repositories = parent.repositories
    }

    /// The same run, working on one package of a monorepo declared in `.shiplane.yml`: versions
    /// are read from and bumped in its folder (or its tags), `auto` and changelogs see only the
    /// commits that touch it, and its release tags are `NAME-v1.2.3` (or its own `tag` format).
    /// - Throws: `SettingsError` when no package has that name (the names are listed).
    public func package(_ name: String) throws -> LaneContext {
        let settings = try ProjectSettings.load(root: workingDirectory)
        guard let found = settings.packages.first(where: { $0.name == name }) else {
            throw SettingsError(
                settings.packages.isEmpty ? "no packages are declared: `\(name)` is unknown" : "no package is named `\(name)`",
                suggestion: settings.packages.isEmpty
                    ? "declare them in \(ProjectSettings.fileName): `packages: [{ name: \(name), path: packages/\(name) }]`"
                    : "the packages are: " + settings.packages.map(\.name).joined(separator: ", ")
            )
        }
        return LaneContext(parent: self, depth: depth, package: found)
    }

    /// The same run, releasing to `branch` when HEAD is detached (as CI checks out): the release
    /// commit is made on top of HEAD and pushed to `refs/heads/BRANCH`, whatever the CI's variables
    /// say. On a branch, HEAD's branch must be `branch`.
    public func onBranch(_ branch: String) -> LaneContext {
        LaneContext(parent: self, depth: depth, branch: branch)
    }

    /// The release tag for `version`: `v1.2.3`, or the package's (`core-v1.2.3`). Written as the
    /// repository's release tags are (`ReleaseTagStyle`): `2.1.6` where they are bare versions,
    /// `v7.77` where they write two numbers, `v1.2.3` before the first; `prefix` overrides the `v`.
    public func releaseTagName(_ version: CustomStringConvertible, prefix: String? = nil) -> String {
        if let package { return package.tagPrefix + version.description }
        // Tags that cannot be read are reported by the step that reads or writes them; the name
        // then takes the default style.
        let style = (try? releaseTagStyle()) ?? ReleaseTagStyle()
        let semantic = (version as? VersionBumpResult)?.version ?? (version as? SemanticVersion)
        return (prefix ?? style.prefix) + (semantic.map { style.text(for: $0, shown: version.description) } ?? version.description)
    }

    /// The undo log of this run.
    package var journal: Journal { state.journal }

    /// Every step recorded so far, in start order.
    public var steps: [StepRecord] { state.steps }

    /// The writes a dry run kept in its overlay, in first-write order; empty in a real run.
    public var plannedWrites: [(path: String, data: Data?)] {
        // Only a dry run writes to an overlay; a real run skips the cast, whose first miss costs a
        // scan of every protocol conformance of the program.
        guard isDryRun else { return [] }
        return (fileSystem as? OverlayFileSystem)?.plannedWrites ?? []
    }

    /// Sets a named output of the run: in GitHub Actions it is appended to `GITHUB_OUTPUT`, and it
    /// is in the JSON report. Built-in steps set `version`, `tag` and `release_url`.
    public func setOutput(_ name: String, _ value: String) {
        state.setOutput(name, value)
    }

    /// The run's named outputs so far, in the order they were first set.
    public var outputs: [(name: String, value: String)] { state.outputs }

    /// Logs a message from lane code.
    public func log(_ message: String, level: LogLevel = .info) {
        state.reporter.report(.message(message, level: level, step: nil))
    }

    /// The repository's git hooks, or nil when they are off for this run (`--no-verify`).
    func gitHooks(_ repository: Repository) throws -> GitHooks? {
        guard runsGitHooks else { return nil }
        return try GitHooks(repository: repository, workTree: workingDirectory, environment: environment.variables)
    }

    /// A resumed run's recorded result for this step, handed back without running it.
    private func replayed<Output>(
        _ record: StepRecord, as type: Output.Type, makesLocalArtifacts: Bool, exports: (Output) -> [(name: String, value: String)]
    ) -> Output? {
        guard !isDryRun, let output = state.replay(record, as: type, makesLocalArtifacts: makesLocalArtifacts) else { return nil }
        state.recordStepOutput(output, step: record.number)
        state.setOutputs(exports(output))
        state.setNote(record.number, "done before the interruption")
        state.recordFinished(record, outcome: .succeeded, output: output)
        for observer in state.observers { observer.stepFinished(record, replayed: true, carriedRefs: false, in: self) }
        state.finish(record.number, outcome: .succeeded)
        return output
    }

    /// Records a step that succeeded and tells the run's observers (`RunObserving`).
    private func succeeded<Output>(
        _ record: StepRecord, _ output: Output, exports: [(name: String, value: String)], carriedRefs: Bool
    ) -> Output {
        state.setOutputs(exports)
        state.recordFinished(record, outcome: .succeeded, output: output)
        for observer in state.observers { observer.stepFinished(record, replayed: false, carriedRefs: carriedRefs, in: self) }
        state.finish(record.number, outcome: .succeeded)
        return output
    }

    /// Records a step that failed; returns the error to throw, with the call site.
    private func failed<Output>(_ record: StepRecord, _ error: any Error, as type: Output.Type) -> StepFailure {
        state.forgetArtifacts(madeBy: record.number)
        state.recordFinished(record, outcome: .failed, output: nil as Output?)
        state.finish(record.number, outcome: .failed, error: describe(error))
        return StepFailure(step: record.name, callSite: record.callSite, cause: error)
    }

    /// An effect a retry elsewhere must know of is written down (a message about to go, a
    /// multipart upload begun): the run's observers hear it (past the point of no return the
    /// remote's record learns of it at once: `RemoteRecordFollower`).
    func effectUnderWay(_ what: String) {
        for observer in state.observers { observer.effectUnderWay(what, in: self) }
    }

    /// The open repository of the working directory (opened once per run).
    func repository() throws -> Repository {
        try repositories.repository()
    }

    // MARK: - Steps

    /// Runs an action as a recorded step.
    /// - Throws: `StepFailure` carrying the call site and the action's error.
    @discardableResult
    public func run<A: Action>(_ action: A, file: String = #fileID, line: Int = #line) throws -> A.Output {
        try Task.checkCancellation()
        try fanOut.beforeStep()
        let record = state.start(name: A.name, callSite: CallSite.inLane(file: file, line: line), options: action.options, depth: depth)
        if let replayed = replayed(record, as: A.Output.self, makesLocalArtifacts: action is any MakesLocalArtifacts, exports: action.runOutputs(of:)) {
            return replayed
        }
        do {
            let output = try action.run(in: StepContext(lane: self, number: record.number))
            state.recordStepOutput(output, step: record.number)
            try state.checkRemadeArtifacts(record)
            return succeeded(record, output, exports: action.runOutputs(of: output), carriedRefs: action is any CarriesObserversRefs)
        } catch {
            throw failed(record, error, as: A.Output.self)
        }
    }

    /// Runs an async action as a recorded step.
    /// - Throws: `StepFailure` carrying the call site and the action's error.
    @discardableResult
    public func run<A: AsyncAction>(_ action: A, file: String = #fileID, line: Int = #line) async throws -> A.Output {
        try Task.checkCancellation()
        try fanOut.beforeStep()
        let record = state.start(name: A.name, callSite: CallSite.inLane(file: file, line: line), options: action.options, depth: depth)
        if let replayed = replayed(record, as: A.Output.self, makesLocalArtifacts: action is any MakesLocalArtifacts, exports: action.runOutputs(of:)) {
            return replayed
        }
        do {
            let output = try await action.run(in: StepContext(lane: self, number: record.number))
            state.recordStepOutput(output, step: record.number)
            try state.checkRemadeArtifacts(record)
            return succeeded(record, output, exports: action.runOutputs(of: output), carriedRefs: action is any CarriesObserversRefs)
        } catch {
            throw failed(record, error, as: A.Output.self)
        }
    }

    // MARK: - Lanes calling lanes

    /// Runs another lane as a step of this one and returns its result.
    ///
    /// Build the value by parsing, `try lane.call(Build.parse(["--configuration", "release"]))`,
    /// or use `call(_:configure:)`: a lane made with `Build()` has options that were never
    /// parsed, and swift-argument-parser stops the program when one of them is read.
    @discardableResult
    public func call<L: Lane>(_ other: L, file: String = #fileID, line: Int = #line) async throws -> L.Output {
        try Task.checkCancellation()
        let record = state.start(name: "lane \(L.name)", callSite: CallSite.inLane(file: file, line: line), options: [], depth: depth)
        do {
            let output = try await LaneContext(parent: self, depth: depth + 1).perform(other)
            state.finish(record.number, outcome: .succeeded)
            return output
        } catch {
            state.finish(record.number, outcome: .failed, error: describe(error))
            throw StepFailure(step: "lane \(L.name)", callSite: record.callSite, cause: error)
        }
    }

    /// Runs another lane with its default options, changed by `configure`, and returns its result.
    ///
    ///     let archive = try await lane.call(Package.self) { $0.configuration = "release" }
    @discardableResult
    public func call<L: Lane>(
        _ type: L.Type, file: String = #fileID, line: Int = #line, configure: (inout L) throws -> Void = { _ in }
    ) async throws -> L.Output {
        var other: L
        do {
            other = try L.parse([])
        } catch {
            throw StepFailure(
                step: "lane \(L.name)", callSite: CallSite.inLane(file: file, line: line),
                cause: ShiplaneError(
                    "lane \(L.name) has required options: \(L.fullMessage(for: error))",
                    suggestion: "pass them: lane.call(\(L.self).self) { $0.option = value }, or give the options defaults"
                )
            )
        }
        try configure(&other)
        return try await call(other, file: file, line: line)
    }

    /// Runs a lane with the hooks around it; used for the top lane and for called lanes.
    func perform<L: Lane>(_ lane: L) async throws -> L.Output {
        let info = LaneInfo(name: L.name, depth: depth)
        if depth > 0 { state.reporter.report(.laneStarted(name: L.name, depth: depth, dryRun: isDryRun)) }
        let started = state.now()
        for hook in hooks { try await hook.beforeLane(info, context: self) }
        do {
            var validated = lane
            try validated.validate()
            let output = try await validated.run(self)
            for hook in hooks { try await hook.afterLane(info, context: self) }
            if depth > 0 {
                state.reporter.report(.laneFinished(name: L.name, depth: depth, succeeded: true, duration: state.now().timeIntervalSince(started)))
            }
            return output
        } catch {
            if depth > 0 {
                state.reporter.report(.laneFinished(name: L.name, depth: depth, succeeded: false, duration: state.now().timeIntervalSince(started)))
            }
            throw error
        }
    }
}

/// Opens the repository once, on first use, and hands out the same handle afterwards.
final class RepositoryCache: @unchecked Sendable {
    // @unchecked: `opened` is only touched under `lock`; `Repository` serialises libgit2 itself.
    private let path: String
    private let lock = NSLock()
    private var opened: Repository?

    init(path: String) {
        self.path = path
    }

    func repository() throws -> Repository {
        lock.lock()
        defer { lock.unlock() }
        if let opened { return opened }
        let repository = try RepositoryAccess.open(at: path)
        opened = repository
        return repository
    }
}
