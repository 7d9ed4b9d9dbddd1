import Foundation
import Shiplane

/// `shiplane edit`: makes SourceKit-LSP (VS Code's Swift extension, Xcode, any LSP editor)
/// understand `Lanes/*.swift` — completion, diagnostics, jump to definition.
///
/// It writes `Lanes/compile_commands.json`, a compilation database with the very flags a lane
/// compile uses (the Shiplane modules, the C module maps, every lane file in one module). For a
/// lane file, SourceKit-LSP takes the nearest folder holding one as its workspace, so this works
/// beside a SwiftPM project's own `Package.swift` too. The file is listed in `.git/info/exclude`:
/// nothing lands in `git status`.
enum EditorSetup {
    static let databaseName = "compile_commands.json"

    struct Written {
        var database: String
        var files: Int
    }

    static func write(root: String, toolchain: Toolchain) throws -> Written {
        let files = try LaneCompiler.laneFiles(in: root + "/Lanes", root: root)
        var arguments = [
            toolchain.swiftc, "-module-name", "Lanes", "-parse-as-library", "-swift-version", "5",
            "-I", toolchain.moduleFolder,
        ]
        arguments += toolchain.extraFlags
        arguments += files
        let entries = files.map { file in
            ["directory": root, "file": file, "arguments": arguments] as [String: Any]
        }
        let data = try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let database = root + "/Lanes/" + databaseName
        try writeAtomically(data + Data("\n".utf8), to: database)
        try exclude("/Lanes/" + databaseName, root: root)
        return Written(database: database, files: files.count)
    }

    /// Adds `pattern` to the repository's `info/exclude` (git's own, untracked ignore list) once.
    static func exclude(_ pattern: String, root: String) throws {
        let gitDirectory = try GitSettings.commonGitDirectory(workTree: root)
        let path = gitDirectory + "/info/exclude"
        let existing = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard !existing.split(separator: "\n").contains(Substring(pattern)) else { return }
        try FileManager.default.createDirectory(atPath: gitDirectory + "/info", withIntermediateDirectories: true)
        let text = existing + (existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n")
            + "# written by shiplane edit: the lanes' compilation database for SourceKit-LSP\n" + pattern + "\n"
        try writeAtomically(Data(text.utf8), to: path)
    }
}
