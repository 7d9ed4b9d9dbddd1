import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// Every signing key a run is configured with is checked before its first step, dry run
/// included: keys that are set but cannot sign (a damaged PEM, a wrong passphrase, a gpg key id
/// not in the keyring, an SSH key file that cannot be read) stop the real binary with all of them
/// named at once, what to do, exit 4, and nothing changed: refs, files, the remote.
@Suite("signing keys checked before any change", .offThePool)
struct SigningKeyCheckTests {
    /// A VERSION repository with a bare origin it was pushed to.
    func repositoryWithOrigin() throws -> (repo: TemporaryRepository, origin: String) {
        let repo = try versionedRepository()
        let origin = repo.root + "/origin.git"
        _ = try runProgram("/usr/bin/git", ["init", "-q", "--bare", origin], in: repo.root, environment: repo.environment)
        try repo.git("remote", "add", "origin", origin)
        try repo.git("push", "-q", "origin", "HEAD:refs/heads/main", "--tags")
        return (repo, origin)
    }

    /// What must not change: every ref (local and origin's), the work tree's status and VERSION.
    func state(_ repo: TemporaryRepository, _ origin: String) throws -> [String] {
        [try repo.git("for-each-ref", "--format=%(refname) %(objectname)"),
         try repo.git("status", "--porcelain", "--untracked-files=all"),
         try String(contentsOfFile: repo.path + "/VERSION", encoding: .utf8),
         try runProgram("/usr/bin/git", ["for-each-ref", "--format=%(refname) %(objectname)"], in: origin, environment: repo.environment).stdout]
    }

    /// An armored OpenPGP secret key protected by the passphrase `right`.
    func protectedOpenPGPKey(in root: String) throws -> String {
        var template = Array("/tmp/sl-gpg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let home = String(cString: made)
        defer { stopGPGAgent(home) }
        let environment = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        let generated = try runProgram("/usr/bin/gpg", ["--batch", "--pinentry-mode", "loopback", "--passphrase", "right", "--quick-gen-key",
                                                        "Release <release@example.com>", "ed25519", "sign", "never"], in: root, environment: environment)
        guard generated.status == 0 else { throw TestFailure("gpg: \(generated.all)") }
        return try runProgram("/usr/bin/gpg", ["--batch", "--pinentry-mode", "loopback", "--passphrase", "right", "--armor", "--export-secret-keys"],
                              in: root, environment: environment).stdout
    }

    @Test func unusableKeysStopTheRunBeforeAnyChangeAllNamedAtOnce() throws {
        let (repo, origin) = try repositoryWithOrigin()
        let armored = try protectedOpenPGPKey(in: repo.root)
        let emptyKeyring = repo.root + "/empty-gnupg"
        try FileManager.default.createDirectory(atPath: emptyKeyring, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = [
            "SHIPLANE_ATTESTATION_KEY": "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
            "SHIPLANE_GPG_KEY": armored, "SHIPLANE_GPG_PASSPHRASE": "wrong", "GNUPGHOME": emptyKeyring,
        ]
        // gpg signs commits and tags with a key id the keyring does not hold.
        for (name, value) in [("commit.gpgSign", "true"), ("tag.gpgSign", "true"), ("gpg.format", "openpgp"), ("user.signingKey", "0xDEADBEEFDEADBEEF")] {
            try repo.git("config", name, value)
        }
        let before = try state(repo, origin)
        for dryRun in [true, false] {
            let run = try repo.shiplane((dryRun ? ["--dry-run"] : []) + ["bump", "patch", "--commit", "--tag", "--push"], environment: environment)
            #expect(run.status == 4, "dry run \(dryRun): \(run.all)")
            #expect(run.stderr.contains("3 signing keys are set but cannot sign; nothing was changed"), "\(run.all)")
            #expect(run.stderr.contains("SHIPLANE_ATTESTATION_KEY (lane.provenance): "), "\(run.all)")
            #expect(run.stderr.contains("SHIPLANE_GPG_KEY (lane.sign, format openpgp): gpg did not sign with"), "\(run.all)")
            // With SHIPLANE_GPG_PASSPHRASE set, the git key is tried with a probe signature too.
            #expect(run.stderr.contains("commit.gpgSign in git config and tag.gpgSign in git config: gpg did not sign with 0xDEADBEEFDEADBEEF"), "\(run.all)")
            #expect(run.stderr.contains("No secret key") && run.stderr.contains("Bad passphrase"), "\(run.all)")
            #expect(run.stderr.contains("hint: check the key exists (`gpg --list-secret-keys`)"), "what to do: \(run.all)")
            #expect(!run.all.contains("bm90IGEga2V5") && !run.all.contains("wrong"), "no secret shown: \(run.all)")
            #expect(try state(repo, origin) == before, "nothing changed (dry run \(dryRun))")
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: "/tmp"))?.contains { $0.hasPrefix("shiplane-gpg-") && $0.contains("-\(getpid())-") } != true)
    }

    @Test func anSSHKeyFileThatCannotBeReadStopsTheRunBeforeAnyChange() throws {
        let (repo, origin) = try repositoryWithOrigin()
        for (name, value) in [("commit.gpgSign", "true"), ("gpg.format", "ssh"), ("user.signingKey", repo.root + "/keys/missing_ed25519")] {
            try repo.git("config", name, value)
        }
        let before = try state(repo, origin)
        let run = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: ["SHIPLANE_MINISIGN_KEY": "untrusted comment: nothing\nRWQ=\n"])
        #expect(run.status == 4, "\(run.all)")
        #expect(run.stderr.contains("2 signing keys are set but cannot sign"), "\(run.all)")
        #expect(run.stderr.contains("SHIPLANE_MINISIGN_KEY (lane.sign, format minisign): it is not a minisign secret key file"), "\(run.all)")
        #expect(run.stderr.contains("commit.gpgSign in git config: cannot read the SSH key \(repo.root)/keys/missing_ed25519 that user.signingKey names"), "\(run.all)")
        #expect(try state(repo, origin) == before)

        // The same keys made usable: the run signs and pushes.
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: repo.root)
        try repo.git("config", "user.signingKey", key)
        let fixed = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"])
        #expect(fixed.status == 0, "\(fixed.all)")
        #expect(try state(repo, origin) != before)
    }
}
