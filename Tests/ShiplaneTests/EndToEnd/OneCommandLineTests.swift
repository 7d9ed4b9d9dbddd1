import Foundation
import Testing
@testable import ShiplaneCLI

/// One command line: the parser reads it once, every built-in command runs from the values it
/// parsed, and the global options are the same wherever they stand. A command that reads its
/// words again by hand (`arguments.contains("--forget")`, a value after `--package`) gives itself
/// away when an option is written `--opt=value`, or a global option stands among its own.
@Suite("One command line: parsed once, run from its parsed values", .offThePool)
struct OneCommandLineTests {
    /// The words a command needs to parse at all (bump needs a level).
    private static let required: [String: [String]] = ["bump": ["patch"], "verify": ["dist"], "match": ["decrypt", "store"], "plan": ["release"]]

    /// The line read as `shiplane` reads it: the global options and the words, then the command's
    /// words by its node.
    private static func parse(_ line: [String]) throws -> any BuiltInCommand {
        try parseWithGlobals(line).command
    }

    private static func parseWithGlobals(_ line: [String]) throws -> (globals: GlobalValues, command: any BuiltInCommand) {
        let (globals, words) = try CommandLineWords.split(line)
        let name = try #require(words.first)
        let type = try #require(ShiplaneCommand.command(named: name), "\(name) is not a built-in command")
        return (globals, try #require(try ShiplaneCommandLine.parseCommand(type, words: Array(words.dropFirst()))))
    }

    @Test func everyBuiltInCommandTakesTheGlobalOptionsBeforeOrAfterItsName() throws {
        for commandType in ShiplaneCommand.commands {
            let name = commandType._commandName
            let own = Self.required[name] ?? []
            let lines = [
                ["--dry-run", "--report-json=r.json", "--env", "ci", name] + own,
                [name] + own + ["--report-json", "r.json", "--dry-run", "--env=ci"],
                ["--env=ci", name, "--dry-run"] + own + ["--report-json=r.json"],
            ]
            for line in lines {
                let (globals, command) = try Self.parseWithGlobals(line)
                #expect(ObjectIdentifier(type(of: command)) == ObjectIdentifier(commandType), "\(line)")
                #expect(globals.dryRun && globals.reportJSON == "r.json" && globals.environmentName == "ci", "\(line)")
            }
        }
    }

    /// `CommandLineWords.split` skips the parser for a line with no word starting with `-`: the
    /// parser's own reading of such lines is the same.
    @Test(arguments: [[], ["lanes"], ["release", "key:value", "x"], ["bump", "patch"], ["noop"]])
    func aLineWithoutOptionsReadsAsTheParserReadsIt(_ line: [String]) throws {
        let (globals, words) = try CommandLineWords.split(line)
        let parsed = try CommandLineWords.parse(line)
        #expect(globals == parsed.globals.values && globals == GlobalValues.none && parsed.globals == GlobalOptions.none)
        #expect(words == parsed.words && words == line)
    }

    /// Issue 36: a line whose options are all plain long options no global option is named skips
    /// the parser too; the parser reads those lines the same. A line naming a global option, or
    /// with `=`, a single dash or `--`, is the parser's.
    @Test(arguments: [
        ["bump", "patch", "--commit", "--tag"], ["release", "--bump", "minor", "--title", "x y", "key:value"],
        ["bump", "--commit", "2.0.0", "--tag-prefix", "rel-", "--push"], ["noop", "--x1", "--no-such-thing"],
    ])
    func aLineWithoutGlobalOptionsReadsAsTheParserReadsIt(_ line: [String]) throws {
        #expect(line.allSatisfy { !$0.hasPrefix("-") || CommandLineWords.isPlainLongOption($0) && !GlobalOptions.names.contains($0) })
        let (globals, words) = try CommandLineWords.split(line)
        let parsed = try CommandLineWords.parse(line)
        #expect(globals == parsed.globals.values && globals == GlobalValues.none && parsed.globals == GlobalOptions.none)
        #expect(words == parsed.words && words == line)
    }

    /// The names the parser-free reading checks are every global option's (the help's, and the
    /// hidden `--plan`); none of these words is a plain long option outside them.
    @Test func theGlobalNamesAreEveryGlobalOption() throws {
        let help = GlobalOptions.helpMessage(columns: 400)
        // `--help` belongs to the command or lane it follows, not to these options.
        let shown = Set(help.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "-" }).map(String.init).filter { $0.hasPrefix("--") && $0 != "--help" })
        #expect(!shown.isEmpty && shown.isSubset(of: GlobalOptions.names), "\(shown.subtracting(GlobalOptions.names))")
        #expect(GlobalOptions.names.contains("--plan"))
        for word in ["--report-json=r.json", "-v", "--", "--Commit", "---"] { #expect(!CommandLineWords.isPlainLongOption(word)) }
        let (globals, words) = try CommandLineWords.split(["bump", "patch", "--commit", "--plan", "github"])
        #expect(globals.plan == "github" && words == ["bump", "patch", "--commit"])
    }

