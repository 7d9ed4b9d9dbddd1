import Crypto
import Hummingbird
import Foundation
import Shiplane
import Testing

/// The action's "Install Shiplane" step, executed by bash with the variables a runner gives,
/// against a loopback stand-in for GitHub's release downloads: `GET
/// /OWNER/REPO/releases/download/TAG/FILE` answers `302 Found` to the asset's storage URL, which
/// answers the bytes as `application/octet-stream`; a file the release does not have is `404 Not
/// Found`. The bundle served is a small one laid out like `Scripts/bundle`'s.
@Suite("action.yml: install from the release bundle", .offThePool)
struct ActionBundleInstallTests {
    static let version = "9.1.0"

    /// A bundle tarball for `name` (`shiplane-VERSION-OS-ARCH`) whose `bin/shiplane` prints its version.
    static func bundle(named name: String, in folder: String) throws -> [UInt8] {
        let tree = folder + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/\(name)/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tree + "/\(name)/lib/shiplane/Modules", withIntermediateDirectories: true)
        try Data("#!/bin/sh\necho \"shiplane \(version) from the bundle\"\n".utf8).write(to: URL(fileURLWithPath: tree + "/\(name)/bin/shiplane"))
        chmod(tree + "/\(name)/bin/shiplane", 0o755)
        try Data("// swift-interface-format-version: 1.0\n".utf8).write(to: URL(fileURLWithPath: tree + "/\(name)/lib/shiplane/Modules/Shiplane.swiftinterface"))
        let tarball = folder + "/\(name).tar.gz"
        let tar = try runProgram("/usr/bin/env", ["tar", "-czf", tarball, "-C", tree, name], in: folder, environment: ProcessInfo.processInfo.environment)
        #expect(tar.status == 0, "\(tar.all)")
        try FileManager.default.removeItem(atPath: tree)
        return Array(try Data(contentsOf: URL(fileURLWithPath: tarball)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A stand-in for GitHub's release downloads of `owner/shiplane`, serving `files` under `v\(version)`.
    final class Releases: @unchecked Sendable {
        let files: [String: [UInt8]]
        private let lock = NSLock()
        private var requested: [String] = []
        var requests: [String] { lock.withLock { requested } }

        init(files: [String: [UInt8]]) { self.files = files }

        func handle(_ request: Request) -> Response {
            let path = request.pathAndQuery.path
            lock.withLock { requested.append(path) }
            let prefix = "/owner/shiplane/releases/download/v\(ActionBundleInstallTests.version)/"
            if path.hasPrefix(prefix), files[String(path.dropFirst(prefix.count))] != nil {
                return Reply.empty(302, headers: ["Location": "/storage/" + path.dropFirst(prefix.count)])
            }
            if path.hasPrefix("/storage/"), let bytes = files[String(path.dropFirst("/storage/".count))] {
                return Reply.raw(200, bytes, contentType: "application/octet-stream", headers: [:])
            }
            return Reply.text(404, "Not Found")
        }
    }

    struct Install {
        var status: Int32
        var output: String
        var githubPath: String
        var runnerTemp: String
        var requests: [String]
    }

    /// Runs the step as a runner would: `RUNNER_OS`, `RUNNER_ARCH`, `RUNNER_TEMP`, `GITHUB_PATH`,
    /// the action's inputs as the step's `env:` gives them, and the stand-in as the releases URL.
    func install(
        files: (_ folder: String) throws -> [String: [UInt8]], os: String = "Linux", arch: String = "X64",
        inputs: [String: String] = [:], path: ((_ folder: String) throws -> String)? = nil, check: (Install) throws -> Void
    ) async throws {
        let folder = try TemporaryRepository(commit: false)
        let releases = Releases(files: try files(folder.root))
        let server = try await TestServer.start { request, _ in releases.handle(request) }
        defer { server.stop() }
        let runnerTemp = folder.root + "/runner-temp", githubPath = folder.root + "/github_path"
        try FileManager.default.createDirectory(atPath: runnerTemp, withIntermediateDirectories: true)
        var environment = isolatedEnvironment(home: folder.home, extra: [
            "GITHUB_ACTIONS": "true", "GITHUB_PATH": githubPath, "RUNNER_TEMP": runnerTemp,
            "RUNNER_OS": os, "RUNNER_ARCH": arch,
            "GITHUB_ACTION_PATH": packageRoot, "ACTION_REPOSITORY": "owner/shiplane",
            "INPUT_INSTALL": "bundle", "INPUT_VERSION": Self.version,
            "SHIPLANE_RELEASES_URL": server.baseURL + "/owner/shiplane/releases/download",
        ])
        for (key, value) in inputs { environment[key] = value }
        if let path { environment["PATH"] = try path(folder.root) }
        let script = try GitHubActionRunnerTests.step(named: "Install Shiplane")
        let result = try await runProgramAsync("/bin/bash", ["-c", script], in: folder.root, environment: environment, timeout: 120)
        let written = String(decoding: FileManager.default.contents(atPath: githubPath) ?? Data(), as: UTF8.self)
        try check(Install(status: result.status, output: result.all, githubPath: written, runnerTemp: runnerTemp, requests: releases.requests))
    }

    static func linuxFiles(_ folder: String) throws -> [String: [UInt8]] {
        let name = "shiplane-\(version)-linux-x86_64"
        let tarball = try bundle(named: name, in: folder)
        return ["\(name).tar.gz": tarball, "SHA256SUMS": Array("\(hex(tarball))  \(name).tar.gz\n".utf8)]
    }

    @Test func itInstallsTheBundleOfTheRunnersSystemAfterCheckingItsSum() async throws {
        try await install(files: Self.linuxFiles) { run in
            #expect(run.status == 0, "\(run.output)")
            #expect(run.githubPath == run.runnerTemp + "/shiplane/bin\n")
            let installed = try runProgram(run.runnerTemp + "/shiplane/bin/shiplane", [], in: run.runnerTemp, environment: [:])
            #expect(installed.stdout == "shiplane 9.1.0 from the bundle\n")
            #expect(FileManager.default.fileExists(atPath: run.runnerTemp + "/shiplane/lib/shiplane/Modules/Shiplane.swiftinterface"))
            #expect(run.requests.contains("/owner/shiplane/releases/download/v9.1.0/shiplane-9.1.0-linux-x86_64.tar.gz"), "\(run.requests)")
            #expect(run.output.contains("Shiplane 9.1.0 installed in \(run.runnerTemp)/shiplane from shiplane-9.1.0-linux-x86_64.tar.gz"), "\(run.output)")
            // The download folder is gone: only the installed bundle is left.
            let left = try FileManager.default.contentsOfDirectory(atPath: run.runnerTemp)
            #expect(left == ["shiplane"], "\(left)")
        }
    }

    @Test func aBundleThatDoesNotMatchItsSumIsRefusedAndNothingIsInstalled() async throws {
        try await install(files: { folder in
            var files = try Self.linuxFiles(folder)
            let name = "shiplane-\(Self.version)-linux-x86_64.tar.gz"
            files["SHA256SUMS"] = Array("\(String(repeating: "0", count: 64))  \(name)\n".utf8)
            return files
        }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("::error title=Shiplane::shiplane-9.1.0-linux-x86_64.tar.gz does not match its SHA256SUMS (expected 0000"), "\(run.output)")
            #expect(run.output.contains("nothing was installed"), "\(run.output)")
            #expect(run.githubPath.isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: run.runnerTemp)
            #expect(left.isEmpty, "nothing unpacked, no download left: \(left)")
        }
    }

    @Test func aSumsFileWithoutTheBundleIsRefused() async throws {
        try await install(files: { folder in
            var files = try Self.linuxFiles(folder)
            files["SHA256SUMS"] = Array("\(String(repeating: "1", count: 64))  shiplane-9.1.0-macos-arm64.tar.gz\n".utf8)
            return files
        }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("SHA256SUMS has no line for shiplane-9.1.0-linux-x86_64.tar.gz: nothing was installed"), "\(run.output)")
            #expect(run.githubPath.isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: run.runnerTemp)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func aVersionWithoutABundleSaysHowToBuildFromSource() async throws {
        try await install(files: Self.linuxFiles, inputs: ["INPUT_VERSION": "v9.2.0"]) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("could not download"), "\(run.output)")
            #expect(run.output.contains("/v9.2.0/SHA256SUMS with curl (its message is above): is v9.2.0 released with its bundle, and can this job reach it?"), "\(run.output)")
            #expect(run.output.contains("::error title=Shiplane::Shiplane 9.2.0 was not installed (the message above says why); install: source builds it from the action instead"), "\(run.output)")
            #expect(run.githubPath.isEmpty)
        }
    }

    @Test func aMacRunnerAsksForItsOwnBundle() async throws {
        try await install(files: Self.linuxFiles, os: "macOS", arch: "ARM64") { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.requests.contains("/owner/shiplane/releases/download/v9.1.0/shiplane-9.1.0-macos-arm64.tar.gz"), "\(run.requests)")
        }
    }

    @Test func badInputsAreUsageErrorsBeforeAnyDownload() async throws {
        try await install(files: Self.linuxFiles, inputs: ["INPUT_INSTALL": "binary"]) { run in
            #expect(run.status == 2, "\(run.output)")
            #expect(run.output.contains("install is `bundle` or `source`, not `binary`"), "\(run.output)")
            #expect(run.requests.isEmpty)
        }
        try await install(files: Self.linuxFiles, inputs: ["INPUT_VERSION": "1.0; rm -rf /"]) { run in
            #expect(run.status == 2, "\(run.output)")
            #expect(run.output.contains("is not a version"), "\(run.output)")
            #expect(run.requests.isEmpty)
        }
        try await install(files: Self.linuxFiles, os: "Windows") { run in
            #expect(run.status == 2, "\(run.output)")
            #expect(run.output.contains("no Shiplane bundle for Windows runners"), "\(run.output)")
            #expect(run.requests.isEmpty)
        }
    }

    /// Shiplane's repository at the release's tag, as the GitLab template and the README's CI
    /// recipes clone it for its installer (`Scripts/get-shiplane`, this checkout's).
    static func shiplaneSource() throws -> TemporaryRepository {
        let source = try TemporaryRepository(commit: false)
        try FileManager.default.createDirectory(atPath: source.path + "/Scripts", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: packageRoot + "/Scripts/get-shiplane", toPath: source.path + "/Scripts/get-shiplane")
        try source.git("add", "-A")
        try source.git("commit", "-q", "-m", "Shiplane \(version)")
        try source.git("tag", "v\(version)")
        return source
    }

    /// A folder standing for a CI image's PATH: bash and the basic tools the installer uses, and
    /// of the tools that can download only `downloader` (none when nil) — no curl, no sudo.
    static func imagePath(in folder: String, downloader: String?, more: [String] = []) throws -> String {
        let bin = folder + "/image-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        var tools = ["bash", "sh", "env", "mktemp", "rm", "mkdir", "mv", "tar", "gzip", "awk", "sha256sum", "uname", "basename", "dirname", "cat", "sed", "head"]
        if let downloader { tools.append(downloader) }
        tools += more
        let hostPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for tool in tools {
            var real = try #require(findExecutable(tool, path: hostPath, workingDirectory: nil), "\(tool) is not installed on this machine")
            if tool == "python3" {
                // pyenv's shim needs pyenv on PATH: the interpreter itself.
                let found = try runProgram(real, ["-c", "import sys; print(sys.executable)"], in: folder, environment: ProcessInfo.processInfo.environment)
                real = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: real)
        }
        return bin
    }

    /// The Swift images have neither curl nor wget: the installer takes what the image has.
    @Test(arguments: ["curl", "wget", "node", "python3", "swift"])
    func inAnImageWithoutCurlItDownloadsWithWhatTheImageHas(downloader: String) async throws {
        try await install(files: Self.linuxFiles, path: { try Self.imagePath(in: $0, downloader: downloader) }) { run in
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("downloaded with \(downloader))"), "\(run.output)")
            #expect(run.githubPath == run.runnerTemp + "/shiplane/bin\n")
            let installed = try runProgram(run.runnerTemp + "/shiplane/bin/shiplane", [], in: run.runnerTemp, environment: [:])
            #expect(installed.stdout == "shiplane 9.1.0 from the bundle\n")
        }
    }

    @Test func anImageThatCannotDownloadIsToldWhatToInstall() async throws {
        try await install(files: Self.linuxFiles, path: { try Self.imagePath(in: $0, downloader: nil) }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("::error title=Shiplane::nothing on this machine can download the bundle: there is no curl, wget, node, python3 or swift on PATH (install one, e.g. apt-get install -y curl)"), "\(run.output)")
            #expect(run.requests.isEmpty)
            #expect(run.githubPath.isEmpty)
        }
    }
}
