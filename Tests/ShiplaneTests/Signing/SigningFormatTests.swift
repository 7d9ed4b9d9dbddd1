import Foundation
import Testing
import Crypto
@testable import Shiplane

@Suite("Signing formats: BLAKE2b, sshsig, allowed signers, minisign", .offThePool)
struct SigningFormatTests {
    @Test func blake2bMatchesRFC7693AndPythonsHashlib() {
        // RFC 7693, Appendix A ("abc", 64 bytes); the others from Python's hashlib.blake2b.
        #expect(hex(BLAKE2b.hash(Array("abc".utf8), length: 64)) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(hex(BLAKE2b.hash([], length: 32)) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
        let long = (0..<3).flatMap { _ in (0...255).map(UInt8.init) }
        #expect(hex(BLAKE2b.hash(long, length: 64)) == Self.longDigest)
    }

    static let longDigest = "323e97a7a859ee63c9013debb0ca995811e73117a2f574723416e596ebc184e37a59b66d2f597df4a7c1b0d1d41a1a7f28774f46a6864d56c57b9d6c5f7302fb"

    @Test func sshSignatureChecksItsMessageItsNamespaceAndItsKey() throws {
        let key = try Self.ed25519Key()
        let signer = SSHSigner(key: key)
        let armored = try SSHSignature.sign(Array("release\n".utf8), namespace: "file", with: signer)
        #expect(armored.hasPrefix("-----BEGIN SSH SIGNATURE-----\n") && armored.hasSuffix("-----END SSH SIGNATURE-----\n"))
        let parsed = try SSHSignature.parse(armored)
        #expect(parsed.publicKey == key.publicKey && parsed.namespace == "file" && parsed.hashAlgorithm == "sha512")
        #expect(SSHSignature.isValid(parsed, for: Array("release\n".utf8), namespace: "file"))
        #expect(!SSHSignature.isValid(parsed, for: Array("releasf\n".utf8), namespace: "file"))
        #expect(!SSHSignature.isValid(parsed, for: Array("release\n".utf8), namespace: "git"))
        // Ed25519 is deterministic.
        #expect(try SSHSignature.sign(Array("release\n".utf8), namespace: "file", with: signer) == armored)
    }

    @Test func allowedSignersReadPrincipalsAndNamespaces() throws {
        let key = try Self.ed25519Key().publicKey
        let file = """
        # release keys
        a@example.com,b@example.com namespaces="file,git" \(key.line) comment
        c@example.com \(key.line)
        """
        let signers = try AllowedSigners(text: file, source: "test")
        #expect(signers.principals(for: key, namespace: "file") == ["a@example.com", "b@example.com", "c@example.com"])
        #expect(signers.principals(for: key, namespace: "other") == ["c@example.com"])
        #expect(throws: SigningError.self) { try AllowedSigners(text: "nobody\n", source: "test") }
    }

    @Test func minisignRoundTripAndTamper() throws {
        let secret = try Minisign.secretKey(from: Self.minisignSecretKey)
        let publicKey = try Minisign.publicKey(from: secret.publicKeyFile)
        let data = Array("payload".utf8)
        let signature = try Minisign.sign(data, trustedComment: "timestamp:1\tfile:payload\thashed", with: secret)
        #expect(try Minisign.verify(data, signature: signature, key: publicKey) == "timestamp:1\tfile:payload\thashed")
        #expect(throws: SigningError.self) { try Minisign.verify(Array("payloae".utf8), signature: signature, key: publicKey) }
        #expect(throws: SigningError.self) { try Minisign.secretKey(from: "untrusted comment: x\nAAAA\n") }
    }

    @Test func aPassphraseProtectedSSHKeyIsRefusedWithWhatToDo() {
        let text = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + Data(Array("openssh-key-v1\0".utf8) + Self.wire("aes256-ctr") + Self.wire("bcrypt") + Self.wire("")).base64EncodedString() + "\n-----END OPENSSH PRIVATE KEY-----\n"
        #expect {
            try SSHPrivateKey(openSSH: text)
        } throws: { error in
            (error as? SigningError)?.suggestion?.contains("ssh-add") == true
        }
    }

    // MARK: - Fixtures

    static func wire(_ text: String) -> [UInt8] {
        var writer = SSHWireWriter()
        writer.string(text)
        return writer.bytes
    }

    /// An Ed25519 key in the OpenSSH format, made here from a fixed seed.
    static func ed25519Key() throws -> SSHPrivateKey {
        let seed = [UInt8](repeating: 7, count: 32)
        let publicKey = Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation)
        var keyBlob = SSHWireWriter()
        keyBlob.string("ssh-ed25519")
        keyBlob.string(publicKey)
        var secret = SSHWireWriter()
        secret.uint32(42)
        secret.uint32(42)
        secret.string("ssh-ed25519")
        secret.string(publicKey)
        secret.string(seed + publicKey)
        secret.string("test")
        var file = SSHWireWriter()
        file.raw(Array("openssh-key-v1\0".utf8))
        file.string("none")
        file.string("none")
        file.string("")
        file.uint32(1)
        file.string(keyBlob.bytes)
        file.string(secret.bytes)
        let text = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + Data(file.bytes).base64EncodedString() + "\n-----END OPENSSH PRIVATE KEY-----\n"
        return try SSHPrivateKey(openSSH: text)
    }

    /// A key made for this test by `minisign -G -W` (no password; its checksum left as zeros, as minisign 0.11 leaves it).
    static let minisignSecretKey = """
    untrusted comment: minisign encrypted secret key
    RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA5mcwoX78gpQgFk/0a4j7nWV5HQJ23ob4K3ZHxdP648RITgEXOdzmsxT2u0efKtJKGWW9UbVpShpkuEpoj13mtmmWWHlHkaClAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
    """

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
