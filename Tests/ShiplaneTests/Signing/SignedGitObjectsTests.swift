import Foundation
import Testing

/// Makes an SSH key pair with the real ssh-keygen in `folder`; returns the private key's path.
func makeSSHKey(_ type: [String], named name: String, in folder: String) throws -> String {
    let path = folder + "/" + name
    let made = try runProgram("/usr/bin/ssh-keygen", ["-q"] + type + ["-N", "", "-C", name, "-f", path], in: folder, environment: ["PATH": "/usr/bin:/bin"])
    guard made.status == 0 else { throw TestFailure("ssh-keygen: \(made.all)") }
    return path
}

/// Writes an allowed-signers file naming the committer for each public key, and points git at it.
func allowSigners(_ keys: [String], in repo: TemporaryRepository) throws {
    let lines = try keys.map { "committer@example.com " + (try String(contentsOfFile: $0 + ".pub", encoding: .utf8)) }
    try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: repo.root + "/allowed_signers"))
    try repo.git("config", "gpg.ssh.allowedSignersFile", repo.root + "/allowed_signers")
}

/// A GnuPG home in the test's folder with one signing key without a passphrase (made by gpg itself).
func makeGPGHome(in root: String, user: String = "Test Committer <committer@example.com>") throws -> String {
    // A short path in /tmp, not the test's folder: gpg-agent's socket lives in the home, and a
    // Unix socket's path has at most 107 bytes (the whole suite's folders are longer). Removed by
    // stopGPGAgent.
    var template = Array("/tmp/sl-gpg-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed for a GnuPG home") }
    let home = String(cString: made)
    let generated = try runProgram(
        "/usr/bin/gpg", ["--batch", "--quiet", "--passphrase", "", "--quick-gen-key", user, "ed25519", "sign", "never"],
        in: root, environment: ["PATH": "/usr/bin:/bin", "GNUPGHOME": home])
    guard generated.status == 0 else { throw TestFailure("gpg: \(generated.all)") }
    return home
}

/// Stops the gpg-agent a test's GnuPG home started.
func stopGPGAgent(_ home: String) {
    _ = try? runProgram("/usr/bin/gpgconf", ["--kill", "all"], in: "/", environment: ["PATH": "/usr/bin:/bin", "GNUPGHOME": home])
    if home.hasPrefix("/tmp/sl-gpg-") { try? FileManager.default.removeItem(atPath: home) }
}

