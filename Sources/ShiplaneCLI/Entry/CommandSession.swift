import Foundation
import Shiplane

/// One invocation's settings and output channels: global options, environment, terminals.
///
/// The one place that turns errors into printed trees and exit codes, and runs into summaries,
/// reports and exit codes.
struct CommandSession {
    let globals: GlobalValues
    let rest: [String]
    private(set) var laneEnvironment: LaneEnvironment
    let out: Terminal
    let err: Terminal
    private(set) var redactor: SecretRedactor
    /// The variables `.env` files gave this session (those the process environment did not set).
    private(set) var dotEnv: [String: String] = [:]
    let currentDirectory: String
    /// Hints written for lane code, in the words of the command being run (`pass
    /// allowOtherChanges: true` → `pass --allow-dirty` for `shiplane bump`).
    var hintTranslations: [(lane: String, command: String)] = []
    /// The signing keys the lane sources name, checked before the lane's first step.
    var namedSigningKeys: [NamedSigningKey] = []

    /// Reads the global options from `arguments` (wherever they stand before `--`); the other
    /// words are `rest`.
    init(arguments: [String], environment: [String: String], currentDirectory: String) throws {
        let (globals, rest) = try CommandLineWords.split(arguments)
        try self.init(globals: globals, rest: rest, environment: environment, currentDirectory: currentDirectory)
    }

    /// A session with global options already read (by the supervisor, for its lane program).
    init(globals: GlobalValues, rest: [String], environment: [String: String], currentDirectory: String) throws {
        try Self.checkReportPaths(globals, currentDirectory: currentDirectory)
        self.globals = globals
        self.rest = rest
        self.currentDirectory = currentDirectory
        let laneEnvironment = LaneEnvironment(variables: environment)
        self.laneEnvironment = laneEnvironment
        let redactor = SecretRedactor(secrets: Array(laneEnvironment.secretValues))
        self.redactor = redactor
        out = Terminal(environment: environment, noColor: globals.noColor, redactor: redactor)
        err = Terminal(standardError: true, environment: environment, noColor: globals.noColor, redactor: redactor)
        if environment["SHIPLANE_TRUST_REPOSITORY_OWNER"] == "1" {
            try GitSettings.trustRepositoryOwners()
        }
    }

    /// Adds the variables of `root/.env` and, with `--env NAME`, `root/.env.NAME`.
    ///
    /// A variable already set in the process environment wins over both files (CI's secrets stay
    /// authoritative); `.env.NAME` wins over `.env`. Secret-looking values from the files are
    /// redacted like any other.
    /// - Throws: `DotEnvError` listing every malformed line; `UsageError` when `.env.NAME` is missing.
    mutating func loadDotEnv(root: String) throws {
        if let name = globals.environmentName, !FileManager.default.fileExists(atPath: "\(root)/.env.\(name)") {
            throw UsageError("--env \(name): there is no file .env.\(name) in \(root)", suggestion: "create .env.\(name) with KEY=value lines, or drop --env")
        }
        let loaded = try DotEnv.load(folder: root, environment: globals.environmentName)
        adopt(SharedSession(dotEnv: loaded.values.filter { laneEnvironment[$0.key] == nil }))
    }

    /// Takes the `.env` variables resolved once, by this process or by the supervisor that
    /// started it, and redacts their secrets from every channel.
    mutating func adopt(_ shared: SharedSession) {
        for (key, value) in shared.dotEnv where laneEnvironment[key] == nil {
            laneEnvironment.set(key, value)
            dotEnv[key] = value
        }
        redactor = SecretRedactor(secrets: Array(laneEnvironment.secretValues))
        out.redactor = redactor
        err.redactor = redactor
    }

    /// What this session resolved that the lane program it starts shares.
    var shared: SharedSession { SharedSession(dotEnv: dotEnv, globals: globals) }

    /// `--report-json` and `--junit` must be writable, and harmless to write, before anything
    /// runs: a release must not happen and then fail to say so, nor end by overwriting a file of
    /// the repository (`--report-json VERSION`), the repository itself (`.git/HEAD`), a file
    /// elsewhere through a link, or a device; the two reports are two files. Every problem is
    /// listed at once.
    /// - Throws: `UsageError`.
    static func checkReportPaths(_ globals: GlobalValues, currentDirectory: String) throws {
        var problems: [(key: String, value: String)] = []
        for (option, path) in [("--report-json", globals.reportJSON), ("--junit", globals.junit)] {
            guard let path, let problem = reportPathProblem(path, currentDirectory: currentDirectory) else { continue }
            problems.append((option, problem))
        }
        if let json = globals.reportJSON, let junit = globals.junit,
           RepositoryFileGuard.sameFile(fullPath(json, currentDirectory), fullPath(junit, currentDirectory)) {
            problems.append(("--junit", "\(junit) is the file --report-json writes too: one report would overwrite the other"))
        }
        guard !problems.isEmpty else { return }
        throw UsageError(
            problems.count == 1 ? "a report could not be written there" : "the reports could not be written there",
            suggestion: "give each report a new file (or an untracked one) of its own, outside .git, in a folder that exists and is writable; nothing was run",
            info: problems
        )
    }

