import Foundation
import Shiplane

/// The `shiplane` command tree: every built-in command with its options, in one place. The
/// root help, each command's help and usage line, the typo suggestions for commands, the names
/// lanes may not take and the shell completions all come from it.
///
/// A first word that names none of its commands is a lane (as in tuist): the lanes program
/// compiled from `Lanes/` runs it. Global options may stand anywhere before `--`, so they are
/// taken off the command line first (`GlobalOptions.extract`); the tree declares them for help
/// and completion.
struct ShiplaneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shiplane",
        abstract: "Release lanes in Swift",
        usage: """
        shiplane [global options] <lane> [lane options]
          shiplane [global options] <command> [arguments]
        """,
        discussion: discussion,
        subcommands: commands.map { $0 as any ParsableCommand.Type }
    )

    /// The built-in commands, in the order help lists them.
    static let commands: [any BuiltInCommand.Type] = [
        ListLanes.self, ListActions.self, ShowAction.self, Init.self, Edit.self, Version.self,
        Resume.self, Rollback.self, Bump.self, Changelog.self,
    ]

    /// Every word the command line takes as a command rather than a lane.
    static var commandNames: [String] { commands.map { $0._commandName } + ["help"] }

    /// The built-in command named `word`, if any.
    static func command(named word: String) -> (any BuiltInCommand.Type)? {
        commands.first { $0._commandName == word }
    }

    /// The command a mistyped word most likely meant (`chnagelog` → `changelog`).
    static func closeCommand(to word: String) -> String? {
        let scored = commandNames.map { ($0, editDistance($0, word)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first, best.1 > 0, best.1 <= max(1, min(2, word.count / 3)) else { return nil }
        return best.0
    }

    private static var discussion: String {
        let codes = ShiplaneExitCode.allCases.map { "  " + String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0) + $0.summary }
        return """
        <lane> is a lane of Lanes/*.swift: Shiplane compiles the folder once (cached) and runs the lane;
        its options can also be given as key:value. `shiplane lanes` lists the lanes with their options,
        `shiplane help <command>` (or `<command> --help`) shows a command's.

        EXIT CODES:
        \(codes.joined(separator: "\n"))
        """
    }

    @Flag(help: "Do everything that only reads; print what would be written, run, pushed or sent")
    var dryRun = false
    @Flag(help: "Show debug messages")
    var verbose = false
    @Option(help: ArgumentHelp("Write the run (steps, timings, errors) as JSON", valueName: "FILE"), completion: .file())
    var reportJson: String?
    @Option(help: ArgumentHelp("Write the run as JUnit XML, one test case per step", valueName: "FILE"), completion: .file())
    var junit: String?
    @Flag(help: "On failure, keep what the lane changed instead of undoing it")
    var noRollback = false
    @Flag(help: "Skip git's pre-commit, commit-msg and pre-push hooks")
    var noVerify = false
    @Option(help: ArgumentHelp("CI-native output (detected from GITHUB_ACTIONS / GITLAB_CI)", valueName: "github|gitlab|none"),
            completion: .list(["github", "gitlab", "none"]))
    var ci: String?
    @Option(help: ArgumentHelp("Also load .env.NAME (after .env; the process environment wins over both)", valueName: "NAME"))
    var env: String?
    @Flag(help: "No colour (also NO_COLOR=1, or when output is not a terminal; FORCE_COLOR=1 or CLICOLOR_FORCE=1 force it into a pipe or CI log)")
    var noColor = false
    @Flag(help: "Print Shiplane's version")
    var version = false

    /// `shiplane help`: the tree's own help.
    static var rootHelp: String {
        "shiplane — release lanes in Swift\n\n" + withoutOverview(helpMessage(columns: 100))
    }

    /// `shiplane COMMAND --help`: the command's summary, then its help with its usage line.
    static func help(for command: any BuiltInCommand.Type) -> String {
        let abstract = command.configuration.abstract
        return "shiplane \(command._commandName)" + (abstract.isEmpty ? "" : " — \(abstract)") + "\n\n"
            + withoutOverview(helpMessage(for: command, columns: 100))
    }

    /// The help without its `OVERVIEW:` paragraph, which the first line already says.
    private static func withoutOverview(_ help: String) -> String {
        guard help.hasPrefix("OVERVIEW:"), let end = help.range(of: "\n\n") else { return help }
        return String(help[end.upperBound...])
    }
}

/// What a built-in command runs with.
struct Invocation {
    var session: CommandSession
    var environment: [String: String]
    var executable: String
    /// The whole command line, global options included (`resume` runs it again).
    var arguments: [String]
}

