import Foundation
import Shiplane

/// The `shiplane` command tree: every built-in command with its options, in one place. The
/// root help, each command's help and usage line, the typo suggestions for commands, the names
/// lanes may not take and the shell completions all come from it.
///
/// The command line is parsed by swift-argument-parser, as in tuist, each word once:
/// `CommandLineWords` reads the global options (wherever they stand before `--`) and the other
/// words in order; when the first names a built-in command, that command's node parses the rest
/// (`ShiplaneCommandLine.parseCommand`) and the parsed command runs from its parsed values
/// (`BuiltInCommand.run`). A first word that names none of its commands is a lane: the lanes
/// program compiled from `Lanes/` runs it and parses the lane's options. The global options are
/// declared once (`GlobalOptions`: an `@OptionGroup` of `CommandLineWords`, and of the root for its
/// help; the commands' nodes do not declare them again: the words they parse never
/// hold one).
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
        Resume.self, Rollback.self, Bump.self, Changelog.self, Verify.self, Match.self, Plan.self,
    ]

    /// Every word the command line takes as a command rather than a lane: the names of
    /// `commands` (a test holds the two lists together), and `help`. Written out: asking each
    /// command type for its name makes its configuration and its metadata, whose fields are the
    /// parser's resilient property wrappers, laid out at run time, on every lane's start.
    static let commandNames: [String] = [
        "lanes", "actions", "action", "init", "edit", "version", "resume", "rollback", "bump", "changelog", "verify", "match", "plan", "help",
    ]

    /// The built-in command named `word`, if any (a lane's name is told apart by `commandNames`,
    /// without making any command type).
    static func command(named word: String) -> (any BuiltInCommand.Type)? {
        guard word != "help", commandNames.contains(word) else { return nil }
        return commands.first { $0._commandName == word }
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

    @OptionGroup var globals: GlobalOptions
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

/// What a built-in command runs with besides its parsed options.
struct Invocation {
    var session: CommandSession
    var environment: [String: String]
    var executable: String
    /// The whole command line, global options included.
    var arguments: [String]
}

/// A built-in command of the tree. Its node parses the command's words into it (the global
/// options are the session's, read once by `CommandLineWords`), and it runs from those parsed
/// values.
protocol BuiltInCommand: ParsableCommand {
    /// Runs the command; returns its exit code.
    func run(_ invocation: Invocation) async throws -> Int32
    /// The command line as the parser is to read it (the lanes behind `bump` and `changelog`
    /// take `key:value` words, as every lane does); unchanged by default.
    static func prepared(_ arguments: [String]) -> [String]
}

extension BuiltInCommand {
    static func prepared(_ arguments: [String]) -> [String] { arguments }
}

/// A command line with `key:value` words for the options of `lane` turned into `--key value`.
/// Learning a lane's options means rendering its whole help (a sixth of a cached start): only
/// done when a word looks like `key:value`.
func keyValueConverted<L: Lane>(_ arguments: [String], for lane: L.Type) -> [String] {
    guard arguments.contains(where: { !$0.hasPrefix("-") && $0.contains(":") }) else { return arguments }
    return convertKeyValueArguments(arguments, options: OptionInfo.options(of: lane))
}

extension ShiplaneCommand {
    struct ListLanes: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "lanes", abstract: "List the lanes with their summaries and options")
        @Flag(help: "As JSON") var json = false

        func run(_ invocation: Invocation) async throws -> Int32 {
            try await ShiplaneCommandLine.listLanes(json: json, invocation)
        }
    }

    struct ListActions: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "actions", abstract: "List the built-in actions")
        @Flag(help: "As JSON") var json = false
        @Flag(help: "As a Markdown table") var markdown = false

        func run(_ invocation: Invocation) async throws -> Int32 {
            invocation.session.out.line(ActionsCommand.list(json: json, markdown: markdown))
            return ShiplaneExitCode.success.rawValue
        }
    }

    struct ShowAction: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "action", abstract: "Show one action's options")
        /// Optional for the parser, so a missing name gets Shiplane's own error (which says how to list them).
        @Argument(help: "The action", completion: .list(ActionCatalog.all.map { $0.name }.sorted())) var name: String?

        func run(_ invocation: Invocation) async throws -> Int32 {
            invocation.session.out.line(try ActionsCommand.show(name))
            return ShiplaneExitCode.success.rawValue
        }
    }

    struct Init: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "init", abstract: InitOptions.summary)
        @OptionGroup var options: InitOptions

        func run(_ invocation: Invocation) async throws -> Int32 {
            try await InitCommand.run(session: invocation.session, options: options)
        }
    }

    struct Edit: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Let SourceKit-LSP editors (VS Code, Xcode, …) complete and check Lanes/*.swift")

        func run(_ invocation: Invocation) async throws -> Int32 {
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

        func run(_ invocation: Invocation) async throws -> Int32 {
            try VersionCommand.run(session: invocation.session, options: options)
        }
    }

    struct Verify: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "verify", abstract: VerifyOptions.summary)
        @OptionGroup var options: VerifyOptions

        func run(_ invocation: Invocation) async throws -> Int32 {
            try await VerifyCommand.run(session: invocation.session, environment: invocation.environment, options: options)
        }
    }

    struct Match: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "match", abstract: MatchOptions.summary)
        @OptionGroup var options: MatchOptions

        func run(_ invocation: Invocation) async throws -> Int32 {
            guard options.operation.kind != nil || options.operation == .nuke else {
                return try MatchCommand.run(session: invocation.session, environment: invocation.environment, options: options)
            }
            // Certificates and profiles: a built-in lane, with its run record in the repository.
            let root = try GitSettings.workTreeRoot(from: invocation.session.currentDirectory, environment: invocation.environment)
            var session = invocation.session
            try session.loadDotEnv(root: root)
            return await LaneHost.runLane(MatchLane.self, arguments: invocation.commandWords, hooks: [], root: root, session: session)
        }
    }

    struct Resume: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Finish the unfinished run of this repository (the same command again)")

        func run(_ invocation: Invocation) async throws -> Int32 {
            let session = invocation.session
            guard let again = try RunCommands.resumeArguments(session: session) else {
                session.out.line("No unfinished run in this repository: nothing to resume.")
                return ShiplaneExitCode.success.rawValue
            }
            // The recorded command again, with this command line's global options.
            return await ShiplaneCommandLine.run(
                arguments: session.globals.asArguments + again, environment: invocation.environment, currentDirectory: session.currentDirectory,
                executable: invocation.executable
            )
        }
    }

    struct Rollback: BuiltInCommand {
        static let configuration = CommandConfiguration(
            commandName: "rollback", abstract: "Undo the unfinished run as far as it safely can; say what stays")
        @Flag(help: "Drop the record after undoing, even when something could not be undone") var forget = false

        func run(_ invocation: Invocation) async throws -> Int32 {
            try await RunCommands.rollback(session: invocation.session, forget: forget)
        }
    }

    struct Bump: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "bump", abstract: BumpLane.summary)
        @OptionGroup var options: BumpLane

        static func prepared(_ arguments: [String]) -> [String] {
            BumpCommand.normalized(keyValueConverted(arguments, for: BumpLane.self))
        }

        func run(_ invocation: Invocation) async throws -> Int32 {
            // libgit2's start overlaps with everything before the first git call (.env, the run
            // record, the version files): the work tree is found without it.
            GitSettings.prepareInBackground()
            let root = try GitSettings.workTreeRoot(from: invocation.session.currentDirectory, environment: invocation.environment)
            var session = invocation.session
            try session.loadDotEnv(root: root)
            session.namedSigningKeys += options.signingKeysNamed
            return await LaneHost.runLane(options, arguments: Self.prepared(invocation.commandWords), hooks: [], root: root, session: session)
        }
    }

    struct Changelog: BuiltInCommand {
        static let configuration = CommandConfiguration(commandName: "changelog", abstract: ChangelogLane.summary)
        @OptionGroup var options: ChangelogLane

        static func prepared(_ arguments: [String]) -> [String] {
            keyValueConverted(arguments, for: ChangelogLane.self)
        }

        func run(_ invocation: Invocation) async throws -> Int32 {
            let root = try GitSettings.workTreeRoot(from: invocation.session.currentDirectory)
            var session = invocation.session
            try session.loadDotEnv(root: root)
            return try await ChangelogCommand.run(options, arguments: Self.prepared(invocation.commandWords), root: root, session: session)
        }
    }
}

extension Invocation {
    /// The command's own words (after its name, global options left out), as the parser gave
    /// them: what the run record keeps to know the same command when it runs again.
    var commandWords: [String] { Array(session.rest.dropFirst()) }
}
