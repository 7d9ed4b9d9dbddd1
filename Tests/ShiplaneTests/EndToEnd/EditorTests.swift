import Foundation
import Testing

/// A minimal Language Server Protocol client: JSON-RPC over a child's standard input and output.
final class LSPClient {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(executable: String, in directory: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func send(_ message: [String: Any]) throws {
        var object = message
        object["jsonrpc"] = "2.0"
        let body = try JSONSerialization.data(withJSONObject: object)
        input.fileHandleForWriting.write(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    /// The next message, or nil when the server closed its output or `deadline` passed.
    func next(until deadline: Date) -> [String: Any]? {
        while Date() < deadline {
            if let separator = buffer.range(of: Data("\r\n\r\n".utf8)) {
                let header = String(decoding: buffer[..<separator.lowerBound], as: UTF8.self)
                let length = header.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
                }.first ?? 0
                if buffer.count >= separator.upperBound + length {
                    let body = buffer[separator.upperBound..<(separator.upperBound + length)]
                    buffer.removeSubrange(..<(separator.upperBound + length))
                    return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
                }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
        return nil
    }

    /// Sends a request and returns its response; requests from the server are answered with null.
    func request(_ id: Int, _ method: String, _ params: [String: Any], timeout: TimeInterval = 120) throws -> [String: Any]? {
        try send(["id": id, "method": method, "params": params])
        let deadline = Date().addingTimeInterval(timeout)
        while let message = next(until: deadline) {
            if message["method"] == nil, (message["id"] as? Int) == id { return message }
            if message["method"] != nil, let serverID = message["id"] { try send(["id": serverID, "result": NSNull()]) }
        }
        return nil
    }
}

@Suite("Editors: SourceKit-LSP completes Lanes/*.swift after `shiplane edit`", .offThePool)
struct EditorTests {
    func completions(in repo: TemporaryRepository, file: String, after marker: String) throws -> [String] {
        let sourcekit = findExecutableInPath("sourcekit-lsp")
        let client = try LSPClient(executable: try #require(sourcekit, "sourcekit-lsp comes with the Swift toolchain"), in: repo.path)
        let uri = "file://" + repo.path + "/" + file
        let text = try #require(repo.read(file))
        let lines = text.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains(marker) })
        let character = try #require(lines[line].range(of: marker)).upperBound.utf16Offset(in: lines[line])
        _ = try #require(try client.request(1, "initialize", ["processId": NSNull(), "rootUri": "file://" + repo.path, "capabilities": [String: Any]()]))
        try client.send(["method": "initialized", "params": [String: Any]()])
        try client.send(["method": "textDocument/didOpen", "params": ["textDocument": ["uri": uri, "languageId": "swift", "version": 1, "text": text]]])
        let response = try #require(try client.request(2, "textDocument/completion", [
            "textDocument": ["uri": uri], "position": ["line": line, "character": character],
        ]))
        _ = try client.request(3, "shutdown", [:], timeout: 20)
        try? client.send(["method": "exit"])
        let result = response["result"]
        let items = (result as? [String: Any])?["items"] as? [[String: Any]] ?? (result as? [[String: Any]]) ?? []
        return items.compactMap { $0["label"] as? String }
    }

    func findExecutableInPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func editWritesWhatSourceKitLSPNeedsBesideAPackageAndNothingShowsInGitStatus() throws {
        let repo = try TemporaryRepository()
        try repo.write("Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"App\", targets: [.executableTarget(name: \"App\")])\n")
        try repo.write("Sources/App/main.swift", "print(1)\n")
        try repo.write("Lanes/Release.swift", """
        import Shiplane

        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {
                _ = try lane.bumpVersion(.patch)
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: app and lanes")
        #expect(try completions(in: repo, file: "Lanes/Release.swift", after: "lane.").isEmpty, "before `shiplane edit` the editor knows nothing of Shiplane")
        let edit = try repo.shiplane(["edit"])
        #expect(edit.status == 0, "\(edit.all)")
        let status = try repo.git("status", "--porcelain", "--untracked-files=all")
        #expect(!status.contains("compile_commands.json"), "the compilation database is ignored through .git/info/exclude: \(status)")
        let labels = try completions(in: repo, file: "Lanes/Release.swift", after: "lane.")
        #expect(labels.contains { $0.hasPrefix("bumpVersion(") }, "\(labels.prefix(20))")
        #expect(labels.contains { $0.hasPrefix("githubRelease(") } && labels.contains { $0.hasPrefix("sh(") }, "\(labels.prefix(20))")
        // A lane file added later joins the database when the lanes are next compiled.
        try repo.write("Lanes/Beta.swift", "import Shiplane\nstruct Beta: Lane { func run(_ lane: LaneContext) async throws {} }\n")
        #expect(try repo.shiplane(["lanes"]).status == 0)
        #expect(repo.read("Lanes/compile_commands.json")?.contains("Lanes/Beta.swift") == true)
        let again = try repo.shiplane(["edit"])
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: repo.path + "/.git/info/exclude", encoding: .utf8).components(separatedBy: "/Lanes/compile_commands.json").count == 2, "listed once")
    }
}
