import Foundation
internal import Crypto

/// Signs bytes with an SSH key: natively with a private key, or through ssh-agent.
struct SSHSigner: Sendable {
    private enum Source: Sendable {
        case key(SSHPrivateKey)
        case agent(socket: String)
    }

    private let source: Source
    /// The public key that checks this signer's signatures.
    let publicKey: SSHPublicKey

    /// Signs with a private key held in memory.
    init(key: SSHPrivateKey) {
        source = .key(key)
        publicKey = key.publicKey
    }

    /// Signs through the ssh-agent listening on `socket` with its identity `publicKey`.
    init(agent socket: String, publicKey: SSHPublicKey) {
        source = .agent(socket: socket)
        self.publicKey = publicKey
    }

    /// Where the signature comes from, for notes and logs (never key material).
    var origin: String {
        switch source {
        case .key: "\(publicKey.type) key \(publicKey.fingerprint)"
        case .agent: "\(publicKey.type) key \(publicKey.fingerprint) in ssh-agent"
        }
    }

    /// The signature blob over `data`.
    /// - Throws: `SigningError` when the key or the agent cannot sign.
    func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch source {
        case .key(let key): try key.sign(data)
        case .agent(let socket): try SSHAgent(socket: socket).sign(data, with: publicKey)
        }
    }

    /// The DSSE signature over `data`, as `SSHPrivateKey.dsseSignature` makes it: from a key in
    /// memory, or from ssh-agent (asked for `rsa-sha2-256` with an RSA key; an ECDSA answer's
    /// `r` and `s` rewritten as DER).
    /// - Throws: `SigningError` when the key or the agent cannot sign.
    func dsseSignature(_ data: [UInt8]) throws -> [UInt8] {
        switch source {
        case .key(let key): return try key.dsseSignature(data)
        case .agent(let socket):
            var reader = SSHWireReader(try SSHAgent(socket: socket).sign(data, with: publicKey, rsaSHA256: true))
            let algorithm = try reader.text()
            let bytes = try reader.string()
            switch algorithm {
            case "ssh-ed25519", "rsa-sha2-256": return bytes
            case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521":
                var pair = SSHWireReader(bytes)
                return derECDSASignature(r: try pair.string(), s: try pair.string())
            default:
                throw SigningError("ssh-agent signed with \(algorithm), which a DSSE envelope does not carry", suggestion: "use an Ed25519, RSA or ECDSA key")
            }
        }
    }
}

/// An ECDSA signature `(r, s)` (SSH `mpint`s) as DER: `SEQUENCE { INTEGER r, INTEGER s }`.
func derECDSASignature(r: [UInt8], s: [UInt8]) -> [UInt8] {
    func integer(_ value: [UInt8]) -> [UInt8] {
        var magnitude = Array(value.drop { $0 == 0 })
        if magnitude.isEmpty { magnitude = [0] }
        if magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
        return [0x02] + length(magnitude.count) + magnitude
    }
    func length(_ count: Int) -> [UInt8] {
        count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
    }
    let body = integer(r) + integer(s)
    return [0x30] + length(body.count) + body
}

/// The `sshsig` format (OpenSSH's PROTOCOL.sshsig): what `ssh-keygen -Y sign` writes and git
/// stores in signed commits and tags when `gpg.format` is `ssh`.
enum SSHSignature {
    private static let magic = Array("SSHSIG".utf8)
    private static let begin = "-----BEGIN SSH SIGNATURE-----"
    private static let end = "-----END SSH SIGNATURE-----"

    /// A parsed signature.
    struct Parsed {
        var publicKey: SSHPublicKey
        var namespace: String
        var hashAlgorithm: String
        var signature: [UInt8]
    }

