import Foundation
import Shiplane

/// The options of `shiplane init`.
struct InitOptions: ParsableArguments {
    static let summary = "Create Lanes/ with a first lane for the project found here"

    @Flag(inversion: .prefixedNo, help: "Commit Lanes/ right away, so the lane's clean-tree check passes (asked on a terminal; not done otherwise)")
    var commit: Bool?
}

/// `shiplane init [--commit | --no-commit]`: creates `Lanes/` with a lane that fits the project
/// it finds, and commits it when asked, so that lane passes on the repository as it is.
enum InitCommand {
    static func run(session: CommandSession, arguments: [String]) async throws -> Int32 {
        let options: InitOptions
        do {
            options = try InitOptions.parse(arguments)
        } catch {
            if InitOptions.exitCode(for: error) == .success {
                session.out.line("shiplane init — \(InitOptions.summary)")
                session.out.line("")
                session.out.line(commandHelp(InitOptions.helpMessage(), commandLine: "shiplane init"))
                return ShiplaneExitCode.success.rawValue
            }
            throw UsageError("init: \(InitOptions.message(for: error))", suggestion: "run `shiplane init --help`")
        }
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let folder = root + "/Lanes"
        if FileManager.default.fileExists(atPath: folder) {
            throw ShiplaneError(
                "\(folder) already exists; shiplane init changes nothing",
                suggestion: "edit the lanes there, or move the folder away to start over"
            )
        }
        let files = ["Lanes/Check.swift": checkLane(for: ProjectKind.find(in: root))]
        if session.globals.dryRun {
            for (path, text) in files { session.out.line("would write \(path):\n\(text)") }
            return ShiplaneExitCode.success.rawValue
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            try writeAtomically(Data(text.utf8), to: root + "/" + path)
            session.out.line("created \(path)")
        }
        let commit = options.commit ?? askToCommit(session: session)
        if commit {
            let context = LaneContext(.init(workingDirectory: root, environment: session.laneEnvironment, reporter: RecordingReporter()))
            do {
                let id = try context.gitCommit(paths: ["Lanes"], message: "chore: add Shiplane lanes")
                session.out.line("committed Lanes/ (\(id.map { String($0.prefix(7)) } ?? "?") chore: add Shiplane lanes)")
            } catch {
                // The lanes are written either way; say why the commit did not happen.
                session.err.line("Lanes/ was written but not committed: \(ErrorTree.node(error).message)")
                session.err.line("commit it yourself (git add Lanes && git commit -m 'chore: add Shiplane lanes'); until then run `shiplane check --allow-dirty`")
                return ShiplaneExitCode.failure.rawValue
            }
        } else {
            session.out.line("Lanes/ is not committed yet: commit it (git add Lanes && git commit -m 'chore: add Shiplane lanes'),")
            session.out.line("or run `shiplane check --allow-dirty` until you do — the lane checks for a clean tree.")
        }
        session.out.line("Run `shiplane lanes` to see the lanes, `shiplane check` to run one, `shiplane edit` for completion in your editor.")
        return ShiplaneExitCode.success.rawValue
    }

    /// On a terminal, asks whether to commit `Lanes/`; elsewhere (CI, scripts) never commits
    /// unasked.
    private static func askToCommit(session: CommandSession) -> Bool {
        guard isatty(0) == 1, isatty(1) == 1 else { return false }
        session.out.write("Commit Lanes/ now, so `shiplane check` passes on a clean tree? [Y/n] ")
        guard let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer.isEmpty || answer == "y" || answer == "yes"
    }

    /// The project kinds `init` knows, with their build and test commands.
    enum ProjectKind: Equatable {
        case known(name: String, build: [String], test: [String])
        case unknown

        static func find(in root: String) -> ProjectKind {
            let exists = { FileManager.default.fileExists(atPath: root + "/" + $0) }
            if exists("Package.swift") { return .known(name: "SwiftPM", build: ["swift", "build"], test: ["swift", "test"]) }
            if exists("Cargo.toml") { return .known(name: "Cargo", build: ["cargo", "build"], test: ["cargo", "test"]) }
            if exists("package.json") { return .known(name: "npm", build: ["npm", "run", "build"], test: ["npm", "test"]) }
            if exists("go.mod") { return .known(name: "Go", build: ["go", "build", "./..."], test: ["go", "test", "./..."]) }
            if exists("Makefile") { return .known(name: "make", build: ["make"], test: ["make", "test"]) }
            return .unknown
        }
    }

    static func checkLane(for kind: ProjectKind) -> String {
        let quoted = { (words: [String]) in words.map { "\"\($0)\"" }.joined(separator: ", ") }
        let body: String
        switch kind {
        case .known(_, let build, let test):
            body = """
                    try await lane.sh(\(quoted(build)))
                    try await lane.sh(\(quoted(test)))
            """
        case .unknown:
            // No build system was recognised: real checks only, and comments saying what to add.
            body = """
                    // The version: from a version file (VERSION, package.json, Cargo.toml, …) or,
                    // with none, from the release tags (0.0.0 before the first).
                    let version = try lane.version()
                    lane.log("current version \\(version)")
                    // Add your project's build and test commands here, for example:
                    //     try await lane.sh("make", "test")
                    // A command that exits non-zero fails the lane at this line.
            """
        }
        return """
        import Shiplane

        /// Checks the project on a clean tree: run it before every release.
        struct Check: Lane {
            static let summary = "Check the project on a clean working tree"

            @Flag(help: "Allow uncommitted changes")
            var allowDirty = false

            func run(_ lane: LaneContext) async throws {
                if !allowDirty {
                    try lane.ensureGitStatusClean()
                }
        \(body)
            }
        }

        """
    }
}
