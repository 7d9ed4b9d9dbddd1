import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// Every signing key a run is configured with is checked before its first step, dry run
/// included: keys that are set but cannot sign (a damaged PEM, a wrong passphrase, a gpg key id
/// not in the keyring, an SSH key file that cannot be read beside them) stop the real binary with
/// all of them named at once, what to do, exit 4, and nothing changed: refs, files, the remote. A
/// signature asked for with no key configured, or a key file that cannot be read, alone: exit 2.
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

    /// Makes a key in the keyring `home` (`passphrase` empty: none) and returns its fingerprint;
    /// gpg-agent is stopped afterwards, so it holds no passphrase.
    func keyringKey(_ user: String, passphrase: String, in home: String, root: String) throws -> String {
        let environment = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        let generated = try runProgram("/usr/bin/gpg", ["--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase, "--quick-gen-key",
                                                        user, "ed25519", "sign", "never"], in: root, environment: environment)
        guard generated.status == 0 else { throw TestFailure("gpg: \(generated.all)") }
        _ = try runProgram("/usr/bin/gpgconf", ["--kill", "gpg-agent"], in: root, environment: environment)
        let listed = try runProgram("/usr/bin/gpg", ["--batch", "--with-colons", "--list-secret-keys", user], in: root, environment: environment).stdout
        let fingerprint = listed.split(separator: "\n").first { $0.hasPrefix("fpr:") }?.split(separator: ":", omittingEmptySubsequences: false).dropFirst(9).first
        return try #require(fingerprint.map(String.init))
    }

    @Test func aKeyringKeyThatNeedsAPassphraseNotGivenStopsTheRunBeforeAnyChange() throws {
        let (repo, origin) = try repositoryWithOrigin()
        var template = Array("/tmp/sl-gpg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let home = String(cString: made)
        defer { stopGPGAgent(home) }
        let open = try keyringKey("Open <open@example.com>", passphrase: "", in: home, root: repo.root)
        let protected = try keyringKey("Release <release@example.com>", passphrase: "right", in: home, root: repo.root)
        for (name, value) in [("commit.gpgSign", "true"), ("gpg.format", "openpgp"), ("user.signingKey", protected)] {
            try repo.git("config", name, value)
        }
        let before = try state(repo, origin)
        // The key is in the keyring (gpg --list-secret-keys finds it) but signs only with its
        // passphrase, which is not given: the probe, made with an empty one in loopback mode, fails.
        for dryRun in [true, false] {
            let run = try repo.shiplane((dryRun ? ["--dry-run"] : []) + ["bump", "patch", "--commit", "--tag", "--push"],
                                        environment: ["GNUPGHOME": home, "SHIPLANE_GPG_KEY": protected])
            #expect(run.status == 4, "dry run \(dryRun): \(run.all)")
            #expect(run.stderr.contains("a signing key is set but cannot sign; nothing was changed"), "\(run.all)")
            #expect(run.stderr.contains("SHIPLANE_GPG_KEY (lane.sign, format openpgp) and commit.gpgSign in git config: gpg key *** needs a passphrase, and none was given"), "\(run.all)")
            #expect(!run.all.contains(protected), "SHIPLANE_GPG_KEY's value is redacted: \(run.all)")
            #expect(run.stderr.contains("set SHIPLANE_GPG_PASSPHRASE to the key's passphrase"), "what to do: \(run.all)")
            #expect(try state(repo, origin) == before, "nothing changed (dry run \(dryRun))")
        }
        // A keyring key without a passphrase passes the check (the dry run goes on).
        try repo.git("config", "user.signingKey", open)
        let unprotected = try repo.shiplane(["--dry-run", "bump", "patch", "--commit", "--tag", "--push"],
                                            environment: ["GNUPGHOME": home, "SHIPLANE_GPG_KEY": open])
        #expect(unprotected.status == 0, "\(unprotected.all)")
        #expect(try state(repo, origin) == before)
        // The passphrase given: the run signs its commit with the protected key and pushes.
        try repo.git("config", "user.signingKey", protected)
        let signed = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"],
                                       environment: ["GNUPGHOME": home, "SHIPLANE_GPG_KEY": protected, "SHIPLANE_GPG_PASSPHRASE": "right"])
        #expect(signed.status == 0, "\(signed.all)")
        #expect(!signed.all.contains("right"), "the passphrase is not shown")
        let verified = try runProgram("/usr/bin/git", ["verify-commit", "HEAD"], in: repo.path, environment: repo.environment.merging(["GNUPGHOME": home]) { $1 })
        #expect(verified.status == 0 && verified.all.contains("Good signature"), "\(verified.all)")
    }

    /// A lane that tags, then signs with keys its code names by other variables.
    static let namingLane = #"""
    import Shiplane

    struct Release: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.addGitTag("v9.9.9", message: "Release 9.9.9")
            let archive = try lane.archive("payload", to: "dist/payload.tar.gz")
            // lane.sign([archive], key: "NOT_A_CALL") is a comment
            try lane.sign([archive], format: "minisign", key: "MY_RELEASE_KEY")
            try lane.provenance(for: [archive], to: "dist/payload.intoto.jsonl",
                                key: "MY_PROVENANCE_KEY")
        }
    }
    """#

    @Test func keysALaneNamesByOtherVariablesAreCheckedBeforeItsFirstStep() throws {
        let repo = try repositoryWithLanes(["Lanes/Release.swift": Self.namingLane, "payload/README": "read me\n"])
        let before = try repo.git("for-each-ref", "--format=%(refname) %(objectname)") + (try repo.git("status", "--porcelain", "--untracked-files=all"))
        let environment = ["MY_RELEASE_KEY": "untrusted comment: nothing\nRWQ=\n",
                           "MY_PROVENANCE_KEY": "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
                           "NOT_A_CALL": "not a key"]
        for dryRun in [true, false] {
            let run = try repo.shiplane((dryRun ? ["--dry-run"] : []) + ["release"], environment: environment)
            #expect(run.status == 4, "dry run \(dryRun): \(run.all)")
            #expect(run.stderr.contains("2 signing keys are set but cannot sign; nothing was changed"), "\(run.all)")
            #expect(run.stderr.contains("MY_RELEASE_KEY (lane.sign at Lanes/Release.swift:8, format minisign): it is not a minisign secret key file"), "\(run.all)")
            #expect(run.stderr.contains("MY_PROVENANCE_KEY (lane.provenance at Lanes/Release.swift:9): "), "\(run.all)")
            #expect(!run.all.contains("NOT_A_CALL") && !run.all.contains("bm90IGEga2V5"), "\(run.all)")
            #expect(run.all.contains("(0 steps)"), "no step ran: \(run.all)")
            #expect(try repo.git("for-each-ref", "--format=%(refname) %(objectname)") + (try repo.git("status", "--porcelain", "--untracked-files=all")) == before)
        }
        // Unset, they are not checked before the run: the lane may not reach the steps.
        let unset = try repo.shiplane(["--dry-run", "release"])
        #expect(!unset.all.contains("cannot sign; nothing was changed"), "\(unset.all)")
    }

    /// A lane that bumps, then commits signed (`sign: true`) whatever git's configuration says.
    static let signedCommitLane = #"""
    import Shiplane

    struct Release: Lane {
        func run(_ lane: LaneContext) async throws {
            let bumped = try lane.bumpVersion(.patch)
            try lane.commitVersionBump(bumped, message: "Release \(bumped.version)", sign: true)
            try lane.addGitTag("v\(bumped.version)")
        }
    }
    """#

    /// A signature the lane or the command asks for, with `user.signingKey` naming a key file that
    /// is not there, is a usage error the preflight reports (exit 2) before the bump, not the
    /// commit step after it: no step runs, and git finds every ref, the work tree and VERSION as
    /// they were. With no key configured at all, the same: the preflight's own usage error.
    @Test func aSignatureAskedForWithAKeyFileThatCannotBeReadStopsBeforeTheBump() throws {
        let repo = try repositoryWithLanes(["Lanes/Release.swift": Self.signedCommitLane, "VERSION": "1.2.3\n"])
        let missing = repo.root + "/keys/missing_ed25519"
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", missing)] { try repo.git("config", name, value) }
        func state() throws -> [String] {
            [try repo.git("for-each-ref", "--format=%(refname) %(objectname)"), try repo.git("rev-parse", "HEAD"),
             try repo.git("status", "--porcelain", "--untracked-files=all"), try repo.git("show", "HEAD:VERSION")]
        }
        let before = try state()
        for dryRun in [true, false] {
            let run = try repo.shiplane((dryRun ? ["--dry-run"] : []) + ["release"])
            #expect(run.status == 2, "dry run \(dryRun): \(run.all)")
            #expect(run.stderr.contains("a signing key is set but cannot sign; nothing was changed"), "\(run.all)")
            #expect(run.stderr.contains("Lanes/Release.swift:6 (a signed commit): cannot read the SSH key \(missing) that user.signingKey names"), "\(run.all)")
            #expect(run.all.contains("(0 steps)"), "stopped before the bump: \(run.all)")
            #expect(!run.all.contains("rolled back") && !run.all.contains("Rolled back"), "nothing to roll back: \(run.all)")
            #expect(try state() == before, "nothing changed (dry run \(dryRun))")
            #expect(repo.read("VERSION") == "1.2.3\n")
        }
        let bump = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--sign"])
        #expect(bump.status == 2, "\(bump.all)")
        #expect(bump.stderr.contains("shiplane bump --sign (a signed commit) and shiplane bump --sign (a signed tag): cannot read the SSH key \(missing)"), "\(bump.all)")
        #expect(try state() == before)

        // No key configured at all: the preflight's usage error, saying what to configure.
        try repo.git("config", "--unset", "user.signingKey")
        let none = try repo.shiplane(["release"])
        #expect(none.status == 2, "\(none.all)")
        #expect(none.stderr.contains("a signature is asked for and no signing key is configured; nothing was changed"), "\(none.all)")
        #expect(none.stderr.contains("Lanes/Release.swift:6 (a signed commit): no SSH key to sign with"), "\(none.all)")
        #expect(none.all.contains("(0 steps)"), "\(none.all)")
        #expect(try state() == before)
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