    /// Signs `message` in `namespace` (`git` for commits and tags, `file` for files) with SHA-512,
    /// as ssh-keygen does; returns the armored signature, ending in a newline.
    /// - Throws: `SigningError` when the signer cannot sign.
    static func sign(_ message: [UInt8], namespace: String, with signer: SSHSigner) throws -> String {
        let hash = Array(SHA512.hash(data: message))
        let signature = try signer.sign(signedData(namespace: namespace, hashAlgorithm: "sha512", hash: hash))
        guard signer.publicKey.isValidSignature(signature, for: signedData(namespace: namespace, hashAlgorithm: "sha512", hash: hash)) else {
            throw SigningError("the signature \(signer.origin) made does not check against its own public key")
        }
        var blob = SSHWireWriter()
        blob.raw(magic)
        blob.uint32(1)
        blob.string(signer.publicKey.blob)
        blob.string(namespace)
        blob.string("")
        blob.string("sha512")
        blob.string(signature)
        let base64 = Data(blob.bytes).base64EncodedString()
        var lines: [String] = [begin]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(70)))
            rest = rest.dropFirst(70)
        }
        lines.append(end)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads an armored signature.
    /// - Throws: `SigningError` for text that is not an SSH signature.
    static func parse(_ armored: String) throws -> Parsed {
        guard let start = armored.range(of: begin), let stop = armored.range(of: end, range: start.upperBound..<armored.endIndex),
              let data = Data(base64Encoded: String(armored[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }))
        else { throw SigningError("it is not an SSH signature (-----BEGIN SSH SIGNATURE-----)") }
        var reader = SSHWireReader(Array(data))
        guard try reader.raw(6) == magic, try reader.uint32() == 1 else { throw SigningError("it is not an SSH signature of version 1") }
        let key = try SSHPublicKey(blob: try reader.string())
        let namespace = try reader.text()
        _ = try reader.string()
        let hashAlgorithm = try reader.text()
        return Parsed(publicKey: key, namespace: namespace, hashAlgorithm: hashAlgorithm, signature: try reader.string())
    }

    /// True when `parsed` signs `message` with its own key in `namespace`.
    static func isValid(_ parsed: Parsed, for message: [UInt8], namespace: String) -> Bool {
        guard parsed.namespace == namespace else { return false }
        let hash: [UInt8]
        switch parsed.hashAlgorithm {
        case "sha512": hash = Array(SHA512.hash(data: message))
        case "sha256": hash = Array(Crypto.SHA256.hash(data: message))
        default: return false
        }
        return parsed.publicKey.isValidSignature(
            parsed.signature, for: signedData(namespace: namespace, hashAlgorithm: parsed.hashAlgorithm, hash: hash))
    }

    /// What the key signs: the magic, the namespace, a reserved string, the hash's name and the hash.
    private static func signedData(namespace: String, hashAlgorithm: String, hash: [UInt8]) -> [UInt8] {
        var data = SSHWireWriter()
        data.raw(magic)
        data.string(namespace)
        data.string("")
        data.string(hashAlgorithm)
        data.string(hash)
        return data.bytes
    }
}

/// An `allowed_signers` file (ssh-keygen(1), "ALLOWED SIGNERS"): who may sign, with which key,
/// in which namespaces.
struct AllowedSigners {
    struct Entry {
        var principals: [String]
        var namespaces: [String]?
        var key: SSHPublicKey
    }

    var entries: [Entry]

    /// Reads the file's text; lines it cannot read are named in the error.
    /// - Throws: `SigningError` naming the first line that holds no key.
    init(text: String, source: String) throws {
        entries = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let words = Self.words(line)
            guard let keyIndex = words.firstIndex(where: { $0.hasPrefix("ssh-") || $0.hasPrefix("ecdsa-") }), keyIndex >= 1,
                  keyIndex + 1 < words.count, let key = SSHPublicKey(line: words[keyIndex] + " " + words[keyIndex + 1])
            else { throw SigningError("line \(number + 1) of \(source) holds no principal and public key", suggestion: "write `you@example.com ssh-ed25519 AAAA…`") }
            var namespaces: [String]?
            if words[1..<keyIndex].contains(where: { $0.lowercased().hasPrefix("namespaces=") }) {
                let value = words[1..<keyIndex].first { $0.lowercased().hasPrefix("namespaces=") } ?? ""
                namespaces = value.dropFirst("namespaces=".count).replacingOccurrences(of: "\"", with: "").split(separator: ",").map(String.init)
            }
            entries.append(Entry(principals: words[0].replacingOccurrences(of: "\"", with: "").split(separator: ",").map(String.init), namespaces: namespaces, key: key))
        }
    }

    /// The principals allowed to sign with `key` in `namespace`.
    func principals(for key: SSHPublicKey, namespace: String) -> [String] {
        entries.filter { $0.key == key && ($0.namespaces?.contains(namespace) ?? true) }.flatMap(\.principals)
    }

    /// Words split at spaces, keeping quoted parts (`namespaces="git,file"`) whole.
    private static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" { quoted.toggle() }
            if (character == " " || character == "\t") && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
