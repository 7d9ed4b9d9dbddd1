import Foundation
import Testing

/// The README's Quick start, run as written: the commands of its second code block, in order,
/// on a fresh repository of a kind `init` recognises (make), each one must succeed.
@Suite("README Quick start, run as written", .offThePool)
struct QuickStartTests {
    /// The shell commands of the Quick start's block that starts with `shiplane init`.
    static func quickStartCommands() throws -> [[String]] {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Quick start").dropFirst().first?.components(separatedBy: "\n## ").first)
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        let block = try #require(blocks.first { $0.hasPrefix("shiplane init") }, "the Quick start has a block starting with shiplane init")
        return block.split(separator: "\n").map { line in
            let command = line.components(separatedBy: " #").first ?? String(line)
            return command.split(separator: " ").map(String.init)
        }.filter { !$0.isEmpty }
    }

    @Test func theQuickStartRunsAsWritten() throws {
        let commands = try Self.quickStartCommands()
        #expect(commands.count >= 6, "\(commands)")
        let repo = try TemporaryRepository()
        try repo.write("Makefile", "all:\n\t@echo built\ntest:\n\t@echo tested\n")
        try repo.git("add", "Makefile")
        try repo.git("commit", "-q", "-m", "build: a Makefile")
        for command in commands {
            #expect(command.first == "shiplane", "\(command)")
            let result = try repo.shiplane(Array(command.dropFirst()))
            #expect(result.status == 0, "`\(command.joined(separator: " "))` failed: \(result.all)")
        }
        #expect(try repo.git("status", "--porcelain").isEmpty, "init --commit left nothing uncommitted")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore: add Shiplane lanes")
    }

    /// The Quick start's install block, as written, in bash with `set -euo pipefail`, for a user
    /// whose `~/.local` does not exist yet: the release URL is its only change, pointed at a
    /// folder (`file://`) that holds a bundle laid out like `Scripts/bundle`'s and its
    /// `SHA256SUMS`. The checksum is checked, the bundle unpacked, the link made, and the linked
    /// `shiplane` runs; a bundle whose digest differs stops it with nothing installed, even
    /// without `set -e`.
    @Test func theInstallSnippetRunsAsWritten() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Quick start").dropFirst().first?.components(separatedBy: "\n## ").first)
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        let snippet = try #require(blocks.first { $0.hasPrefix("v=") }, "the Quick start has an install block starting with v=")
        let release = "https://github.com/$OWNER/shiplane/releases/download"
        #expect(snippet.contains(release), "\(snippet)")
        let version = try #require(snippet.split(separator: ";").first.map { String($0.dropFirst("v=".count)) })

        let folder = try TemporaryRepository(commit: false)
        let name = "shiplane-\(version)-linux-x86_64"
        let releases = folder.root + "/releases/v\(version)"
        let tree = folder.root + "/tree/\(name)"
        try FileManager.default.createDirectory(atPath: tree + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tree + "/lib/shiplane/Modules", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: releases, withIntermediateDirectories: true)
        try Data("#!/bin/sh\necho \"shiplane \(version) from the bundle\"\n".utf8).write(to: URL(fileURLWithPath: tree + "/bin/shiplane"))
        chmod(tree + "/bin/shiplane", 0o755)
        try Data("// swift-interface-format-version: 1.0\n".utf8).write(to: URL(fileURLWithPath: tree + "/lib/shiplane/Modules/Shiplane.swiftinterface"))
        let environment = isolatedEnvironment(home: folder.home)
        let tar = try runProgram("/usr/bin/env", ["tar", "-czf", "\(releases)/\(name).tar.gz", "-C", folder.root + "/tree", name], in: folder.root, environment: environment)
        #expect(tar.status == 0, "\(tar.all)")
        let sums = try runProgram("/usr/bin/env", ["sha256sum", "\(name).tar.gz"], in: releases, environment: environment)
        #expect(sums.status == 0, "\(sums.all)")
        try Data(sums.stdout.utf8).write(to: URL(fileURLWithPath: releases + "/SHA256SUMS"))
        // SHA256SUMS signed as the release lane signs it (OpenPGP, detached, armored), by a test
        // key that stands in for the release key: its public key replaces the README's.
        let home = try makeGPGHome(in: folder.root, user: "Shiplane releases")
        defer { stopGPGAgent(home) }
        let gpg = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        func sign() throws {
            try? FileManager.default.removeItem(atPath: releases + "/SHA256SUMS.asc")
            let signed = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--detach-sign", "SHA256SUMS"], in: releases, environment: gpg)
            #expect(signed.status == 0, "\(signed.all)")
        }
        try sign()
        let readmeKey = try #require(snippet.components(separatedBy: "echo ").dropFirst().first?.components(separatedBy: " |").first)
        let testKey = try runProgram("/bin/sh", ["-c", "gpg --batch --export | base64 -w0"], in: folder.root, environment: gpg).stdout
        #expect(!testKey.isEmpty && readmeKey.count > 200)
        let tested = snippet.replacingOccurrences(of: release, with: "file://\(folder.root)/releases").replacingOccurrences(of: readmeKey, with: testKey)

