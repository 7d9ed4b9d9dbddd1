import Foundation
internal import Crypto
internal import _CryptoExtras

/// An SSH public key: Ed25519, RSA or ECDSA (NIST P-256, P-384, P-521), as its wire blob.
struct SSHPublicKey: Equatable, Sendable {
    /// The key type (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`).
    let type: String
    /// The whole public key in the wire encoding (what `authorized_keys` holds in base64).
    let blob: [UInt8]

    /// Reads a key blob.
    /// - Throws: `SigningError` for a blob that is not a key.
    init(blob: [UInt8]) throws {
        var reader = SSHWireReader(blob)
        type = try reader.text()
        self.blob = blob
    }

    /// Reads `ssh-ed25519 AAAA… comment` (an `.pub` file's line, or `key::…` as git's
    /// `user.signingKey` takes it); nil for text that is not one.
    init?(line: String) {
        var text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("key::") { text.removeFirst(5) }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 2, let data = Data(base64Encoded: String(words[1])),
              let key = try? SSHPublicKey(blob: Array(data)), key.type == words[0]
        else { return nil }
        self = key
    }

    /// `ssh-ed25519 AAAA…`: the form `.pub` files and allowed-signers files hold.
    var line: String { type + " " + Data(blob).base64EncodedString() }

    /// `SHA256:…`, the fingerprint `ssh-keygen -l` shows (never key material).
    var fingerprint: String {
        "SHA256:" + Data(Crypto.SHA256.hash(data: blob)).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// True when `signature` (a signature blob: type, then the signature) signs `data` with this key.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        do {
            var keyReader = SSHWireReader(blob)
            _ = try keyReader.string()
            var signatureReader = SSHWireReader(signature)
            let algorithm = try signatureReader.text()
            let bytes = try signatureReader.string()
            switch type {
            case "ssh-ed25519":
                guard algorithm == "ssh-ed25519" else { return false }
                return try Curve25519.Signing.PublicKey(rawRepresentation: try keyReader.string()).isValidSignature(bytes, for: data)
            case "ssh-rsa":
                let e = try keyReader.string(), n = try keyReader.string()
                let key = try _RSA.Signing.PublicKey(n: Array(n.drop { $0 == 0 }), e: Array(e.drop { $0 == 0 }))
                let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: bytes)
                switch algorithm {
                case "rsa-sha2-512": return key.isValidSignature(rsaSignature, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
                case "rsa-sha2-256": return key.isValidSignature(rsaSignature, for: Crypto.SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
                default: return false
                }
            case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521":
                guard algorithm == type else { return false }
                _ = try keyReader.string()
                let point = try keyReader.string()
                var pair = SSHWireReader(bytes)
                let r = try pair.string(), s = try pair.string()
                switch type {
                case "ecdsa-sha2-nistp256":
                    let raw = unsignedFixed(r, length: 32) + unsignedFixed(s, length: 32)
                    return try P256.Signing.PublicKey(x963Representation: point)
                        .isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: Crypto.SHA256.hash(data: data))
                case "ecdsa-sha2-nistp384":
                    let raw = unsignedFixed(r, length: 48) + unsignedFixed(s, length: 48)
                    return try P384.Signing.PublicKey(x963Representation: point)
                        .isValidSignature(try P384.Signing.ECDSASignature(rawRepresentation: raw), for: SHA384.hash(data: data))
                default:
                    let raw = unsignedFixed(r, length: 66) + unsignedFixed(s, length: 66)
                    return try P521.Signing.PublicKey(x963Representation: point)
                        .isValidSignature(try P521.Signing.ECDSASignature(rawRepresentation: raw), for: SHA512.hash(data: data))
                }
            default:
                return false
            }
        } catch {
            return false
        }
    }
}

extension SSHPublicKey {
    /// True when `signature` is a DSSE signature of `data` by this key, in the forms
    /// `SSHPrivateKey.dsseSignature` makes.
    func isValidDSSESignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        do {
            var keyReader = SSHWireReader(blob)
            _ = try keyReader.string()
            switch type {
            case "ssh-ed25519":
                return try Curve25519.Signing.PublicKey(rawRepresentation: try keyReader.string()).isValidSignature(signature, for: data)
            case "ssh-rsa":
                let e = try keyReader.string(), n = try keyReader.string()
                let key = try _RSA.Signing.PublicKey(n: Array(n.drop { $0 == 0 }), e: Array(e.drop { $0 == 0 }))
                return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: Crypto.SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case "ecdsa-sha2-nistp256":
                _ = try keyReader.string()
                return try P256.Signing.PublicKey(x963Representation: try keyReader.string())
                    .isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: signature), for: Crypto.SHA256.hash(data: data))
            case "ecdsa-sha2-nistp384":
                _ = try keyReader.string()
                return try P384.Signing.PublicKey(x963Representation: try keyReader.string())
                    .isValidSignature(try P384.Signing.ECDSASignature(derRepresentation: signature), for: SHA384.hash(data: data))
            case "ecdsa-sha2-nistp521":
                _ = try keyReader.string()
                return try P521.Signing.PublicKey(x963Representation: try keyReader.string())
                    .isValidSignature(try P521.Signing.ECDSASignature(derRepresentation: signature), for: SHA512.hash(data: data))
            default:
                return false
            }
        } catch {
            return false
        }
    }
}

