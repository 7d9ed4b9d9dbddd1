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
            "SHIPLANE_RELEASE_KEYRING": Self.keyring(folder.root),
        ])
        for (key, value) in inputs { environment[key] = value }
        if let path { environment["PATH"] = try path(folder.root) }
        let script = try GitHubActionRunnerTests.step(named: "Install Shiplane")
        let result = try await runProgramAsync("/bin/bash", ["-c", script], in: folder.root, environment: environment, timeout: 120)
        let written = String(decoding: FileManager.default.contents(atPath: githubPath) ?? Data(), as: UTF8.self)
        try check(Install(status: result.status, output: result.all, githubPath: written, runnerTemp: runnerTemp, requests: releases.requests))
    }

    /// The binary keyring of the test key that signs the stand-in releases' SHA256SUMS, in place
    /// of the release key embedded in the installer (`SHIPLANE_RELEASE_KEYRING` names it).
    static func keyring(_ folder: String) -> String { folder + "/release-keyring.gpg" }

    /// `SHA256SUMS.asc` over `sums`, signed as the release lane signs it (OpenPGP, detached,
    /// armored) by a test key made in `folder`, whose public key goes to ``keyring(_:)``.
    static func signature(of sums: [UInt8], in folder: String) throws -> [UInt8] {
        let home = try makeGPGHome(in: folder, user: "Shiplane releases")
        defer { stopGPGAgent(home); try? FileManager.default.removeItem(atPath: home) }
        let gpg = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        let exported = try runProgram("/bin/sh", ["-c", "gpg --batch --export > '\(keyring(folder))'"], in: folder, environment: gpg)
        #expect(exported.status == 0, "\(exported.all)")
        try Data(sums).write(to: URL(fileURLWithPath: home + "/SHA256SUMS"))
        let signed = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--detach-sign", "SHA256SUMS"], in: home, environment: gpg)
        #expect(signed.status == 0, "\(signed.all)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: home + "/SHA256SUMS.asc")))
    }

    /// The Linux bundle, its `SHA256SUMS` and that file's signature; `tamper` changes the sums
    /// after they are signed.
    static func linuxFiles(_ folder: String) throws -> [String: [UInt8]] { try linuxFiles(folder, tamper: { $0 }) }

    static func linuxFiles(_ folder: String, tamper: (String) -> String) throws -> [String: [UInt8]] {
        let name = "shiplane-\(version)-linux-x86_64"
        let tarball = try bundle(named: name, in: folder)
        let sums = "\(hex(tarball))  \(name).tar.gz\n"
        let signature = try Self.signature(of: Array(sums.utf8), in: folder)
        return ["\(name).tar.gz": tarball, "SHA256SUMS": Array(tamper(sums).utf8), "SHA256SUMS.asc": signature]
    }

    /// The Linux bundle with `sums` as its `SHA256SUMS`, signed by the test key.
    static func linuxFiles(_ folder: String, sums: String) throws -> [String: [UInt8]] {
        var files = try linuxFiles(folder)
        files["SHA256SUMS"] = Array(sums.utf8)
        files["SHA256SUMS.asc"] = try signature(of: Array(sums.utf8), in: folder)
        return files
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
            try Self.linuxFiles(folder, sums: "\(String(repeating: "0", count: 64))  shiplane-\(Self.version)-linux-x86_64.tar.gz\n")
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
            try Self.linuxFiles(folder, sums: "\(String(repeating: "1", count: 64))  shiplane-9.1.0-macos-arm64.tar.gz\n")
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
    /// `checker` is what checks SHA256SUMS.asc: the Swift images have `gpgv`.
    static func imagePath(in folder: String, downloader: String?, checker: String? = "gpgv", more: [String] = []) throws -> String {
        let bin = folder + "/image-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        var tools = ["bash", "sh", "env", "mktemp", "rm", "mkdir", "mv", "tar", "gzip", "awk", "sha256sum", "uname", "basename", "dirname", "cat", "sed", "head", "base64", "printf"]
        if let downloader { tools.append(downloader) }
        if let checker { tools.append(checker) }
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

    /// A SHA256SUMS changed after the release key signed it (a mirror or a man in the middle
    /// serving other sums with other tarballs): refused before the tarball is even checked.
    @Test func sumsTheReleaseKeyDidNotSignAreRefusedAndNothingIsInstalled() async throws {
        try await install(files: { folder in
            try Self.linuxFiles(folder, tamper: { $0 + "\(String(repeating: "2", count: 64))  extra.tar.gz\n" })
        }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("/v9.1.0/SHA256SUMS is not signed by the release key (SHA256SUMS.asc does not verify with gpgv; its message is above): nothing was installed"), "\(run.output)")
            #expect(run.output.contains("BAD signature"), "gpgv's own message is shown: \(run.output)")
            #expect(run.githubPath.isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: run.runnerTemp)
            #expect(left.isEmpty, "\(left)")
        }
    }

    /// Signed by a key that is not the release key: the installer's own key (no
    /// `SHIPLANE_RELEASE_KEYRING`) refuses what the test key signed.
    @Test func aSignatureByAnotherKeyIsRefused() async throws {
        try await install(files: Self.linuxFiles, inputs: ["SHIPLANE_RELEASE_KEYRING": ""]) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("SHA256SUMS is not signed by the release key"), "\(run.output)")
            #expect(run.output.contains("No public key") || run.output.contains("public key not found"), "\(run.output)")
            #expect(run.githubPath.isEmpty)
        }
    }

    @Test func aReleaseWithoutASignatureIsRefused() async throws {
        try await install(files: { folder in
            var files = try Self.linuxFiles(folder)
            files["SHA256SUMS.asc"] = nil
            return files
        }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("could not download"), "\(run.output)")
            #expect(run.output.contains("/v9.1.0/SHA256SUMS.asc with curl"), "\(run.output)")
            #expect(run.githubPath.isEmpty)
        }
    }

    /// Where only `gpg` is there (a macOS runner with GnuPG from Homebrew), it checks the
    /// signature; where neither is, the installer says what to install and downloads nothing.
    @Test func gpgChecksWhereGpgvIsMissingAndNeitherIsAnError() async throws {
        try await install(files: Self.linuxFiles, path: { try Self.imagePath(in: $0, downloader: "curl", checker: "gpg") }) { run in
            #expect(run.status == 0, "\(run.output)")
            let installed = try runProgram(run.runnerTemp + "/shiplane/bin/shiplane", [], in: run.runnerTemp, environment: [:])
            #expect(installed.stdout == "shiplane 9.1.0 from the bundle\n")
        }
        try await install(files: { folder in try Self.linuxFiles(folder, tamper: { $0 + "\n" }) },
                          path: { try Self.imagePath(in: $0, downloader: "curl", checker: "gpg") }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("SHA256SUMS.asc does not verify with gpg;"), "\(run.output)")
        }
        try await install(files: Self.linuxFiles, path: { try Self.imagePath(in: $0, downloader: "curl", checker: nil) }) { run in
            #expect(run.status == 4, "\(run.output)")
            #expect(run.output.contains("neither gpgv nor gpg is on PATH, so SHA256SUMS.asc cannot be checked: install one (apt-get install -y gpgv, apk add gpgv, brew install gnupg); nothing was downloaded"), "\(run.output)")
            #expect(run.requests.isEmpty)
        }
    }

    /// The key the installer trusts is the release key the README prints (which QuickStartTests
    /// checks against `Scripts/release-keys/shiplane-release.asc`).
    @Test func theInstallersKeyIsTheReadmesReleaseKey() throws {
        let script = try String(contentsOfFile: packageRoot + "/Scripts/get-shiplane", encoding: .utf8)
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let installerKey = try #require(script.components(separatedBy: "release_key='").dropFirst().first?.components(separatedBy: "'").first)
        let readmeKey = try #require(readme.components(separatedBy: "\necho ").dropFirst().first?.components(separatedBy: " |").first)
        #expect(installerKey.count > 200)
        #expect(installerKey == readmeKey)
    }
}
