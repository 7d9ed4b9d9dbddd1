import Foundation
import Shiplane

/// The options every command takes, wherever they stand on the command line (before `--`),
/// declared once: the command line's first reading (`CommandLineWords`) parses them, the root of
/// the command tree shows them in its help and completions (`@OptionGroup`), and the lane
/// program reads the same group from the arguments its supervisor hands it.
///
/// Lanes cannot declare options with these names.
struct GlobalOptions: ParsableArguments, Equatable {
    @Flag(help: "Do everything that only reads; print what would be written, run, pushed or sent")
    var dryRun = false
    @Flag(help: "Show debug messages")
    var verbose = false
    // `.unconditional`: `--report-json --no-color` takes `--no-color` as the value, which
    // `check()` then refuses by name, rather than a parser message about a missing value.
    @Option(name: .customLong("report-json"), parsing: .unconditional,
            help: ArgumentHelp("Write the run (steps, timings, errors) as JSON", valueName: "FILE"), completion: .file())
    var reportJSON: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Write the run as JUnit XML, one test case per step", valueName: "FILE"), completion: .file())
    var junit: String?
    @Flag(help: "On failure, keep what the lane changed instead of undoing it")
    var noRollback = false
    @Flag(help: "Skip git's pre-commit, commit-msg and pre-push hooks")
    var noVerify = false
    /// `--ci github|gitlab|none`: CI-native output forced or turned off (else detected).
    @Option(parsing: .unconditional, help: ArgumentHelp("CI-native output (detected from GITHUB_ACTIONS / GITLAB_CI)", valueName: "github|gitlab|none"),
            completion: .list(["github", "gitlab", "none"]))
    var ci: String?
    @Option(name: .customLong("env"), parsing: .unconditional,
            help: ArgumentHelp("Also load .env.NAME (after .env; the process environment wins over both)", valueName: "NAME"))
    var environmentName: String?
    @Flag(help: "No colour (also NO_COLOR=1, or when output is not a terminal; FORCE_COLOR=1 or CLICOLOR_FORCE=1 force it into a pipe or CI log)")
    var noColor = false
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Build one part of a release fanned out over CI jobs (lane.part) and record its artifacts on origin", valueName: "NAME"))
    var part: String?
    @Flag(help: "The fan-in job of a release fanned out over CI jobs: every part's artifacts from origin, then publish once")
    var fanIn = false
    /// `shiplane plan` runs its lane as a dry run with this set: the CI format of the matrix.
    @Option(parsing: .unconditional, help: .hidden)
    var plan: String?

    init() {}

    /// No global option given: what the parser reads from a line without options. (`init()` is
    /// the parser's, whose values exist only once it parsed.)
    static var none: GlobalOptions {
        var options = GlobalOptions()
        options.dryRun = false
        options.verbose = false
        options.reportJSON = nil
        options.junit = nil
        options.noRollback = false
        options.noVerify = false
        options.ci = nil
        options.environmentName = nil
        options.noColor = false
        options.part = nil
        options.fanIn = false
        options.plan = nil
        return options
    }

    static func == (lhs: GlobalOptions, rhs: GlobalOptions) -> Bool {
        lhs.values == rhs.values
    }

    /// Every option's name, hidden ones too (`CommandLineWords.split` reads a line that names
    /// none of them without the parser).
    static let names: Set<String> = [
        "--dry-run", "--verbose", "--report-json", "--junit", "--no-rollback", "--no-verify", "--ci", "--env", "--no-color",
        "--part", "--fan-in", "--plan",
    ]

    /// The long names of the options that take a value, for the parser's missing-value message.
    private static let valueNames = ["--report-json", "--junit", "--ci", "--env", "--part"]

    /// Refuses values the parser accepts but a run must not: an empty value, a value that looks
    /// like an option (`--report-json --no-color` would write a file named `--no-color`), a CI
    /// that is not known.
    /// - Throws: `UsageError`.
    func check() throws {
        for (name, value) in [("--report-json", reportJSON), ("--junit", junit), ("--ci", ci), ("--env", environmentName), ("--part", part)] {
            guard let value else { continue }
            guard !value.isEmpty else { throw UsageError("\(name) needs a value", suggestion: Self.usageHint(for: name)) }
            if value.hasPrefix("-") {
                throw UsageError(
                    "\(name) needs a value, and \(value) looks like an option", suggestion: Self.usageHint(for: name)
                        + (name == "--report-json" || name == "--junit" ? " (a file whose name starts with - is written ./\(value))" : "")
                        + "; nothing was run"
                )
            }
        }
        if part != nil && fanIn {
            throw UsageError("--part and --fan-in are two kinds of job", suggestion: "a part's job builds it (`--part NAME`); the final job takes every part from origin and publishes (`--fan-in`)")
        }
        if let ci, !["github", "gitlab", "none"].contains(ci) {
            throw UsageError("--ci takes github, gitlab or none, not \(ci)", suggestion: "write --ci github, --ci gitlab or --ci none")
        }
    }