    private static func fullPath(_ path: String, _ currentDirectory: String) -> String {
        path.hasPrefix("/") ? path : currentDirectory + "/" + path
    }

    /// Why the report file `path` cannot or must not be written; nil when it can.
    static func reportPathProblem(_ path: String, currentDirectory: String) -> String? {
        if path.hasPrefix("-") { return "\(path) looks like an option, not a file" }
        let full = fullPath(path, currentDirectory)
        let folder = (full as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder) {
            if isFolder.boolValue { return "\(path) is a folder" }
            // A link out of the repository and a device are named before the question of access.
            if let problem = RepositoryFileGuard.problem(writing: full, purpose: .report) { return "\(path) \(problem.text)" }
            if access(full, W_OK) != 0 { return "\(path) cannot be written" }
        } else if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
            return "the folder \(folder) does not exist"
        } else if access(folder, W_OK) != 0 {
            return "the folder \(folder) cannot be written"
        }
        return RepositoryFileGuard.damage(writing: full).map { "\(path) \($0)" }
    }

    /// Prints the error tree to standard error and returns its exit code.
    func fail(_ error: any Error) -> Int32 {
        for line in ErrorTree.lines(for: error) {
            err.line(hintTranslations.reduce(line) { $0.replacingOccurrences(of: $1.lane, with: $1.command) })
        }
        return ShiplaneExitCode.for(error).rawValue
    }

    /// Prints an error that ended the command before or instead of a lane run (a usage error, a
    /// compile error, a missing repository) and writes the requested reports for it: CI reads
    /// `--report-json` and `--junit` whatever the exit code.
    func failWithoutRun(_ error: any Error, command: String) -> Int32 {
        let code = fail(error)
        return Self.writeErrorReports(
            error, code: code, command: command, reportJSON: globals.reportJSON, junit: globals.junit,
            ci: ci, environment: laneEnvironment.variables, currentDirectory: currentDirectory, redactor: redactor
        ) { fail($0) }
    }

    /// Prints an error when no session could be set up (bad global options), and writes the
    /// reports the arguments ask for, when their paths can be read from them.
    static func fail(_ error: any Error, arguments: [String], environment: [String: String], currentDirectory: String) -> Int32 {
        let redactor = SecretRedactor(secrets: Array(LaneEnvironment(variables: environment).secretValues))
        let err = Terminal(standardError: true, environment: environment, noColor: true, redactor: redactor)
        let print = { (error: any Error) -> Int32 in
            for line in ErrorTree.lines(for: error) { err.line(line) }
            return ShiplaneExitCode.for(error).rawValue
        }
        let code = print(error)
        func value(of option: String) -> String? {
            for (index, argument) in arguments.enumerated() {
                if argument == option, index + 1 < arguments.count { return arguments[index + 1] }
                if argument.hasPrefix(option + "=") { return String(argument.dropFirst(option.count + 1)) }
            }
            return nil
        }
        return writeErrorReports(
            error, code: code, command: "shiplane", reportJSON: value(of: "--report-json"), junit: value(of: "--junit"),
            ci: CIPlatform.detect(flag: value(of: "--ci"), environment: environment), environment: environment,
            currentDirectory: currentDirectory, redactor: redactor, fail: print
        )
    }

    private static func writeErrorReports(
        _ error: any Error, code: Int32, command: String, reportJSON: String?, junit: String?,
        ci: CIPlatform, environment: [String: String],
        currentDirectory: String, redactor: SecretRedactor, fail: (any Error) -> Int32
    ) -> Int32 {
        if ci == .githubActions {
            // The job's page says why it failed even when no lane ran (a usage error, a compile
            // error): an annotation and a step summary, as for a run.
            let name = command.hasPrefix("shiplane ") ? String(command.dropFirst("shiplane ".count)) : command
            let failure = LaneFailure(lane: name, causes: [error])
            let result = LaneRunResult(lane: name, dryRun: false, startedAt: Date(), duration: 0, steps: [], failure: failure, plannedWrites: [])
            for line in CIPlatform.annotations(for: failure, redactor: redactor) { Swift.print(line) }
            do {
                try CIPlatform.append(CIPlatform.summary(for: result, exitCode: code, redactor: redactor), toFileIn: "GITHUB_STEP_SUMMARY", environment: environment)
            } catch {
                // Said once; the exit code stays the error's.
                FileHandle.standardError.write(Data(redactor.redact("warning: \(describe(error)) (the exit code is unchanged)\n").utf8))
            }
        }
        for (path, contents) in [
            (reportJSON, { try RunReport(error: error, exitCode: code, command: command).encoded(redactor: redactor) }),
            (junit, { Data(JUnitReport.xml(forError: error, command: command, redactor: redactor).utf8) }),
        ] as [(String?, () throws -> Data)] {
            // A path the check refuses is named in the error already: nothing is written there;
            // one file named for both reports gets neither.
            guard let path, reportPathProblem(path, currentDirectory: currentDirectory) == nil else { continue }
            let full = fullPath(path, currentDirectory)
            if let reportJSON, let junit, RepositoryFileGuard.sameFile(fullPath(reportJSON, currentDirectory), fullPath(junit, currentDirectory)) {
                continue
            }
            do {
                try writeAtomically(try contents(), to: full)
            } catch {
                _ = fail(EnvironmentProblem("could not write the report \(path)", suggestion: "check that its folder exists and is writable", info: [("reason", describe(error))]))
            }
        }
        return code
    }

    /// Prints the summary and the error tree, writes the reports, and returns the exit code.
    /// The CI whose native output this run writes (`--ci`, else detected).
    var ci: CIPlatform { CIPlatform.detect(flag: globals.ci, environment: laneEnvironment.variables) }

    func finish(_ result: LaneRunResult, summary: Bool = true) -> Int32 {
        if summary {
            out.line("")
            for line in SummaryTable.lines(for: result) { out.line(line) }
        }
        var code = ShiplaneExitCode.success.rawValue
        if let failure = result.failure {
            err.line("")
            code = fail(failure)
        }
        if ci == .githubActions {
            code = writeGitHubActionsResults(result, code: code)
        }
        if let path = globals.reportJSON {
            code = write(path: path, code: code) { try RunReport(result: result, exitCode: code).encoded(redactor: redactor) }
        }
        if let path = globals.junit {
            code = write(path: path, code: code) { Data(JUnitReport.xml(for: result, redactor: redactor).utf8) }
        }
        return code
    }

    /// Annotations on standard output; the step summary and the outputs appended to the files
    /// GitHub Actions names. The outputs only for a run that succeeded: a failed or unfinished run
    /// released nothing (or not yet), and a later step must not publish the version it names. A
    /// file that cannot be written is reported once, as a warning: the release is not failed for it.
    private func writeGitHubActionsResults(_ result: LaneRunResult, code: Int32) -> Int32 {
        if let failure = result.failure {
            for line in CIPlatform.annotations(for: failure, redactor: redactor) { out.line(line) }
        }
        let variables = laneEnvironment.variables
        var files = [("GITHUB_STEP_SUMMARY", CIPlatform.summary(for: result, exitCode: code, redactor: redactor))]
        if result.failure == nil, !result.outputs.isEmpty {
            files.append(("GITHUB_OUTPUT", CIPlatform.outputLines(result.outputs, redactor: redactor)))
        }
        for (variable, text) in files {
            do {
                try CIPlatform.append(text, toFileIn: variable, environment: variables)
            } catch {
                // The release itself is done (or rolled back) by now: a CI file that cannot be
                // written is said once, and the exit code stays the run's.
                err.line("warning: \(describe(error)) (the run's result is unchanged)")
            }
        }
        return code
    }

    private func write(path: String, code: Int32, _ contents: () throws -> Data) -> Int32 {
        let full = path.hasPrefix("/") ? path : currentDirectory + "/" + path
        // Checked before the run, and again now: the lane may have committed a file of that name.
        if let damage = RepositoryFileGuard.damage(writing: full) {
            let failed = fail(EnvironmentProblem(
                "did not write the report \(path): it \(damage)", suggestion: "give a path outside the repository's tracked files"))
            return code == 0 ? failed : code
        }
        do {
            try writeAtomically(try contents(), to: full)
            return code
        } catch {
            let problem = EnvironmentProblem("could not write the report \(path)", suggestion: "check that its folder exists and is writable", info: [("reason", describe(error))])
            let failed = fail(problem)
            return code == 0 ? failed : code
        }
    }
}