/// An SSH private key read from an OpenSSH key file (`-----BEGIN OPENSSH PRIVATE KEY-----`)
/// without a passphrase: Ed25519, RSA or ECDSA. It signs natively; the key never leaves memory.
package struct SSHPrivateKey: Sendable {
    private enum Material: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
    }

    private let material: Material
    /// The matching public key.
    let publicKey: SSHPublicKey

    /// True when `text` looks like an OpenSSH private key (so a variable or file is taken as one).
    static func looksLikeKey(_ text: String) -> Bool { text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") }

    /// Reads an OpenSSH private key file's text.
    /// - Throws: `SigningError` for a key protected by a passphrase (load it into ssh-agent), a
    ///   PEM key (convert it) or one of another type.
    init(openSSH text: String) throws {
        let begin = "-----BEGIN OPENSSH PRIVATE KEY-----", end = "-----END OPENSSH PRIVATE KEY-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
            throw SigningError(
                "the SSH key is not an OpenSSH private key",
                suggestion: text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                    ? "convert it with `ssh-keygen -p -f KEY` (which rewrites it in the OpenSSH format)"
                    : "give the text of a key made by ssh-keygen (-----BEGIN OPENSSH PRIVATE KEY-----)")
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(body)) else { throw SigningError("the SSH private key's base64 is damaged") }
        var reader = SSHWireReader(Array(data))
        guard try reader.raw(15) == Array("openssh-key-v1\0".utf8) else { throw SigningError("the SSH private key is not in the openssh-key-v1 format") }
        let cipher = try reader.text()
        _ = try reader.text()
        _ = try reader.string()
        guard cipher == "none" else {
            throw SigningError(
                "the SSH key is protected by a passphrase, which Shiplane does not ask for",
                suggestion: "load it into ssh-agent (`ssh-add KEY`) and let Shiplane sign through SSH_AUTH_SOCK, or keep a key without a passphrase in a secret")
        }
        guard try reader.uint32() == 1 else { throw SigningError("the SSH key file holds more than one key") }
        let publicBlob = try reader.string()
        var secret = SSHWireReader(try reader.string())
        guard try secret.uint32() == (try secret.uint32()) else { throw SigningError("the SSH private key is damaged (its check numbers differ)") }
        let type = try secret.text()
        switch type {
        case "ssh-ed25519":
            _ = try secret.string()
            let both = try secret.string()
            guard both.count == 64 else { throw SigningError("the Ed25519 private key has the wrong length") }
            material = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: both.prefix(32)))
        case "ssh-rsa":
            let n = try secret.string(), e = try secret.string(), d = try secret.string()
            _ = try secret.string()
            let p = try secret.string(), q = try secret.string()
            func plain(_ value: [UInt8]) -> [UInt8] { Array(value.drop { $0 == 0 }) }
            material = .rsa(try _RSA.Signing.PrivateKey(n: plain(n), e: plain(e), d: plain(d), p: plain(p), q: plain(q)))
        case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521":
            _ = try secret.string()
            _ = try secret.string()
            let scalar = try secret.string()
            switch type {
            case "ecdsa-sha2-nistp256": material = .p256(try P256.Signing.PrivateKey(rawRepresentation: unsignedFixed(scalar, length: 32)))
            case "ecdsa-sha2-nistp384": material = .p384(try P384.Signing.PrivateKey(rawRepresentation: unsignedFixed(scalar, length: 48)))
            default: material = .p521(try P521.Signing.PrivateKey(rawRepresentation: unsignedFixed(scalar, length: 66)))
            }
        default:
            throw SigningError("SSH keys of type \(type) are not supported", suggestion: "use an Ed25519, RSA or ECDSA key, or sign through ssh-agent")
        }
        publicKey = try SSHPublicKey(blob: publicBlob)
    }

    /// Signs `data` as SSH does for the key's type (`rsa-sha2-512` for RSA); returns the signature blob.
    func sign(_ data: [UInt8]) throws -> [UInt8] {
        var writer = SSHWireWriter()
        switch material {
        case .ed25519(let key):
            writer.string("ssh-ed25519")
            writer.string(Array(try key.signature(for: data)))
        case .rsa(let key):
            writer.string("rsa-sha2-512")
            writer.string(Array(try key.signature(for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation))
        case .p256(let key):
            Self.ecdsa(&writer, publicKey.type, Array(try key.signature(for: Crypto.SHA256.hash(data: data)).rawRepresentation))
        case .p384(let key):
            Self.ecdsa(&writer, publicKey.type, Array(try key.signature(for: SHA384.hash(data: data)).rawRepresentation))
        case .p521(let key):
            Self.ecdsa(&writer, publicKey.type, Array(try key.signature(for: SHA512.hash(data: data)).rawRepresentation))
        }
        return writer.bytes
    }

    /// Signs `data` for a DSSE envelope, in the form DSSE verifiers (securesystemslib, openssl)
    /// read for the key's type: Ed25519 (RFC 8032, 64 bytes), RSA PKCS#1 v1.5 with SHA-256
    /// (`rsa-pkcs1v15-sha256`), ECDSA as DER with the curve's hash (SHA-256 for P-256, SHA-384 for
    /// P-384, SHA-512 for P-521).
    func dsseSignature(_ data: [UInt8]) throws -> [UInt8] {
        switch material {
        case .ed25519(let key): return Array(try key.signature(for: data))
        case .rsa(let key): return Array(try key.signature(for: Crypto.SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        case .p256(let key): return Array(try key.signature(for: Crypto.SHA256.hash(data: data)).derRepresentation)
        case .p384(let key): return Array(try key.signature(for: SHA384.hash(data: data)).derRepresentation)
        case .p521(let key): return Array(try key.signature(for: SHA512.hash(data: data)).derRepresentation)
        }
    }

    private static func ecdsa(_ writer: inout SSHWireWriter, _ type: String, _ raw: [UInt8]) {
        var pair = SSHWireWriter()
        pair.mpint(Array(raw.prefix(raw.count / 2)))
        pair.mpint(Array(raw.suffix(raw.count / 2)))
        writer.string(type)
        writer.string(pair.bytes)
    }
}
