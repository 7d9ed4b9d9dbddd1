import Foundation
import Testing
@testable import ShiplaneCLI

/// The command tree: help, usage lines, usage errors, typo suggestions and the names lanes may
/// not take all come from `ShiplaneCommand`, and a word that is not one of its commands is a lane.
@Suite("The command tree and its fallback to lanes", .serialized, .offThePool)
struct CommandTreeTests {
    @Test func helpListsEveryCommandOfTheTreeAndEveryExitCode() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["help"])
        #expect(result.status == 0, "\(result.all)")
        for command in ShiplaneCommand.commands {
            #expect(result.stdout.contains("  \(command._commandName) "), "help lists \(command._commandName)")
        }
        for code in ShiplaneExitCode.allCases {
            #expect(result.stdout.contains("  \(code.rawValue) ") && result.stdout.contains(code.summary), "help explains exit \(code.rawValue)")
        }
        #expect(result.stdout.contains("USAGE: shiplane [global options] <lane> [lane options]"))
        #expect(try repo.shiplane(["--help"]).stdout == result.stdout)
    }

    @Test func eachCommandsHelpComesFromTheTreeWithItsFullUsageLine() throws {
        let repo = try TemporaryRepository()
        for command in ShiplaneCommand.commands {
            let name = command._commandName
            let viaHelp = try repo.shiplane(["help", name])
            let viaFlag = try repo.shiplane([name, "--help"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0, "\(name): \(viaHelp.all)\(viaFlag.all)")
            #expect(viaHelp.stdout == viaFlag.stdout, "\(name)")
            #expect(viaHelp.stdout.hasPrefix("shiplane \(name) — "), "\(name): \(viaHelp.stdout)")
            #expect(viaHelp.stdout.contains("USAGE: shiplane \(name)"), "\(name): \(viaHelp.stdout)")
            #expect(!viaHelp.stdout.contains("OVERVIEW:"), "\(name)")
        }
        let unknown = try repo.shiplane(["help", "nosuch"])
        #expect(unknown.status == 2, "\(unknown.all)")
        #expect(unknown.stderr.contains("`nosuch` is not a command of Shiplane"), "\(unknown.all)")
    }

    /// `bump --help` documents `--build` as the README does, not the names it is parsed into.
    @Test func bumpsHelpSaysBuildAsTheReadmeDoes() throws {
        let repo = try TemporaryRepository()
        let help = try repo.shiplane(["bump", "--help"]).stdout
        #expect(help.contains("--build ") && help.contains("`--build N` sets it to N"), "\(help)")
        #expect(!help.contains("--increment-build") && !help.contains("--build-number"), "\(help)")
    }

    /// A wrong option of a built-in command is a usage error from the tree, with the
    /// argument parser's wording and a hint in command-line terms; the report is written.
    @Test func aWrongOptionOfACommandIsAUsageErrorWithAReport() throws {
        let repo = try TemporaryRepository()
        let report = repo.root + "/report.json"
        for (arguments, message) in [
            (["lanes", "--bogus"], "lanes: Unknown option '--bogus'"),
            (["version", "--jsn"], "version: Unknown option '--jsn'"),
            (["rollback", "extra"], "rollback: Unexpected argument 'extra'"),
            (["version", "--all", "--package", "x"], "version: choose --all or --package"),
        ] {
            let result = try repo.shiplane(["--report-json", report] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.all)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("hint: run `shiplane \(arguments[0]) --help`"), "\(arguments): \(result.stderr)")
            let written = try String(contentsOfFile: report, encoding: .utf8)
            #expect(written.contains("usage-error"), "\(arguments): \(written)")
        }
    }

    /// Typos of any command of the tree get a suggestion, the commands added last included.
    @Test(arguments: [("rollbak", "rollback"), ("resme", "resume"), ("edt", "edit"), ("chnagelog", "changelog")])
    func aMistypedCommandIsSuggested(_ typed: String, _ meant: String) throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane([typed])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("did you mean: \(meant)"), "\(result.all)")
    }

    /// Every command of the tree owns its name: a lane named like one is a declaration error,
    /// `resume`, `rollback` and `edit` included.
    @Test(arguments: ["Resume", "Rollback", "Edit"])
    func aLaneNamedLikeACommandIsAnError(_ type: String) throws {
        let repo = try repositoryWithLanes([
            "Lanes/Own.swift": "import Shiplane\nstruct \(type): Lane { func run(_ lane: LaneContext) async throws {} }\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let result = try repo.shiplane(["lanes"])
        #expect(result.status == 3, "a lane declaration mistake, like a compile error: \(result.all)")
        #expect(result.stderr.contains("Lanes/Own.swift:2: lane `\(type)` is named `\(type.lowercased())`, which is Shiplane's own command"), "\(result.all)")
    }

    /// A word the tree does not know is a lane, run by the lanes program.
    @Test func aWordThatIsNoCommandRunsTheLane() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Ship.swift": "import Shiplane\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws { lane.log(\"shipping\") } }\n",
        ])
        let result = try repo.shiplane(["ship"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("shipping"), "\(result.all)")
    }
}
