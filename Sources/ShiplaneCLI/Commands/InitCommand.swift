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
    static func run(session: CommandSession, options: InitOptions) async throws -> Int32 {
        let root = try GitSettings.workTreeRoot(from: session.currentDirectory)
        let folder = root + "/Lanes"
        if FileManager.default.fileExists(atPath: folder) {
            throw ShiplaneError(
                "\(folder) already exists; shiplane init changes nothing",
                suggestion: "edit the lanes there, or move the folder away to start over"
            )
        }
        let kind = ProjectKind.find(in: root)
        var files = ["Lanes/Check.swift": checkLane(for: kind)]
        if case .app(let app) = kind { files["Lanes/Beta.swift"] = betaLane(for: app) }
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
        /// An app project: its checks and version steps run here; its build needs macOS or the Android SDK.
        case app(AppKind)
        case unknown

        static func find(in root: String) -> ProjectKind {
            let exists = { FileManager.default.fileExists(atPath: root + "/" + $0) }
            if let app = AppKind.find(in: root) { return .app(app) }
            if exists("Package.swift") { return .known(name: "SwiftPM", build: ["swift", "build"], test: ["swift", "test"]) }
            if exists("Cargo.toml") { return .known(name: "Cargo", build: ["cargo", "build"], test: ["cargo", "test"]) }
            if exists("package.json") {
                // Only the scripts the package has: `npm run build` without one fails the first check.
                let scripts = npmScripts(in: root)
                return .known(name: "npm", build: scripts.contains("build") ? ["npm", "run", "build"] : [],
                              test: scripts.contains("test") ? ["npm", "test"] : [])
            }
            if exists("go.mod") { return .known(name: "Go", build: ["go", "build", "./..."], test: ["go", "test", "./..."]) }
            if exists("Makefile") { return .known(name: "make", build: ["make"], test: ["make", "test"]) }
            return .unknown
        }

        /// The scripts of `package.json`, leaving out npm's placeholder test that only fails.
        static func npmScripts(in root: String) -> Set<String> {
            guard let data = FileManager.default.contents(atPath: root + "/package.json"),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let scripts = object["scripts"] as? [String: Any] else { return [] }
            return Set(scripts.compactMap { name, value in
                guard let command = value as? String, !command.contains("no test specified") else { return nil }
                return name
            })
        }
    }

    /// The app platforms `init` writes a beta lane for.
    enum AppKind: String, Equatable {
        case xcode = "Xcode", gradle = "Gradle", flutter = "Flutter", reactNative = "React Native"

        static func find(in root: String) -> AppKind? {
            let exists = { FileManager.default.fileExists(atPath: root + "/" + $0) }
            if let data = FileManager.default.contents(atPath: root + "/pubspec.yaml"), String(decoding: data, as: UTF8.self).contains("flutter") {
                return .flutter
            }
            if let data = FileManager.default.contents(atPath: root + "/package.json") {
                let text = String(decoding: data, as: UTF8.self)
                if text.contains("\"react-native\"") || text.contains("\"expo\"") { return .reactNative }
            }
            if exists("settings.gradle") || exists("settings.gradle.kts") || exists("gradlew") { return .gradle }
            let search = VersionFileDetector.skippedFolders
            func hasXcodeProject(_ folder: String, depth: Int) -> Bool {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !search.contains(name) {
                    if name.hasSuffix(".xcodeproj") { return true }
                    var isFolder: ObjCBool = false
                    if depth < 3, FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), isFolder.boolValue,
                       hasXcodeProject(folder + "/" + name, depth: depth + 1) { return true }
                }
                return false
            }
            return hasXcodeProject(root, depth: 0) ? .xcode : nil
        }

        /// Build commands, written as comments: they need macOS, Xcode or the Android SDK.
        var buildComments: [String] {
            let ios = [
                "// iOS (on macOS, with Xcode): archive and export the IPA, for example",
                "//     try await lane.sh(\"xcodebuild\", \"-scheme\", \"App\", \"-archivePath\", \"build/App.xcarchive\", \"archive\")",
                "//     try await lane.sh(\"xcodebuild\", \"-exportArchive\", \"-archivePath\", \"build/App.xcarchive\",",
                "//                       \"-exportOptionsPlist\", \"ExportOptions.plist\", \"-exportPath\", \"build\")",
            ]
            let android = ["// Android (with the Android SDK): try await lane.sh(\"./gradlew\", \"bundleRelease\")"]
            switch self {
            case .xcode: return ios
            case .gradle: return android
            case .flutter: return ["// Flutter: try await lane.sh(\"flutter\", \"build\", \"ipa\") on macOS; try await lane.sh(\"flutter\", \"build\", \"appbundle\")"]
            case .reactNative: return ios.map { $0.replacingOccurrences(of: "\"-scheme\"", with: "\"-workspace\", \"ios/App.xcworkspace\", \"-scheme\"") }
                + ["// Android: try await lane.sh(\"./android/gradlew\", \"-p\", \"android\", \"bundleRelease\")"]
            }
        }
    }

    static func checkLane(for kind: ProjectKind) -> String {
        let quoted = { (words: [String]) in words.map { "\"\($0)\"" }.joined(separator: ", ") }
        let body: String
        switch kind {
        case .known(let name, let build, let test):
            var lines = [build, test].filter { !$0.isEmpty }.map { "        try await lane.sh(\(quoted($0)))" }
            if lines.isEmpty {
                lines = ["        // \(name): no build or test script was found; add the commands that check the project, e.g.",
                         "        //     try await lane.sh(\"npm\", \"run\", \"lint\")"]
            }
            body = lines.joined(separator: "\n")
        case .app(let app):
            // The checks that run anywhere: the version the stores will see, read from every file.
            body = """
                    let version = try lane.version()
                    lane.log("\(app.rawValue) app at version \\(version)")
            """ + "\n" + app.buildComments.map { "        " + $0 }.joined(separator: "\n")
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

    /// A beta lane for an app: its version steps run as written; building and uploading need
    /// macOS or the Android SDK and store credentials, so they are comments to fill in.
    static func betaLane(for app: AppKind) -> String {
        let uploads = [
            "// let testers = try lane.storeNotes(for: .testFlight)",
            "// _ = try await lane.uploadToTestFlight(ipa: \"build/App.ipa\", groups: [\"QA\"], localizedWhatsNew: testers)",
            "// _ = try await lane.uploadToPlayStore(bundle: \"app/build/outputs/bundle/release/app-release.aab\",",
            "//                                      releaseNotes: try lane.storeNotes(for: .googlePlay))",
        ]
        let build = app.buildComments.map { "        " + $0 }.joined(separator: "\n")
        return """
        import Shiplane

        /// Bumps the version and build number in every file that holds them (\(app.rawValue)), commits
        /// and tags the release; the build and the uploads are written below, to fill in.
        struct Beta: Lane {
            static let summary = "Bump the version and build number, commit and tag a beta"

            // patch works on any history; auto takes the level from conventional commits (feat, fix)
            // and stops with exit code 5 when there is none to release.
            @Option(help: "major, minor, patch, auto (from conventional commits since the last tag) or a version like 1.6.0")
            var bump: VersionBump = .patch

            func run(_ lane: LaneContext) async throws {
                try lane.ensureGitStatusClean()
                let version = try lane.bumpVersion(bump)
                let build = try lane.incrementBuildNumber(.next)
        \(build)
                try lane.commitVersionBump(version, build, message: "Version bump to \\(version) (\\(build))")
                // Tagged as the repository's release tags are (2.1.6 or v2.1.6), the version as
                // the files write it (7.77 stays two numbers).
                try lane.addGitTag(lane.releaseTagName(version))
        \(uploads.map { "        " + $0 }.joined(separator: "\n"))
            }
        }

        """
    }
}