        let script = "set -euo pipefail\n" + tested
        let work = folder.root + "/download"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        #expect(!FileManager.default.fileExists(atPath: folder.home + "/.local"), "a fresh home")
        let installed = try runProgram("/bin/bash", ["-c", script], in: work, environment: environment)
        #expect(installed.status == 0, "\(script)\n\(installed.all)")
        let linked = folder.home + "/.local/bin/shiplane"
        let ran = try runProgram(linked, [], in: work, environment: environment)
        #expect(ran.status == 0 && ran.stdout == "shiplane \(version) from the bundle\n", "\(ran.all)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linked) == folder.home + "/.local/opt/\(name)/bin/shiplane")

        // A tarball that is not the one SHA256SUMS names, the block pasted into a shell without
        // `set -e`: the check stops it all the same, nothing is unpacked.
        try FileManager.default.removeItem(atPath: folder.home + "/.local")
        try FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // A well-formed bundle that is not the one released, so only the check can stop it.
        try Data("#!/bin/sh\necho tampered\n".utf8).write(to: URL(fileURLWithPath: tree + "/bin/shiplane"))
        let tampered = try runProgram("/usr/bin/env", ["tar", "-czf", "\(releases)/\(name).tar.gz", "-C", folder.root + "/tree", name], in: folder.root, environment: environment)
        #expect(tampered.status == 0, "\(tampered.all)")
        let refused = try runProgram("/bin/bash", ["-c", tested], in: work, environment: environment)
        #expect(refused.status != 0, "\(refused.all)")
        #expect(refused.all.contains("FAILED"), "\(refused.all)")
        #expect(!FileManager.default.fileExists(atPath: folder.home + "/.local/opt/\(name)"))
        #expect(!FileManager.default.fileExists(atPath: folder.home + "/.local/bin/shiplane"))

