import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The provenance envelope signed as `lane.sign` signs files: through a real `ssh-agent` (keys
/// added with `ssh-add`; the agent protocol spoken natively), by `gpg --detach-sign` with the
/// user's key in a throwaway GNUPGHOME, and with a minisign key — each checked by an independent
/// verifier over DSSE's pre-authentication encoding (securesystemslib or openssl, `gpg --verify`,
/// `minisign -V`) and by `shiplane verify` with the matching key, which refuses a changed statement.
@Suite("provenance signed through ssh-agent, gpg and minisign", .serialized, .offThePool)
struct ProvenanceSignerKindsTests {
    struct Made {
        var repo: TemporaryRepository
        var envelope: [String: Any]
        var pae: String
        var sig: String
    }

    /// A repository with a release archive and its SHA256SUMS; the provenance of the archive
    /// signed with `format` (the sums signed too when `signSums`), and the encoding and
    /// signature written to files for the independent verifiers.
    func provenance(format: String, environment: [String: String], signSums: Bool, repo: TemporaryRepository) throws -> Made {
        let test = TestLaneContext(workingDirectory: repo.path, environment: environment)
        let sums = try test.context.checksums(["dist/rocket-1.0.0.tar.gz"], to: "dist/SHA256SUMS")
        if signSums { try test.context.sign([sums], format: format) }
        try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz"], to: "dist/rocket.intoto.jsonl", format: format)
        let text = try String(contentsOfFile: repo.path + "/dist/rocket.intoto.jsonl", encoding: .utf8)
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let payload = try #require((envelope["payload"] as? String).flatMap { Data(base64Encoded: $0) })
        let type = try #require(envelope["payloadType"] as? String)
        let signature = try #require((envelope["signatures"] as? [[String: Any]])?.first?["sig"] as? String).flatMap { Data(base64Encoded: $0) }
        try DSSE.preAuthenticationEncoding(payloadType: type, payload: payload).write(to: URL(fileURLWithPath: repo.root + "/pae"))
        try #require(signature).write(to: URL(fileURLWithPath: repo.root + "/pae.sig"))
        return Made(repo: repo, envelope: envelope, pae: repo.root + "/pae", sig: repo.root + "/pae.sig")
    }

    func releaseRepository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes")
        try repo.git("tag", "-a", "v1.0.0", "-m", "1.0.0")
        return repo
    }

    /// Writes the envelope with one word of its statement changed, its signature kept.
    func tamper(_ made: Made) throws {
        var envelope = made.envelope
        let payload = try #require((envelope["payload"] as? String).flatMap { Data(base64Encoded: $0) })
        envelope["payload"] = Data(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "rocket-1.0.0.tar.gz", with: "rocket-1.0.1.tar.gz").utf8).base64EncodedString()
        try JSONSerialization.data(withJSONObject: envelope).write(to: URL(fileURLWithPath: made.repo.path + "/dist/rocket.intoto.jsonl"))
    }

    /// An ssh-agent of its own on a short socket path, in the foreground (`-D`: `-s` forks a
    /// daemon that keeps the output pipe open); `stop` ends it and removes the folder.
    struct Agent {
        var socket: String
        var process: Process
        var folder: String

        static func start() throws -> Agent {
            var template = Array("/tmp/sl-agent-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed for ssh-agent") }
            let folder = String(cString: made)
            let socket = folder + "/agent.sock"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
            process.arguments = ["-D", "-a", socket]
            process.environment = ["PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(50_000) }
            guard FileManager.default.fileExists(atPath: socket) else { throw TestFailure("ssh-agent made no socket") }
            return Agent(socket: socket, process: process, folder: folder)
        }

        func add(_ key: String) throws {
            let added = try runProgram("/usr/bin/ssh-add", [key], in: folder, environment: ["PATH": "/usr/bin:/bin", "SSH_AUTH_SOCK": socket])
            guard added.status == 0 else { throw TestFailure("ssh-add: \(added.all)") }
        }

        func stop() {
            // SIGKILL: the agent inherits the test process's blocked signals, SIGTERM among them.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Keys of three types in one agent: the public key in SHIPLANE_ATTESTATION_KEY says which
    /// signs. Ed25519 is checked by securesystemslib, RSA (asked for rsa-sha2-256) and ECDSA (the
    /// agent's r and s rewritten as DER) by openssl with the key ssh-keygen exports.
    @Test func sshAgentSignsTheEnvelopeWithTheKeyNamed() throws {
        let agent = try Agent.start()
        defer { agent.stop() }
        let repo = try releaseRepository()
        let keys = [("ed25519", try makeSSHKey(["-t", "ed25519"], named: "ed", in: repo.root)),
                    ("rsa", try makeSSHKey(["-t", "rsa", "-b", "3072"], named: "rsa", in: repo.root)),
                    ("ecdsa", try makeSSHKey(["-t", "ecdsa", "-b", "256"], named: "ecdsa", in: repo.root))]
        for (_, key) in keys { try agent.add(key) }
        for (type, key) in keys {
            let publicLine = try String(contentsOfFile: key + ".pub", encoding: .utf8)
            let made = try provenance(format: "ssh", environment: ["SSH_AUTH_SOCK": agent.socket, "SHIPLANE_ATTESTATION_KEY": publicLine], signSums: false, repo: repo)
            let keyID = try #require((made.envelope["signatures"] as? [[String: Any]])?.first?["keyid"] as? String)
            #expect(try runTool(["ssh-keygen", "-l", "-f", key + ".pub"]).output.contains(keyID), "\(type): \(keyID)")
            if type == "ed25519" {
                let blob = try #require(Data(base64Encoded: String(publicLine.split(separator: " ")[1])))
                let python = packageRoot + "/.venv/bin/python"
                let checked = try runTool([python, packageRoot + "/Tests/ShiplaneTests/Fixtures/SBOM/verify_dsse.py", repo.path + "/dist/rocket.intoto.jsonl",
                                           blob.suffix(32).hexadecimal, keyID])
                #expect(checked.status == 0, "securesystemslib: \(checked.output)")
            } else {
                let exported = try runProgram("/bin/sh", ["-c", "ssh-keygen -e -m PKCS8 -f \"$0\".pub > \"$0\".pem", key], in: repo.root, environment: ["PATH": "/usr/bin:/bin"])
                #expect(exported.status == 0, "\(exported.all)")
                let openssl = try runTool(["openssl", "dgst", "-sha256", "-verify", key + ".pem", "-signature", made.sig, made.pae])
                #expect(openssl.status == 0 && openssl.output.contains("Verified OK"), "\(type): \(openssl.output)")
            }
            let verified = try repo.shiplane(["verify", "dist", "--attestation-key", key + ".pub"])
            #expect(verified.status == 0, "\(type): \(verified.all)")
            #expect(verified.stdout.contains("its DSSE envelope is signed by the attestation key given"), "\(verified.all)")
            try tamper(made)
            let refused = try repo.shiplane(["verify", "dist", "--attestation-key", key + ".pub"])
            #expect(refused.status == 1 && refused.stderr.contains("its DSSE signature does not verify"), "\(type): \(refused.all)")
        }
        // Several keys and none named: a usage error that says what to set.
        let test = TestLaneContext(workingDirectory: repo.path, environment: ["SSH_AUTH_SOCK": agent.socket])
        #expect { try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz"], to: "dist/x.intoto.jsonl", format: "ssh") }
            throws: { allText(of: $0).contains("ssh-agent holds 3 keys") }
    }

    /// `gpg --detach-sign` with the user's key (GNUPGHOME, the key by its user id): `gpg --verify`
    /// checks the binary signature over the encoding, and `shiplane verify --gpg-key` too.
    @Test func gpgSignsTheEnvelopeWithTheUsersKey() throws {
        let leftBefore = temporaryKeyrings()
        let repo = try releaseRepository()
        let home = try makeGPGHome(in: repo.root)
        defer { stopGPGAgent(home) }
        let environment = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home, "SHIPLANE_GPG_KEY": "committer@example.com"]
        let made = try provenance(format: "openpgp", environment: environment, signSums: true, repo: repo)
        let checked = try runProgram("/usr/bin/gpg", ["--batch", "--verify", made.sig, made.pae], in: repo.root, environment: ["PATH": "/usr/bin:/bin", "GNUPGHOME": home])
        #expect(checked.status == 0 && checked.all.contains("Good signature"), "\(checked.all)")
        let exported = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--export"], in: repo.root, environment: ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]).stdout
        try Data(exported.utf8).write(to: URL(fileURLWithPath: repo.root + "/release.asc"))
        let verified = try repo.shiplane(["verify", "dist", "--gpg-key", repo.root + "/release.asc"])
        #expect(verified.status == 0, "\(verified.all)")
        #expect(verified.stdout.contains("its DSSE envelope is signed by OpenPGP key"), "\(verified.all)")
        try tamper(made)
        let refused = try repo.shiplane(["verify", "dist", "--gpg-key", repo.root + "/release.asc"])
        #expect(refused.status == 1 && refused.stderr.contains("its DSSE signature does not verify with the OpenPGP key given"), "\(refused.all)")
        #expect(temporaryKeyrings().subtracting(leftBefore).isEmpty, "verify leaves no keyring folder: \(temporaryKeyrings())")
    }

    /// A minisign key (the same secret `lane.sign` takes): `minisign -V` checks the `.minisig`
    /// text over the encoding; the same key and statement give the same bytes.
    @Test func minisignSignsTheEnvelope() throws {
        let repo = try releaseRepository()
        let keys = try makeMinisignKey(in: repo.root)
        let environment = ["SHIPLANE_MINISIGN_KEY": try String(contentsOfFile: keys.secret, encoding: .utf8)]
        let made = try provenance(format: "minisign", environment: environment, signSums: true, repo: repo)
        let checked = try runProgram("/usr/bin/minisign", ["-V", "-p", keys.public, "-m", made.pae, "-x", made.sig], in: repo.root, environment: ["PATH": "/usr/bin:/bin"])
        #expect(checked.status == 0 && checked.all.contains("Trusted comment: dsse"), "\(checked.all)")
        let first = try String(contentsOfFile: repo.path + "/dist/rocket.intoto.jsonl", encoding: .utf8)
        _ = try provenance(format: "minisign", environment: environment, signSums: true, repo: repo)
        #expect(try String(contentsOfFile: repo.path + "/dist/rocket.intoto.jsonl", encoding: .utf8) == first, "Ed25519 and a fixed comment: the same bytes")
        let verified = try repo.shiplane(["verify", "dist", "--minisign-key", keys.public])
        #expect(verified.status == 0, "\(verified.all)")
        #expect(verified.stdout.contains("its DSSE envelope is signed by minisign key"), "\(verified.all)")
        try tamper(made)
        let refused = try repo.shiplane(["verify", "dist", "--minisign-key", keys.public])
        #expect(refused.status == 1 && refused.stderr.contains("its DSSE signature does not verify with the minisign key given"), "\(refused.all)")
    }
}
