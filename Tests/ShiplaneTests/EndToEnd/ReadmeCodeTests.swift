import Foundation
import Testing
@testable import ShiplaneCLI
import Shiplane

/// Every Swift code block in the README compiles against the built library, as written.
///
/// Each block is preceded by a comment that says how it compiles:
/// `<!-- swift: file -->` (a whole file, its imports as shown), `<!-- swift: lane | PRELUDE -->`
/// (statements inside a lane's `run`, after PRELUDE), `<!-- swift: test | EXTRA -->` (statements
/// in a Swift Testing test with `test`, a `TestLaneContext`), `<!-- swift: skip (reason) -->`.
/// After `|` in `file` and `test`, EXTRA is a file of declarations the block refers to.
@Suite("README: every Swift code block compiles", .offThePool)
struct ReadmeCodeTests {
    struct Block: CustomStringConvertible {
        var line: Int
        var mode: String
        var extra: String
        var code: String
        var description: String { "README.md:\(line) (\(mode))" }
    }

    static func blocks() throws -> [Block] {
        let lines = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8).components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence == "```swift" else { index += 1; continue }
            let indent = lines[index].prefix { $0 == " " }.count
            let annotation = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            var mode = "missing"
            var extra = ""
            if annotation.hasPrefix("<!-- swift: "), annotation.hasSuffix(" -->") {
                let spec = annotation.dropFirst("<!-- swift: ".count).dropLast(" -->".count)
                let parts = spec.split(separator: "|", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                mode = parts[0]
                extra = parts.count > 1 ? parts[1] : ""
            }
            blocks.append(Block(line: index - body.count, mode: mode, extra: extra, code: body.joined(separator: "\n")))
            index += 1
        }
        return blocks
    }

    @Test func everyBlockSaysHowItCompiles() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 10)
        for block in blocks {
            #expect(["file", "lane", "test"].contains(block.mode) || block.mode.hasPrefix("skip ("),
                    "\(block): precede it with <!-- swift: file|lane|test|skip (why) -->")
        }
    }

    @Test(arguments: try ReadmeCodeTests.blocks().filter { !$0.mode.hasPrefix("skip") && $0.mode != "missing" })
    func compiles(_ block: Block) throws {
        let folder = NSTemporaryDirectory() + "shiplane-readme-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var files: [String: String] = [:]
        var swiftVersion = "5"
        switch block.mode {
        case "file":
            files["Block.swift"] = block.code
            if !block.extra.isEmpty { files["Extra.swift"] = "import Shiplane\n" + block.extra + "\n" }
        case "lane":
            files["Block.swift"] = "import Foundation\nimport Shiplane\n\nfunc readmeExample(_ lane: LaneContext) async throws {\n"
                + block.extra.split(separator: ";").map { "    " + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
                + "\n" + block.code + "\n}\n"
        default:
            swiftVersion = "6"
            files["Block.swift"] = "import Foundation\nimport ShiplaneTesting\nimport Testing\n\n@Test func readmeExample() async throws {\n"
                + "    let test = TestLaneContext(workingDirectory: NSTemporaryDirectory())\n" + block.code + "\n}\n"
            if !block.extra.isEmpty { files["Extra.swift"] = "import ShiplaneTesting\n" + block.extra + "\n" }
        }
        for (name, text) in files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        let build = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path
        var arguments = ["-typecheck", "-parse-as-library", "-swift-version", swiftVersion, "-module-name", "ReadmeBlock", "-I", build + "/Modules"]
        for map in CModuleMaps.find(libraryFolder: build) { arguments += ["-Xcc", "-fmodule-map-file=" + map] }
        arguments += files.keys.sorted().map { folder + "/" + $0 }
        let swiftc = findExecutable("swiftc", path: ProcessInfo.processInfo.environment["PATH"], workingDirectory: nil) ?? "/usr/bin/swiftc"
        // The compiler's driver leaves a folder in TMPDIR: it goes with the test's folder.
        let result = try runProgram(swiftc, arguments, in: folder, environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": folder]) { $1 })
        #expect(result.status == 0, "\(block) does not compile:\n\(result.stderr)\n--- as compiled:\n\(files["Block.swift"] ?? "")")
    }
}
