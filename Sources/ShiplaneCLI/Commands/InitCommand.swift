import Foundation
import Shiplane

/// `shiplane init`: creates `Lanes/` with lanes that fit the project it finds.
enum InitCommand {
    static func run(session: CommandSession) throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let folder = root + "/Lanes"
        if FileManager.default.fileExists(atPath: folder) {
            throw ShiplaneError(
                "\(folder) already exists; shiplane init changes nothing",
                suggestion: "edit the lanes there, or move the folder away to start over"
            )
        }
        let (build, test) = commands(for: root)
        let files = ["Lanes/Check.swift": checkLane(build: build, test: test)]
        if session.globals.dryRun {
            for (path, text) in files { session.out.line("would write \(path):\n\(text)") }
            return ShiplaneExitCode.success.rawValue
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            try writeAtomically(Data(text.utf8), to: root + "/" + path)
            session.out.line("created \(path)")
        }
        session.out.line("Run `shiplane lanes` to see them, `shiplane check` to run one.")
        return ShiplaneExitCode.success.rawValue
    }

    /// The build and test commands of the project kind found at `root`.
    static func commands(for root: String) -> (build: [String], test: [String]) {
        let exists = { FileManager.default.fileExists(atPath: root + "/" + $0) }
        if exists("Package.swift") { return (["swift", "build"], ["swift", "test"]) }
        if exists("Cargo.toml") { return (["cargo", "build"], ["cargo", "test"]) }
        if exists("package.json") { return (["npm", "run", "build"], ["npm", "test"]) }
        if exists("go.mod") { return (["go", "build", "./..."], ["go", "test", "./..."]) }
        if exists("Makefile") { return (["make"], ["make", "test"]) }
        return (["true"], ["true"])
    }

    static func checkLane(build: [String], test: [String]) -> String {
        let quoted = { (words: [String]) in words.map { "\"\($0)\"" }.joined(separator: ", ") }
        return """
        import Shiplane

        /// Builds and tests the project on a clean tree: run it before every release.
        struct Check: Lane {
            static let summary = "Build and test on a clean working tree"

            @Flag(help: "Allow uncommitted changes")
            var allowDirty = false

            func run(_ lane: LaneContext) async throws {
                if !allowDirty {
                    try lane.ensureGitStatusClean()
                }
                try await lane.sh(\(quoted(build)))
                try await lane.sh(\(quoted(test)))
            }
        }

        """
    }
}