    /// The parser's error about these options as a `UsageError` in Shiplane's words.
    static func usageError(for error: any Error) -> UsageError {
        let message = CommandLineWords.message(for: error)
        if message.hasPrefix("Missing value for"), let name = valueNames.first(where: { message.contains("'\($0) ") || message.contains("'\($0)'") }) {
            return UsageError("\(name) needs a value", suggestion: usageHint(for: name))
        }
        return UsageError(message, suggestion: "run `shiplane help` for the global options")
    }

    private static func usageHint(for name: String) -> String {
        switch name {
        case "--env": "write --env NAME to load .env.NAME"
        case "--ci": "write --ci github, --ci gitlab or --ci none"
        case "--part": "write --part NAME, a part the lane declares with lane.part (`shiplane plan LANE` lists them)"
        default: "write \(name) FILE"
        }
    }

    /// The options as plain values, for the session the supervisor hands its lane program.
    var values: GlobalValues {
        GlobalValues(
            dryRun: dryRun, verbose: verbose, reportJSON: reportJSON, junit: junit, noRollback: noRollback,
            noVerify: noVerify, ci: ci, environmentName: environmentName, noColor: noColor,
            part: part, fanIn: fanIn, plan: plan
        )
    }
}

/// `GlobalOptions` as plain values: what the supervisor read from the command line, handed to its
/// lane program in the shared session.
///
/// A session holds these, not `GlobalOptions`: making the parser's struct builds the parser's view
/// of every option (name sets, hashed), which in a 100 MB static program costs a scan of every
/// protocol conformance the program has, on the start of every lane.
struct GlobalValues: Equatable {
    var dryRun = false
    var verbose = false
    var reportJSON: String?
    var junit: String?
    var noRollback = false
    var noVerify = false
    var ci: String?
    var environmentName: String?
    var noColor = false
    /// `--part NAME`: this job builds one part of the release.
    var part: String?
    /// `--fan-in`: this job takes every part from origin and publishes.
    var fanIn = false
    /// Set by `shiplane plan`: the CI whose matrix the dry run prints.
    var plan: String?

    /// No global option given.
    static let none = GlobalValues()

    /// The options as arguments again, for a lane executable started without a supervisor.
    var asArguments: [String] {
        var arguments: [String] = []
        if dryRun { arguments.append("--dry-run") }
        if verbose { arguments.append("--verbose") }
        if noRollback { arguments.append("--no-rollback") }
        if noColor { arguments.append("--no-color") }
        if noVerify { arguments.append("--no-verify") }
        if let reportJSON { arguments += ["--report-json", reportJSON] }
        if let junit { arguments += ["--junit", junit] }
        if let environmentName { arguments += ["--env", environmentName] }
        if let ci { arguments += ["--ci", ci] }
        if let part { arguments += ["--part", part] }
        if fanIn { arguments.append("--fan-in") }
        if let plan { arguments += ["--plan", plan] }
        return arguments
    }
}

/// The command line's first reading, by the parser: the global options wherever they stand
/// (before `--`), and every other word in its order. The first of those words chooses a
/// built-in command (which the command tree then parses, `ShiplaneCommand`) or a lane (whose
/// program parses the words as its options).
///
/// `--help` is not an option here: it belongs to the command or lane it follows.
struct CommandLineWords: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shiplane", helpNames: [])

    @OptionGroup var globals: GlobalOptions
    @Argument(parsing: .allUnrecognized) var words: [String] = []

    /// Whether `word` is `--`, a lowercase letter, then lowercase letters, digits and `-`
    /// (`--commit`, `--tag-prefix`): a word the parser keeps as it is when no global option has its name.
    static func isPlainLongOption(_ word: String) -> Bool {
        let bytes = word.utf8
        guard bytes.count > 3, bytes.starts(with: "--".utf8), let first = bytes.dropFirst(2).first,
              (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.dropFirst(2).allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// The global options and the other words of `arguments`, in order.
    /// - Throws: `UsageError` for a global option without its value or with a value it refuses.
    static func split(_ arguments: [String]) throws -> (globals: GlobalValues, words: [String]) {
        // A line without a word that starts with `-` holds no option: the parser would give the
        // default options and the words as they are (a test holds it to that). Building the
        // parser's view of the options costs more than the rest of a cached `shiplane lanes` in a
        // debug build, so the commonest lines (`shiplane lanes`, `shiplane release`, and every
        // lane program started without options) skip it.
        if !arguments.contains(where: { $0.hasPrefix("-") }) { return (GlobalValues.none, arguments) }
        // Nor does a line whose every such word is a plain long option (`--commit`, `--tag`: no
        // `=`, no single dash, no `--` alone) that no global option is named: the parser keeps
        // each as it is, in its place (a test holds it to that). `shiplane bump patch --commit
        // --tag` skips a twentieth of its CPU so.
        if arguments.allSatisfy({ !$0.hasPrefix("-") || isPlainLongOption($0) && !GlobalOptions.names.contains($0) }) {
            return (GlobalValues.none, arguments)
        }
        let parsed: CommandLineWords
        do {
            parsed = try parse(arguments)
        } catch {
            throw GlobalOptions.usageError(for: error)
        }
        try parsed.globals.check()
        return (parsed.globals.values, parsed.words)
    }
}
