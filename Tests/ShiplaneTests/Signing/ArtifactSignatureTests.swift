import Foundation
import Testing

/// Makes a minisign key pair without a password with the real minisign; returns (public, secret) paths.
func makeMinisignKey(in folder: String) throws -> (public: String, secret: String) {
    let made = try runProgram(
        "/usr/bin/minisign", ["-G", "-W", "-f", "-p", folder + "/minisign.pub", "-s", folder + "/minisign.key"],
        in: folder, environment: ["PATH": "/usr/bin:/bin", "HOME": folder])
    guard made.status == 0 else { throw TestFailure("minisign -G: \(made.all)") }
    return (folder + "/minisign.pub", folder + "/minisign.key")
}

/// The shiplane-gpg-PID-* folders in /tmp whose process has ended: a signing run leaves none
/// behind. (Folders of processes still running — other tests' signing runs in parallel — are
/// in use, not left.)
func temporaryKeyrings() -> Set<String> {
    Set(((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { name in
        guard name.hasPrefix("shiplane-gpg-") else { return false }
        let pid = name.dropFirst("shiplane-gpg-".count).split(separator: "-").first.flatMap { Int32($0) }
        guard let pid else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    })
}

@Suite("lane.sign and shiplane verify, checked by ssh-keygen, minisign and gpg", .serialized, .offThePool)
struct ArtifactSignatureTests {
    static let lane = #"""
    import Shiplane

    struct Sign: Lane {
        @Option var format = "ssh"

        func run(_ lane: LaneContext) async throws {
            let archive = try lane.archive("payload", to: "dist/payload.tar.gz")
            let sums = try lane.checksums([archive], to: "dist/SHA256SUMS")
            try lane.sign([sums, archive], format: format)
        }
    }
    """#

    func repository() throws -> TemporaryRepository {
        let repo = try repositoryWithLanes(["Lanes/Sign.swift": Self.lane])
        try repo.write("payload/README", "read me\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "payload")
        return repo
    }

    /// Flips one byte of a file.
    func tamper(_ path: String) throws {
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    @Test func sshSignaturesVerifyWithSSHKeygenAndShiplaneVerify() throws {
        let repo = try repository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "release", in: repo.root)
        let text = try String(contentsOfFile: key, encoding: .utf8)
        let allowed = repo.root + "/allowed_signers"
        try Data("release@example.com namespaces=\"file\" \(try String(contentsOfFile: key + ".pub", encoding: .utf8))".utf8).write(to: URL(fileURLWithPath: allowed))
        let result = try repo.shiplane(["sign", "--report-json", repo.root + "/report.json"], environment: ["SHIPLANE_SSH_SIGNING_KEY": text])
        #expect(result.status == 0, "\(result.all)")
        for file in ["SHA256SUMS", "payload.tar.gz"] {
            let checked = try runProgram(
                "/bin/sh", ["-c", "ssh-keygen -Y verify -f \"$0\" -I release@example.com -n file -s dist/\(file).sig < dist/\(file)", allowed],
                in: repo.path, environment: ["PATH": "/usr/bin:/bin"])
            #expect(checked.status == 0 && checked.stdout.contains("Good \"file\" signature"), "\(checked.all)")
        }
        // Ed25519 is deterministic: a second run makes the same bytes.
        let first = FileManager.default.contents(atPath: repo.path + "/dist/SHA256SUMS.sig")
        #expect(try repo.shiplane(["sign"], environment: ["SHIPLANE_SSH_SIGNING_KEY": text]).status == 0)
        #expect(FileManager.default.contents(atPath: repo.path + "/dist/SHA256SUMS.sig") == first)

        let secretLine = try #require(text.split(separator: "\n").dropFirst().first.map(String.init))
        let report = try String(contentsOfFile: repo.root + "/report.json", encoding: .utf8)
        for place in [result.all, report] { #expect(!place.contains(secretLine)) }

        let verified = try repo.shiplane(["verify", "dist", "--ssh-allowed-signers", allowed])
        #expect(verified.status == 0, "\(verified.all)")
        #expect(verified.stdout.contains("SHA256SUMS.sig is a good signature by release@example.com"))
        #expect(verified.stdout.contains("All 3 checks passed."))

        try tamper(repo.path + "/dist/payload.tar.gz")
        let tampered = try repo.shiplane(["verify", "dist", "--ssh-allowed-signers", allowed])
        #expect(tampered.status == 1, "\(tampered.all)")
        #expect(tampered.stderr.contains("payload.tar.gz: its SHA-256 does not match SHA256SUMS"))
        #expect(tampered.stderr.contains("payload.tar.gz: payload.tar.gz.sig does not verify"))
        #expect(try runProgram(
            "/bin/sh", ["-c", "ssh-keygen -Y verify -f \"$0\" -I release@example.com -n file -s dist/payload.tar.gz.sig < dist/payload.tar.gz", allowed],
            in: repo.path, environment: ["PATH": "/usr/bin:/bin"]).status != 0)
    }

    @Test func minisignSignaturesVerifyWithMinisign() throws {
        let repo = try repository()
        let keys = try makeMinisignKey(in: repo.root)
        let secret = try String(contentsOfFile: keys.secret, encoding: .utf8)
        let result = try repo.shiplane(["sign", "format:minisign"], environment: ["SHIPLANE_MINISIGN_KEY": secret, "SOURCE_DATE_EPOCH": "1700000000"])
        #expect(result.status == 0, "\(result.all)")
        for file in ["SHA256SUMS", "payload.tar.gz"] {
            let checked = try runProgram("/usr/bin/minisign", ["-V", "-p", keys.public, "-m", "dist/" + file], in: repo.path, environment: ["PATH": "/usr/bin:/bin"])
            #expect(checked.status == 0 && checked.all.contains("Signature and comment signature verified"), "\(checked.all)")
            #expect(checked.all.contains("timestamp:1700000000\tfile:\(file)"))
        }
        #expect(try repo.shiplane(["verify", "dist", "--minisign-key", keys.public]).status == 0)
        // The trusted comment is signed too: changing it is caught.
        let signature = try String(contentsOfFile: repo.path + "/dist/SHA256SUMS.minisig", encoding: .utf8)
        try Data(signature.replacingOccurrences(of: "timestamp:1700000000", with: "timestamp:1800000000").utf8)
            .write(to: URL(fileURLWithPath: repo.path + "/dist/SHA256SUMS.minisig"))
        let changed = try repo.shiplane(["verify", "dist", "--minisign-key", keys.public])
        #expect(changed.status == 1 && changed.stderr.contains("the trusted comment was changed after signing"), "\(changed.all)")
        #expect(try runProgram("/usr/bin/minisign", ["-V", "-p", keys.public, "-m", "dist/SHA256SUMS"], in: repo.path, environment: ["PATH": "/usr/bin:/bin"]).status != 0)
    }

    @Test func openPGPSignaturesFromAnArmoredSecretKeyVerifyWithGPG() throws {
        let repo = try repository()
        let home = try makeGPGHome(in: repo.root, user: "Release <release@example.com>")
        defer { stopGPGAgent(home) }
        let environment = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
        let armored = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--export-secret-keys"], in: repo.root, environment: environment).stdout
        let publicKey = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--export"], in: repo.root, environment: environment).stdout
        try Data(publicKey.utf8).write(to: URL(fileURLWithPath: repo.root + "/release.asc"))
        let before = temporaryKeyrings()
        // The run's own GNUPGHOME is an empty folder: the key comes from the secret alone.
        try FileManager.default.createDirectory(atPath: repo.root + "/empty-gnupg", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let result = try repo.shiplane(["sign", "format:openpgp"], environment: ["SHIPLANE_GPG_KEY": armored, "GNUPGHOME": repo.root + "/empty-gnupg"])
        #expect(result.status == 0, "\(result.all)")
        #expect(temporaryKeyrings() == before, "the imported keyring is removed")
        for file in ["SHA256SUMS", "payload.tar.gz"] {
            let checked = try runProgram("/usr/bin/gpg", ["--batch", "--verify", "dist/\(file).asc", "dist/" + file], in: repo.path, environment: environment)
            #expect(checked.status == 0 && checked.stderr.contains("Good signature from \"Release <release@example.com>\""), "\(checked.all)")
        }
        let armoredLine = try #require(armored.split(separator: "\n").dropFirst(3).first.map(String.init))
        #expect(!result.all.contains(armoredLine))
        #expect(try repo.shiplane(["verify", "dist", "--gpg-key", repo.root + "/release.asc"]).status == 0)
        try tamper(repo.path + "/dist/SHA256SUMS")
        let tampered = try repo.shiplane(["verify", "dist", "--gpg-key", repo.root + "/release.asc"])
        #expect(tampered.status == 1 && tampered.stderr.contains("SHA256SUMS: SHA256SUMS.asc does not verify"), "\(tampered.all)")
        #expect(temporaryKeyrings() == before)
    }

    @Test func dryRunShowsWhatWouldBeSignedAndWritesNothing() throws {
        let repo = try repository()
        let key = try makeSSHKey(["-t", "ed25519"], named: "release", in: repo.root)
        let text = try String(contentsOfFile: key, encoding: .utf8)
        let result = try repo.shiplane(["--dry-run", "sign"], environment: ["SHIPLANE_SSH_SIGNING_KEY": text])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would sign dist/SHA256SUMS with the ssh-ed25519 key SHA256:"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist"))
        let secretLine = try #require(text.split(separator: "\n").dropFirst().first.map(String.init))
        #expect(!result.all.contains(secretLine))
    }

    @Test func aMissingKeyIsAUsageErrorAndTheRunIsRolledBack() throws {
        let repo = try repository()
        let result = try repo.shiplane(["sign", "format:minisign"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("no minisign key to sign with: SHIPLANE_MINISIGN_KEY is not set"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist/payload.tar.gz"))
    }

    @Test func verifyNamesAFileNoChecksumOrSignatureCovers() throws {
        let folder = NSTemporaryDirectory() + "shiplane-verify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/dl", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("a\n".utf8).write(to: URL(fileURLWithPath: folder + "/dl/a.txt"))
        try Data("b\n".utf8).write(to: URL(fileURLWithPath: folder + "/dl/extra.bin"))
        try Data("87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n".utf8).write(to: URL(fileURLWithPath: folder + "/dl/SHA256SUMS"))
        let result = try runProgram(shiplaneBinary, ["verify", "dl"], in: folder, environment: isolatedEnvironment(home: folder))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("✓ a.txt  SHA-256 matches SHA256SUMS"))
        #expect(result.stderr.contains("extra.bin: no checksum file names it and no signature signs it"))
        let missing = try runProgram(shiplaneBinary, ["verify", "nowhere"], in: folder, environment: isolatedEnvironment(home: folder))
        #expect(missing.status == 2, "\(missing.all)")
    }
}
