import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// An Ed25519 key made by openssl, with its raw public key in hex.
private func opensslKey(in folder: String) throws -> (pem: String, publicHex: String) {
    #expect(try runTool(["openssl", "genpkey", "-algorithm", "ed25519", "-out", folder + "/key.pem"]).status == 0)
    let pem = try String(contentsOfFile: folder + "/key.pem", encoding: .utf8)
    #expect(try runTool(["openssl", "pkey", "-in", folder + "/key.pem", "-pubout", "-outform", "DER", "-out", folder + "/pub.der"]).status == 0)
    let der = try Data(contentsOf: URL(fileURLWithPath: folder + "/pub.der"))
    return (pem, der.suffix(32).hexadecimal)
}

/// Verifies `envelope` with securesystemslib; returns the statement when it verifies.
private func verifyWithSecureSystemsLib(_ envelope: String, publicHex: String, keyID: String) throws -> (verified: Bool, output: String) {
    let python = packageRoot + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else { throw TestFailure("no virtualenv at .venv: run Scripts/setup") }
    let result = try runTool([python, packageRoot + "/Tests/ShiplaneTests/Fixtures/SBOM/verify_dsse.py", envelope, publicHex, keyID])
    return (result.status == 0, result.output)
}

@Suite("SLSA provenance in a signed DSSE envelope", .offThePool)
struct ProvenanceTests {
    private func releasedRepository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.git("remote", "add", "origin", "git@git.example.com:acme/rocket.git")
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes")
        try repo.write("dist/SHA256SUMS", "sums")
        try repo.git("tag", "-a", "v1.0.0", "-m", "1.0.0")
        return repo
    }

    @Test func securesystemslibVerifiesTheEnvelopeAndTheStatementNamesFilesSourceAndBuilder() throws {
        let repo = try releasedRepository()
        let key = try opensslKey(in: repo.root)
        let environment = [
            "SHIPLANE_ATTESTATION_KEY": key.pem, "GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": "acme/rocket", "GITHUB_WORKFLOW_REF": "acme/rocket/.github/workflows/release.yml@refs/tags/v1.0.0",
            "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "2", "RUNNER_OS": "Linux", "GITHUB_TOKEN": "ghs_secretvalue0123456789",
        ]
        let test = TestLaneContext(workingDirectory: repo.path, environment: environment)
        try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz", "dist/SHA256SUMS"], to: "dist/rocket.intoto.jsonl",
                                    parameters: ["channel": "stable", "token": "ghs_secretvalue0123456789"])
        let envelope = repo.path + "/dist/rocket.intoto.jsonl"
        let text = try String(contentsOfFile: envelope, encoding: .utf8)
        #expect(!text.contains("PRIVATE KEY"))
        let keyID = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]).description
        let id = try #require(keyID.range(of: #"SHA256:[A-Za-z0-9+/]{43}"#, options: .regularExpression).map { String(keyID[$0]) })
        let verified = try verifyWithSecureSystemsLib(envelope, publicHex: key.publicHex, keyID: id)
        #expect(verified.verified, "\(verified.output)")

        let statement = try #require(try JSONSerialization.jsonObject(with: Data(verified.output.utf8)) as? [String: Any])
        #expect(statement["_type"] as? String == "https://in-toto.io/Statement/v1")
        #expect(statement["predicateType"] as? String == "https://slsa.dev/provenance/v1")
        let subjects = try #require(statement["subject"] as? [[String: Any]])
        #expect(subjects.map { $0["name"] as? String } == ["SHA256SUMS", "rocket-1.0.0.tar.gz"])
        #expect((subjects[1]["digest"] as? [String: String])?["sha256"] == SHA256.hex(of: Array("archive bytes".utf8)))
        let output = verified.output
        let head = try repo.git("rev-parse", "HEAD")
        #expect(output.contains(#""gitCommit":"\#(head)""#))
        #expect(output.contains("git+ssh://git@git.example.com/acme/rocket.git@refs/tags/v1.0.0"))
        #expect(output.contains(#""id":"https://github.com/acme/rocket/.github/workflows/release.yml@refs/tags/v1.0.0""#))
        #expect(output.contains("https://github.com/acme/rocket/actions/runs/4242/attempts/2"))
        #expect(output.contains(#""channel":"stable""#))
        #expect(!output.contains("ghs_secretvalue0123456789"), "a secret value given as a parameter is redacted")

        // The same inputs give the same bytes (Ed25519 is deterministic); a changed byte does not verify.
        let again = TestLaneContext(workingDirectory: repo.path, environment: environment)
        try again.context.provenance(for: ["dist/rocket-1.0.0.tar.gz", "dist/SHA256SUMS"], to: "dist/again.intoto.jsonl",
                                     parameters: ["channel": "stable", "token": "ghs_secretvalue0123456789"])
        #expect(try String(contentsOfFile: repo.path + "/dist/again.intoto.jsonl", encoding: .utf8) == text)
        var tampered = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let payload = try #require(Data(base64Encoded: tampered["payload"] as? String ?? ""))
        tampered["payload"] = Data(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "stable", with: "stabl3").utf8).base64EncodedString()
        try JSONSerialization.data(withJSONObject: tampered).write(to: URL(fileURLWithPath: repo.path + "/dist/tampered.jsonl"))
        #expect(try !verifyWithSecureSystemsLib(repo.path + "/dist/tampered.jsonl", publicHex: key.publicHex, keyID: id).verified)
    }

    @Test func theSignatureIsOverThePreAuthenticationEncodingAsOpenSSLChecksIt() throws {
        let repo = try releasedRepository()
        let key = try opensslKey(in: repo.root)
        let signer = try Ed25519DSSESigner(secret: key.pem)
        let payload = Data(#"{"_type":"https://in-toto.io/Statement/v1"}"#.utf8)
        let pae = DSSE.preAuthenticationEncoding(payloadType: DSSE.inTotoPayloadType, payload: payload)
        #expect(String(decoding: pae, as: UTF8.self) == #"DSSEv1 28 application/vnd.in-toto+json 43 {"_type":"https://in-toto.io/Statement/v1"}"#)
        try pae.write(to: URL(fileURLWithPath: repo.root + "/pae.bin"))
        try signer.sign(pae).write(to: URL(fileURLWithPath: repo.root + "/sig.bin"))
        #expect(try runTool(["openssl", "pkey", "-in", repo.root + "/key.pem", "-pubout", "-out", repo.root + "/pub.pem"]).status == 0)
        let verify = try runTool(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", repo.root + "/pub.pem", "-rawin",
                                  "-in", repo.root + "/pae.bin", "-sigfile", repo.root + "/sig.bin"])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func anOpenSSHKeyIsReadAndItsIdIsItsFingerprint() throws {
        let repo = try releasedRepository()
        #expect(try runTool(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "release", "-f", repo.root + "/id_ed25519"]).status == 0)
        let signer = try Ed25519DSSESigner(secret: try String(contentsOfFile: repo.root + "/id_ed25519", encoding: .utf8))
        let fingerprint = try runTool(["ssh-keygen", "-l", "-f", repo.root + "/id_ed25519.pub"]).output
        #expect(fingerprint.contains(signer.keyID), "\(fingerprint) vs \(signer.keyID)")
    }

    /// RSA and ECDSA keys made by ssh-keygen sign the envelope too (RSA PKCS#1 v1.5 with SHA-256;
    /// ECDSA as DER with the curve's hash), openssl verifies the signature over the
    /// pre-authentication encoding with the key ssh-keygen exports, and `shiplane verify` takes
    /// the `.pub` file or that PEM, and refuses another key's.
    @Test(arguments: [(["-t", "rsa", "-b", "3072"], "-sha256"), (["-t", "ecdsa", "-b", "256"], "-sha256"), (["-t", "ecdsa", "-b", "384"], "-sha384")])
    func rsaAndECDSAKeysSignAndOpenSSLAndVerifyCheckThem(keyType: [String], digest: String) throws {
        let repo = try TemporaryRepository()
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes")
        try repo.git("tag", "-a", "v1.0.0", "-m", "1.0.0")
        let key = try makeSSHKey(keyType, named: "attest", in: repo.root)
        let test = TestLaneContext(workingDirectory: repo.path, environment: ["SHIPLANE_ATTESTATION_KEY": try String(contentsOfFile: key, encoding: .utf8)])
        let sums = try test.context.checksums(["dist/rocket-1.0.0.tar.gz"], to: "dist/SHA256SUMS")
        try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz", sums], to: "dist/rocket.intoto.jsonl")
        let text = try String(contentsOfFile: repo.path + "/dist/rocket.intoto.jsonl", encoding: .utf8)
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let signature = try #require((envelope["signatures"] as? [[String: Any]])?.first)
        let fingerprint = try runTool(["ssh-keygen", "-l", "-f", key + ".pub"]).output
        #expect(fingerprint.contains(try #require(signature["keyid"] as? String)), "\(fingerprint) vs \(signature)")
        let payload = try #require((envelope["payload"] as? String).flatMap { Data(base64Encoded: $0) })
        let type = try #require(envelope["payloadType"] as? String)
        try DSSE.preAuthenticationEncoding(payloadType: type, payload: payload).write(to: URL(fileURLWithPath: repo.root + "/pae"))
        try #require((signature["sig"] as? String).flatMap { Data(base64Encoded: $0) }).write(to: URL(fileURLWithPath: repo.root + "/sig"))
        let exported = try runProgram("/bin/sh", ["-c", "ssh-keygen -e -m PKCS8 -f attest.pub > attest.pem"], in: repo.root, environment: ["PATH": "/usr/bin:/bin"])
        #expect(exported.status == 0, "\(exported.all)")
        let openssl = try runTool(["openssl", "dgst", digest, "-verify", repo.root + "/attest.pem", "-signature", repo.root + "/sig", repo.root + "/pae"])
        #expect(openssl.status == 0 && openssl.output.contains("Verified OK"), "\(openssl.output)")

        for trusted in [key + ".pub", repo.root + "/attest.pem"] {
            let verified = try repo.shiplane(["verify", "dist", "--attestation-key", trusted])
            #expect(verified.status == 0, "\(trusted): \(verified.all)")
            #expect(verified.stdout.contains("its DSSE envelope is signed by the attestation key given"), "\(verified.all)")
        }
        let other = try makeSSHKey(keyType, named: "other", in: repo.root)
        let refused = try repo.shiplane(["verify", "dist", "--attestation-key", other + ".pub"])
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("its DSSE signature does not verify with the attestation key given"), "\(refused.all)")
    }

    @Test func aMissingKeyIsAnErrorThatSaysWhatToSetAndNothingIsWritten() throws {
        let repo = try releasedRepository()
        let test = TestLaneContext(workingDirectory: repo.path)
        #expect {
            try test.context.provenance(for: ["dist/rocket-1.0.0.tar.gz"], to: "out/p.intoto.jsonl")
        } throws: { error in allText(of: error).contains("SHIPLANE_ATTESTATION_KEY is not set") }
        let bad = TestLaneContext(workingDirectory: repo.path, environment: ["SHIPLANE_ATTESTATION_KEY": "not-a-key-at-all"])
        #expect {
            try bad.context.provenance(for: ["dist/rocket-1.0.0.tar.gz"], to: "out/p.intoto.jsonl")
        } throws: { error in
            let text = allText(of: error)
            return text.contains("not an Ed25519 private key") && !text.contains("not-a-key-at-all")
        }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/out"))
    }
}