/// A built-in command of the tree. The tree parses its options for help, usage errors and
/// completion; `run` gets the words after the command's name as they were given.
protocol BuiltInCommand: ParsableCommand {
    /// True when the command's options are checked by the command itself (the lanes behind
    /// `bump` and `changelog` parse them as any lane does).
    static var parsesItsOwnOptions: Bool { get }
    static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32
}

extension BuiltInCommand {
    static var parsesItsOwnOptions: Bool { false }
}

extension ShiplaneCommand {
    struct ListLanes: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "lanes", abstract: "List the lanes with their summaries and options")
        @Flag(help: "As JSON") var json = false

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            try await ShiplaneCommandLine.listLanes(json: arguments.contains("--json"), invocation)
        }
    }

    struct ListActions: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "actions", abstract: "List the built-in actions")
        @Flag(help: "As JSON") var json = false
        @Flag(help: "As a Markdown table") var markdown = false

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            invocation.session.out.line(ActionsCommand.list(json: arguments.contains("--json"), markdown: arguments.contains("--markdown")))
            return ShiplaneExitCode.success.rawValue
        }
    }

    struct ShowAction: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "action", abstract: "Show one action's options")
        @Argument(help: "The action", completion: .list(ActionCatalog.all.map { $0.name }.sorted())) var name: String

        static var parsesItsOwnOptions: Bool { true }

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            invocation.session.out.line(try ActionsCommand.show(arguments.first))
            return ShiplaneExitCode.success.rawValue
        }
    }

    struct Init: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "init", abstract: InitOptions.summary)
        @OptionGroup var options: InitOptions

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            try await InitCommand.run(session: invocation.session, arguments: arguments)
        }
    }

    struct Edit: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Let SourceKit-LSP editors (VS Code, Xcode, …) complete and check Lanes/*.swift")

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            let session = invocation.session
            let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
            let toolchain = try Toolchain.locate(environment: invocation.environment, executable: invocation.executable)
            let written = try EditorSetup.write(root: root, toolchain: toolchain)
            session.out.line("wrote Lanes/\(EditorSetup.databaseName) for \(written.files) lane file\(written.files == 1 ? "" : "s") (listed in .git/info/exclude, so git ignores it)")
            session.out.line("SourceKit-LSP now completes and checks Lanes/*.swift; each later lane compile keeps the file up to date.")
            return ShiplaneExitCode.success.rawValue
        }
    }

    struct Version: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "version", abstract: VersionOptions.summary)
        @OptionGroup var options: VersionOptions

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            try VersionCommand.run(session: invocation.session, arguments: arguments)
        }
    }

    struct Resume: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Finish the unfinished run of this repository (the same command again)")

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            let session = invocation.session
            guard let again = try RunCommands.resumeArguments(session: session) else {
                session.out.line("No unfinished run in this repository: nothing to resume.")
                return ShiplaneExitCode.success.rawValue
            }
            var commandLine = Array(invocation.arguments.prefix(invocation.arguments.count - session.rest.count))
            commandLine.append(contentsOf: again)
            return await ShiplaneCommandLine.run(
                arguments: commandLine, environment: invocation.environment, currentDirectory: session.currentDirectory,
                executable: invocation.executable
            )
        }
    }

    struct Rollback: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "rollback", abstract: "Undo the unfinished run as far as it safely can; say what stays")
        @Flag(help: "Drop the record after undoing, even when something could not be undone") var forget = false

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            try await RunCommands.rollback(session: invocation.session, arguments: arguments)
        }
    }

    struct Bump: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "bump", abstract: BumpLane.summary)
        @OptionGroup var options: BumpLane

        static var parsesItsOwnOptions: Bool { true }

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            // libgit2's start overlaps with everything before the first git call (the options,
            // .env, the run record, the version files): the work tree is found without it.
            GitSettings.prepareInBackground()
            let root = try GitSettings.workTreeRoot(from: invocation.session.currentDirectory, environment: invocation.environment)
            var session = invocation.session
            try session.loadDotEnv(root: root)
            return await LaneHost.runLane(BumpLane.self, arguments: BumpCommand.normalized(arguments), hooks: [], root: root, session: session)
        }
    }

    struct Changelog: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "changelog", abstract: ChangelogLane.summary)
        @OptionGroup var options: ChangelogLane

        static var parsesItsOwnOptions: Bool { true }

        static func run(_ arguments: [String], _ invocation: Invocation) async throws -> Int32 {
            let root = try GitSettings.workTreeRoot(from: invocation.session.currentDirectory)
            var session = invocation.session
            try session.loadDotEnv(root: root)
            return try await ChangelogCommand.run(session: session, arguments: arguments)
        }
    }
}