        // The same tampered tarball with a SHA256SUMS made for it (what one who can replace the
        // release's files would serve): the key did not sign it, gpgv stops the block.
        try FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let forged = try runProgram("/usr/bin/env", ["sha256sum", "\(name).tar.gz"], in: releases, environment: environment)
        try Data(forged.stdout.utf8).write(to: URL(fileURLWithPath: releases + "/SHA256SUMS"))
        let unsigned = try runProgram("/bin/bash", ["-c", tested], in: work, environment: environment)
        #expect(unsigned.status != 0, "\(unsigned.all)")
        #expect(unsigned.all.contains("BAD signature"), "\(unsigned.all)")
        #expect(!FileManager.default.fileExists(atPath: folder.home + "/.local/opt/\(name)"))
        #expect(!FileManager.default.fileExists(atPath: folder.home + "/.local/bin/shiplane"))
        // Signed again, it installs: the signature, not the test, was what stopped it.
        try sign()
        let resigned = try runProgram("/bin/bash", ["-c", tested], in: work, environment: environment)
        #expect(resigned.status == 0, "\(resigned.all)")
    }

    /// The key the README's install block checks with is the release key the repository publishes
    /// (`Scripts/release-keys/shiplane-release.asc`), with the fingerprint the README prints.
    @Test func theInstallBlocksKeyIsThePublishedReleaseKey() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Quick start").dropFirst().first?.components(separatedBy: "\n## ").first)
        let snippet = try #require(section.components(separatedBy: "```sh\n").dropFirst().first { $0.hasPrefix("v=") })
        let readmeKey = try #require(snippet.components(separatedBy: "echo ").dropFirst().first?.components(separatedBy: " |").first)
        let folder = try TemporaryRepository(commit: false)
        let home = folder.root + "/gnupg"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        let published = try runProgram("/usr/bin/gpg", ["--batch", "--with-colons", "--show-keys", packageRoot + "/Scripts/release-keys/shiplane-release.asc"],
                                       in: folder.root, environment: environment)
        try #require(Data(base64Encoded: readmeKey), "the README's key is base64").write(to: URL(fileURLWithPath: folder.root + "/readme.gpg"))
        let embedded = try runProgram("/usr/bin/gpg", ["--batch", "--with-colons", "--show-keys", folder.root + "/readme.gpg"], in: folder.root, environment: environment)
        let fingerprints = { (listing: String) in listing.split(separator: "\n").filter { $0.hasPrefix("fpr:") }.map { $0.split(separator: ":", omittingEmptySubsequences: false)[9] } }
        #expect(fingerprints(published.stdout) == ["4A723844F5BAD8A51B35885316D65E3673D8A7B6"], "\(published.all)")
        #expect(fingerprints(embedded.stdout) == fingerprints(published.stdout), "\(embedded.all)")
        #expect(section.contains("`4A72 3844 F5BA D8A5 1B35 8853 16D6 5E36\n73D8 A7B6`"))
    }

    @Test func initWithoutCommitSaysHowToProceedAndTheLaneWorksWithAllowDirty() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["init", "--no-commit"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("Lanes/ is not committed yet"))
        let lane = try #require(repo.read("Lanes/Check.swift"))
        #expect(!lane.contains("sh(\"true\")"), "no placeholder commands for a project it does not recognise")
        #expect(lane.contains("// Add your project's build and test commands here"))
        #expect(try repo.shiplane(["check"]).status == 1, "the clean-tree check sees the new Lanes/")
        let dirty = try repo.shiplane(["check", "--allow-dirty"])
        #expect(dirty.status == 0, "\(dirty.all)")
        #expect(dirty.stdout.contains("current version 0.0.0"))
    }

    @Test func gitCommitTakesOnlyTheNamedPathsAndRollsBack() throws {
        let repo = try TemporaryRepository()
        try repo.write("docs/a.md", "a\n")
        try repo.write("docs/sub/b.md", "b\n")
        try repo.write("other.txt", "x\n")
        try repo.write(".gitignore", "docs/*.log\n")
        try repo.git("add", ".gitignore")
        try repo.git("commit", "-q", "-m", "chore: ignore logs")
        try repo.write("docs/debug.log", "ignored\n")
        try repo.write("Lanes/Docs.swift", """
        import Shiplane
        struct Docs: Lane {
            @Flag var fail = false
            func run(_ lane: LaneContext) async throws {
                try lane.gitCommit(paths: ["docs"], message: "docs: the guide")
                if fail { try await lane.sh("false") }
            }
        }
        """)
        let head = try repo.git("rev-parse", "HEAD")
        let failed = try repo.shiplane(["docs", "--fail"])
        #expect(failed.status == 1, "\(failed.all)")
        #expect(try repo.git("rev-parse", "HEAD") == head, "the commit is rolled back")
        let result = try repo.shiplane(["docs"])
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD") == "docs/a.md\ndocs/sub/b.md")
        #expect(try repo.git("status", "--porcelain").contains("other.txt"), "other changes stay out")
        try repo.git("fsck", "--strict")
    }
}
