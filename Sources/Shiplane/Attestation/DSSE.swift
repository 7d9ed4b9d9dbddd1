import Foundation
internal import Crypto

/// Dead Simple Signing Envelope (DSSE v1, https://github.com/secure-systems-lab/dsse): the
/// pre-authentication encoding that is signed, and the JSON envelope that carries the payload
/// and its signatures.
package enum DSSE {
    /// The payload type of an in-toto statement.
    package static let inTotoPayloadType = "application/vnd.in-toto+json"

    /// `PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in ASCII decimal bytes.
    package static func preAuthenticationEncoding(payloadType: String, payload: Data) -> Data {
        var bytes = Data("DSSEv1 \(payloadType.utf8.count) \(payloadType) \(payload.count) ".utf8)
        bytes.append(payload)
        return bytes
    }

    /// The envelope JSON for `payload` signed by `signer` (sorted members, one line, final newline).
    package static func envelope(payload: Data, payloadType: String = inTotoPayloadType, signer: DSSESigner) throws -> Data {
        let signature = try signer.sign(preAuthenticationEncoding(payloadType: payloadType, payload: payload))
        let object: [String: Any] = [
            "payload": payload.base64EncodedString(),
            "payloadType": payloadType,
            "signatures": [["keyid": signer.keyID, "sig": signature.base64EncodedString()]],
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
    }
}

/// A key that signs DSSE envelopes: Ed25519 (a PKCS#8 PEM, an OpenSSH key or the base64 seed:
/// deterministic), or an unencrypted OpenSSH RSA or ECDSA key (RSA PKCS#1 v1.5 with SHA-256,
/// deterministic; ECDSA as DER, with a random nonce, so each signature differs and verifies).
/// Its id in envelopes is the key's OpenSSH fingerprint (`SHA256:…`).
package enum DSSESigner: Sendable {
    case ed25519(Ed25519DSSESigner)
    case ssh(SSHPrivateKey)
    /// A signer `lane.sign` makes: an SSH key or ssh-agent, minisign, or gpg.
    case artifactSigner(ArtifactSigner)

    /// The signer for `lane.provenance`: with no format, the key's text in `keyVariable`;
    /// with one, the signer `lane.sign` makes for it (`keyVariable` when it is set, else the
    /// format's own variable; ssh-agent for `ssh` without a private key).
    /// - Throws: `ShiplaneError`/`SigningError` saying what is missing, never quoting a secret.
    static func resolve(format: String?, keyVariable: String, lane: LaneContext) throws -> DSSESigner {
        guard let format else {
            guard let keyText = lane.environment[keyVariable], !keyText.isEmpty else {
                throw ShiplaneError("no signing key for the provenance: \(keyVariable) is not set",
                                    info: [("variable", keyVariable)],
                                    suggestion: "set \(keyVariable) to an Ed25519 private key (openssl genpkey -algorithm ed25519), or an OpenSSH Ed25519, RSA or ECDSA key without a passphrase, as a CI secret; or sign through ssh-agent, minisign or gpg with format:")
            }
            lane.registerSecret(keyText)
            return try DSSESigner(secret: keyText)
        }
        let given = lane.environment[keyVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let given { lane.registerSecret(given) }
        return .artifactSigner(try ArtifactSigner.resolve(format: format, keyVariable: given == nil ? nil : keyVariable, environment: lane.environment))
    }

    /// Removes what signing needed for the run (a keyring folder gpg imported a key into).
    package func finish() {
        if case .artifactSigner(let signer) = self { signer.finish() }
    }

    /// Reads the key from a secret's text.
    /// - Throws: `ShiplaneError`/`SigningError` saying which forms are read, never quoting the secret.
    package init(secret text: String) throws {
        if SSHPrivateKey.looksLikeKey(text), let key = try? SSHPrivateKey(openSSH: text), key.publicKey.type != "ssh-ed25519" {
            self = .ssh(key)
        } else if SSHPrivateKey.looksLikeKey(text), (try? Ed25519DSSESigner(secret: text)) == nil {
            // An OpenSSH key of a type or form not read: its own error says why (a passphrase, …).
            self = .ssh(try SSHPrivateKey(openSSH: text))
        } else {
            self = .ed25519(try Ed25519DSSESigner(secret: text))
        }
    }

    /// The key's OpenSSH fingerprint.
    package var keyID: String {
        switch self {
        case .ed25519(let signer): return signer.keyID
        case .ssh(let key): return key.publicKey.fingerprint
        case .artifactSigner(let signer): return signer.dsseKeyID
        }
    }

    /// The key's type as OpenSSH names it (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`).
    package var keyType: String {
        switch self {
        case .ed25519: return "ssh-ed25519"
        case .ssh(let key): return key.publicKey.type
        case .artifactSigner(let signer): return signer.dsseKeyType
        }
    }

    /// Signs `message` (the pre-authentication encoding).
    package func sign(_ message: Data) throws -> Data {
        switch self {
        case .ed25519(let signer): return try signer.sign(message)
        case .ssh(let key): return Data(try key.dsseSignature(Array(message)))
        case .artifactSigner(let signer): return Data(try signer.dsseSignature(Array(message)))
        }
    }
}

/// An Ed25519 key that signs DSSE envelopes (RFC 8032 signatures: the same key and bytes give
/// the same signature on Linux, where swift-crypto uses BoringSSL; Apple's CryptoKit adds
/// randomness, so on macOS each signature differs and still verifies).
///
/// Read from a secret in any of three forms: a PKCS#8 PEM (`openssl genpkey -algorithm ed25519`),
/// an unencrypted OpenSSH key (`ssh-keygen -t ed25519 -N ''`), or the 32-byte seed in base64.
package struct Ed25519DSSESigner: Sendable {
    private let key: Curve25519.Signing.PrivateKey
    /// The key's id in envelopes: its OpenSSH fingerprint (`SHA256:…`, as `ssh-keygen -l` shows it).
    package let keyID: String

    /// The raw 32-byte public key.
    package var publicKey: Data { key.publicKey.rawRepresentation }

    /// - Throws: `ShiplaneError` saying which forms are read, never quoting the secret.
    package init(secret text: String) throws {
        let seed = try Self.seed(from: text.trimmingCharacters(in: .whitespacesAndNewlines))
        key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        var blob = Self.sshString(Data("ssh-ed25519".utf8))
        blob.append(Self.sshString(key.publicKey.rawRepresentation))
        keyID = "SHA256:" + Data(Crypto.SHA256.hash(data: blob)).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// Signs `message`.
    package func sign(_ message: Data) throws -> Data { try key.signature(for: message) }

    private static func sshString(_ data: Data) -> Data {
        var length = UInt32(data.count).bigEndian
        return Data(bytes: &length, count: 4) + data
    }

    private static let unreadable = ShiplaneError(
        "the signing key is not an Ed25519 private key Shiplane reads",
        suggestion: "give a PKCS#8 PEM (openssl genpkey -algorithm ed25519), an unencrypted OpenSSH key (ssh-keygen -t ed25519 -N ''), or the 32-byte seed in base64"
    )

    private static func seed(from text: String) throws -> Data {
        if text.hasPrefix("-----BEGIN PRIVATE KEY-----") {
            guard let der = PEM.first("PRIVATE KEY", in: text) else { throw unreadable }
            // PKCS#8 for Ed25519 (RFC 8410): a fixed 16-byte prefix, then the 32-byte seed.
            let prefix = Data([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20])
            guard der.count == 48, der.prefix(16) == prefix else { throw unreadable }
            return der.suffix(32)
        }
        if text.hasPrefix("-----BEGIN OPENSSH PRIVATE KEY-----") {
            guard let der = PEM.first("OPENSSH PRIVATE KEY", in: text) else { throw unreadable }
            return try openSSHSeed(der)
        }
        guard let raw = Data(base64Encoded: text), raw.count == 32 else { throw unreadable }
        return raw
    }

    /// The seed inside an unencrypted `openssh-key-v1` file with one Ed25519 key.
    private static func openSSHSeed(_ data: Data) throws -> Data {
        var reader = Array(data)
        let magic = Array("openssh-key-v1\0".utf8)
        guard reader.starts(with: magic) else { throw unreadable }
        reader.removeFirst(magic.count)
        func string() throws -> [UInt8] {
            guard reader.count >= 4 else { throw unreadable }
            let length = reader.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard reader.count >= 4 + length else { throw unreadable }
            let value = Array(reader[4..<4 + length])
            reader.removeFirst(4 + length)
            return value
        }
        let cipher = try string(), _ = try string(), _ = try string()
        guard cipher == Array("none".utf8) else {
            throw ShiplaneError("the OpenSSH signing key is encrypted with a passphrase", suggestion: "give an unencrypted copy as the secret (ssh-keygen -p -N '' -f a copy of the key)")
        }
        guard reader.count >= 4 else { throw unreadable }
        reader.removeFirst(4)  // the number of keys
        _ = try string()  // the public key
        reader = try string()  // the private section
        guard reader.count >= 8 else { throw unreadable }
        reader.removeFirst(8)  // two check numbers
        guard try string() == Array("ssh-ed25519".utf8) else { throw unreadable }
        _ = try string()
        let secret = try string()  // seed (32) then public key (32)
        guard secret.count == 64 else { throw unreadable }
        return Data(secret.prefix(32))
    }
}
