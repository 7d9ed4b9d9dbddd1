import Foundation
import Testing

/// The README's CI recipes (Bitbucket, CircleCI, Buildkite, Jenkins, Azure Pipelines, Woodpecker
/// and the line they share) install Shiplane with the same line: a clone of Shiplane's repository
/// at the release's tag, then `Scripts/get-shiplane`. Each line, as the README writes it, runs in
/// bash with what a Swift image has — git and python3, no curl, no wget, no sudo, not root's
/// folders — against a local copy of Shiplane's repository and a loopback stand-in of GitHub's
/// release downloads.
@Suite("README: every CI recipe's install line runs as written", .offThePool)
struct CIRecipeTests {
    /// The install lines of the README's "In CI" section, without the YAML or Groovy around them.
    static func installLines() throws -> [String] {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        return readme.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("/Scripts/get-shiplane --version") else { return nil }
            var text = line.trimmingCharacters(in: .whitespaces)
            for prefix in ["- run: ", "- "] where text.hasPrefix(prefix) {
                text.removeFirst(prefix.count)
                break
            }
            return text
        }
    }

    @Test func everyRecipeHasOne() throws {
        // The shared line, then Bitbucket, CircleCI, Buildkite, Jenkins, Azure and Woodpecker.
        #expect(try Self.installLines().count == 7)
    }

    @Test(arguments: 0..<7)
    func theInstallLineRunsAsWritten(recipe: Int) async throws {
        let lines = try Self.installLines()
        let line = try #require(recipe < lines.count ? lines[recipe] : nil)
        let folder = try TemporaryRepository(commit: false)
        let version = ActionBundleInstallTests.version
        let source = try ActionBundleInstallTests.shiplaneSource()
        let releases = ActionBundleInstallTests.Releases(files: try ActionBundleInstallTests.linuxFiles(folder.root))
        let server = try await TestServer.start { request, _ in releases.handle(request) }
        defer { server.stop() }
        // The README's placeholders, as its text says to replace them; the clone goes to the
        // test's folder instead of /tmp.
        let clone = folder.root + "/shiplane-src"
        let command = line
            .replacingOccurrences(of: "https://github.com/OWNER/shiplane", with: source.path)
            .replacingOccurrences(of: "OWNER/shiplane", with: "owner/shiplane")
            .replacingOccurrences(of: "1.0.0", with: version)
            .replacingOccurrences(of: "/tmp/shiplane-src", with: clone)
        #expect(command.contains("--version \(version) --repository owner/shiplane"), "\(command)")
        let image = try ActionBundleInstallTests.imagePath(in: folder.root, downloader: "python3", more: ["git"])
        let home = folder.root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let environment = [
            "PATH": image, "HOME": home, "TMPDIR": home, "GIT_CONFIG_NOSYSTEM": "1",
            "SHIPLANE_RELEASES_URL": server.baseURL + "/owner/shiplane/releases/download",
            "SHIPLANE_RELEASE_KEYRING": ActionBundleInstallTests.keyring(folder.root),
        ]
        let run = try await runProgramAsync("/bin/bash", ["-euo", "pipefail", "-c", command], in: folder.root, environment: environment, timeout: 120)
        #expect(run.status == 0, "\(command)\n\(run.all)")
        #expect(run.stdout == home + "/.shiplane/bin\n", "it prints the folder to put on PATH: \(run.all)")
        #expect(run.stderr.contains("downloaded with python3"), "\(run.all)")
        let installed = try runProgram(home + "/.shiplane/bin/shiplane", [], in: folder.root, environment: [:])
        #expect(installed.stdout == "shiplane \(version) from the bundle\n")
        #expect(releases.requests.contains("/owner/shiplane/releases/download/v\(version)/shiplane-\(version)-linux-x86_64.tar.gz"), "\(releases.requests)")
    }
}