@Suite("Signed commits and tags, checked by git verify-commit and verify-tag", .offThePool)
struct SignedGitObjectsTests {
    @Test(arguments: [["-t", "ed25519"], ["-t", "rsa", "-b", "3072"], ["-t", "ecdsa", "-b", "256"], ["-t", "ecdsa", "-b", "521"]])
    func sshKeyFileFromGitConfig(keyType: [String]) throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(keyType, named: "signing", in: repo.root)
        try allowSigners([key], in: repo)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key), ("commit.gpgSign", "true"), ("tag.gpgSign", "true")] {
            try repo.git("config", name, value)
        }
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("v1.3.0 → ") && result.stdout.contains("(signed)"))
        let commit = try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: repo.environment)
        #expect(commit.status == 0 && commit.stderr.contains("Good \"git\" signature for committer@example.com"), "\(commit.all)")
        let tag = try runProgram("/usr/bin/git", ["verify-tag", "v1.3.0"], in: repo.path, environment: repo.environment)
        #expect(tag.status == 0 && tag.stderr.contains("Good \"git\" signature"), "\(tag.all)")
        try repo.git("fsck", "--strict")
        #expect(try repo.git("cat-file", "-p", "v1.3.0").contains("Release 1.3.0\n-----BEGIN SSH SIGNATURE-----"))
    }

    @Test func aSignatureByAnotherKeyFailsVerification() throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: repo.root)
        let other = try makeSSHKey(["-t", "ed25519"], named: "other", in: repo.root)
        try allowSigners([other], in: repo)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key)] { try repo.git("config", name, value) }
        #expect(try repo.shiplane(["bump", "patch", "--commit", "--tag", "--sign"]).status == 0)
        #expect(try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: repo.environment).status != 0)
        #expect(try runProgram("/usr/bin/git", ["verify-tag", "v1.2.4"], in: repo.path, environment: repo.environment).status != 0)
    }

    @Test func keyFromTheEnvironmentIsNeverShownNorRecorded() throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: repo.root)
        try allowSigners([key], in: repo)
        try repo.git("config", "gpg.format", "ssh")
        let text = try String(contentsOfFile: key, encoding: .utf8)
        try FileManager.default.removeItem(atPath: key)
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--sign", "--report-json", repo.root + "/report.json"],
                                       environment: ["SHIPLANE_SSH_SIGNING_KEY": text])
        #expect(result.status == 0, "\(result.all)")
        #expect(try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: repo.environment).status == 0)
        #expect(try runProgram("/usr/bin/git", ["verify-tag", "v1.2.4"], in: repo.path, environment: repo.environment).status == 0)
        let secretLine = try #require(text.split(separator: "\n").dropFirst().first.map(String.init))
        let report = try String(contentsOfFile: repo.root + "/report.json", encoding: .utf8)
        let recorded = (try? FileManager.default.contentsOfDirectory(atPath: repo.path + "/.git/shiplane")) ?? []
        let records = recorded.compactMap { try? String(contentsOfFile: repo.path + "/.git/shiplane/" + $0, encoding: .utf8) }.joined()
        for place in [result.all, report, records] { #expect(!place.contains(secretLine)) }
    }

    @Test func throughSSHAgent() throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "agent-key", in: repo.root)
        try allowSigners([key], in: repo)
        let socket = repo.root + "/agent.sock"
        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
        agent.arguments = ["-D", "-a", socket]
        agent.standardOutput = FileHandle.nullDevice
        try agent.run()
        // SIGKILL: a child Foundation starts inherits Dispatch's blocked signals, SIGTERM among them.
        defer { kill(agent.processIdentifier, SIGKILL); agent.waitUntilExit() }
        while !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let added = try runProgram("/usr/bin/ssh-add", ["-q", key], in: repo.root, environment: ["PATH": "/usr/bin:/bin", "SSH_AUTH_SOCK": socket])
        #expect(added.status == 0, "\(added.all)")
        try FileManager.default.removeItem(atPath: key)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key + ".pub"), ("commit.gpgSign", "true"), ("tag.gpgSign", "true")] {
            try repo.git("config", name, value)
        }
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag"], environment: ["SSH_AUTH_SOCK": socket])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("in ssh-agent"))
        #expect(try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: repo.environment).status == 0)
        #expect(try runProgram("/usr/bin/git", ["verify-tag", "v1.2.4"], in: repo.path, environment: repo.environment).status == 0)
    }

    @Test func openPGPThroughGPG() throws {
        let repo = try versionedRepository()
        let home = try makeGPGHome(in: repo.root)
        defer { stopGPGAgent(home) }
        try repo.git("config", "commit.gpgSign", "true")
        try repo.git("config", "tag.gpgSign", "true")
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag"], environment: ["GNUPGHOME": home])
        #expect(result.status == 0, "\(result.all)")
        var environment = repo.environment
        environment["GNUPGHOME"] = home
        let commit = try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: environment)
        #expect(commit.status == 0 && commit.stderr.contains("Good signature from \"Test Committer"), "\(commit.all)")
        let tag = try runProgram("/usr/bin/git", ["verify-tag", "v1.2.4"], in: repo.path, environment: environment)
        #expect(tag.status == 0 && tag.stderr.contains("Good signature"), "\(tag.all)")
    }

    @Test func noKeyIsAUsageErrorAndChangesNothing() throws {
        let repo = try versionedRepository()
        try repo.git("config", "gpg.format", "ssh")
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--sign"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.all.contains("no SSH key to sign with"))
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func aRolledBackRunRemovesTheSignedTagAndCommit() throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: repo.root)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key)] { try repo.git("config", name, value) }
        let head = try repo.git("rev-parse", "HEAD")
        // No remote called origin: the push fails before the point of no return.
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--sign", "--push"])
        #expect(result.status == 1, "\(result.all)")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list", "v1.2.4") == "")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func dryRunSaysWhichKeyWouldSign() throws {
        let repo = try versionedRepository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: repo.root)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key), ("commit.gpgSign", "true"), ("tag.gpgSign", "true")] {
            try repo.git("config", name, value)
        }
        let result = try repo.shiplane(["--dry-run", "bump", "patch", "--commit", "--tag"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("signed with the ssh-ed25519 key SHA256:"))
        #expect(try repo.git("tag", "--list") == "v1.2.3")
    }
}