    @Test func anOptionWrittenWithEqualsOrApartParsesTheSame() throws {
        let pairs: [([String], [String])] = [
            (["changelog", "--from=v1.0.0", "--to=HEAD"], ["changelog", "--from", "v1.0.0", "--to", "HEAD"]),
            (["version", "--package=core"], ["--no-color", "version", "--package", "core"]),
            (["bump", "minor", "--tag-prefix=rel-", "--message=m {version}"], ["bump", "--tag-prefix", "rel-", "minor", "--message", "m {version}"]),
        ]
        for (one, other) in pairs {
            let first = try Self.parse(one)
            let second = try Self.parse(other)
            switch (first, second) {
            case let (a as ShiplaneCommand.Changelog, b as ShiplaneCommand.Changelog):
                #expect(a.options.from == "v1.0.0" && b.options.from == "v1.0.0" && a.options.to == b.options.to)
            case let (a as ShiplaneCommand.Version, b as ShiplaneCommand.Version):
                #expect(a.options.package == "core" && b.options.package == "core")
            case let (a as ShiplaneCommand.Bump, b as ShiplaneCommand.Bump):
                #expect(a.options.level == ["minor"] && b.options.level == ["minor"])
                #expect(a.options.tagPrefix == "rel-" && b.options.tagPrefix == "rel-")
                #expect(a.options.message == "m {version}" && b.options.message == "m {version}")
            default:
                Issue.record("\(one) and \(other) parse to \(type(of: first)) and \(type(of: second))")
            }
        }
    }

    @Test func theChangelogsOptionsReachItsRunInEveryForm() throws {
        let repo = try versionedRepository(version: "1.0.0")
        try repo.write("a.txt", "a\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: first feature")
        try repo.git("tag", "-a", "v1.1.0", "-m", "Release 1.1.0")
        try repo.write("b.txt", "b\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix: a later fix")
        let lines = [
            ["changelog", "--from=v1.0.0", "--to=v1.1.0"],
            ["changelog", "--from", "v1.0.0", "--to", "v1.1.0"],
            ["--no-color", "changelog", "--to", "v1.1.0", "--from=v1.0.0"],
            ["changelog", "--from", "v1.0.0", "--verbose", "--to", "v1.1.0", "--no-color"],
            ["changelog", "from:v1.0.0", "to:v1.1.0"],
        ]
        var outputs: [String] = []
        for line in lines {
            let result = try repo.shiplane(line)
            #expect(result.status == 0, "\(line): \(result.all)")
            outputs.append(result.stdout)
        }
        #expect(outputs[0].contains("first feature") && !outputs[0].contains("a later fix"), "\(outputs[0])")
        #expect(Set(outputs).count == 1, "every form prints the same changelog: \(outputs)")
    }

    @Test func bumpsOptionsAndTheGlobalOnesReachItsRunInAnyOrder() throws {
        let repo = try versionedRepository()
        let head = try repo.git("rev-parse", "HEAD")
        for line in [
            ["bump", "minor", "--commit", "--tag", "--tag-prefix=rel-", "--dry-run"],
            ["--dry-run", "bump", "--tag-prefix", "rel-", "minor", "--commit", "--tag"],
            ["bump", "--commit", "--dry-run", "minor", "--tag", "tag_prefix:rel-"],
        ] {
            let result = try repo.shiplane(line)
            #expect(result.status == 0, "\(line): \(result.all)")
            #expect(result.stdout.contains("rel-1.3.0"), "\(line): \(result.all)")
            #expect(!result.stdout.contains("v1.3.0"), "\(line): \(result.all)")
        }
        #expect(try repo.git("rev-parse", "HEAD") == head, "dry runs change nothing")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func aReportAskedForAfterTheCommandIsWritten() throws {
        let repo = try versionedRepository()
        for (line, file) in [
            (["bump", "patch", "--dry-run", "--report-json=after.json"], "after.json"),
            (["bump", "--report-json", "apart.json", "patch", "--dry-run"], "apart.json"),
            (["--junit=before.xml", "bump", "--dry-run", "patch"], "before.xml"),
        ] {
            let result = try repo.shiplane(line)
            #expect(result.status == 0, "\(line): \(result.all)")
            #expect(repo.read(file)?.contains("bump") == true, "\(line): \(result.all)")
        }
    }

    @Test func rollbacksFlagIsParsedNotSearchedFor() throws {
        let repo = try versionedRepository()
        for line in [["rollback", "--forget"], ["--no-color", "rollback", "--forget"], ["rollback", "--forget", "--verbose"]] {
            let result = try repo.shiplane(line)
            #expect(result.status == 0, "\(line): \(result.all)")
            #expect(result.stdout.contains("nothing to roll back"), "\(line): \(result.all)")
        }
        // An option rollback does not have is a usage error that names it, from the parser.
        let wrong = try repo.shiplane(["rollback", "--forgot"])
        #expect(wrong.status == 2, "\(wrong.all)")
        #expect(wrong.stderr.contains("--forgot"), "\(wrong.all)")
        // `--forget=yes` is no way to write a flag: the parser says so, where a search for the
        // word `--forget` would not have seen it.
        let withValue = try repo.shiplane(["rollback", "--forget=yes"])
        #expect(withValue.status == 2, "\(withValue.all)")
    }
}
