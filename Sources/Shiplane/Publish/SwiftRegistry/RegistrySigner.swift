internal import Crypto
internal import _CryptoExtras
import Foundation

/// Signs for a Swift package registry in SE-0391's `cms-1.0.0` format, as SwiftPM's
/// `swift package-registry publish --private-key-path --cert-chain-paths` does: a detached CMS
/// `SignedData` (RFC 5652) with no signed attributes, one signer named by issuer and serial
/// number, SHA-256 with ECDSA P-256 (the algorithm SE-0391 names) or RSA (PKCS #1 v1.5, 2048
/// bits or more: SwiftPM's signing code has an RSA mode, and its verifier, swift-certificates'
/// CMS, checks `sha256WithRSAEncryption` by the certificate's key), carrying the certificate chain
/// (intermediates, then the signing certificate). Written natively with the little DER Shiplane has (no new dependency).
struct RegistrySigner: Sendable {
    static let format = "cms-1.0.0"

    /// A signing key of a type `cms-1.0.0` allows.
    enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)

        /// The SubjectPublicKeyInfo DER of its public key, as a certificate holds it.
        var publicKeyInfo: [UInt8] {
            switch self {
            case .p256(let key): Array(key.publicKey.derRepresentation)
            case .rsa(let key): Array(key.publicKey.derRepresentation)
            }
        }
    }

    let key: Key
    /// DER certificates, the signing certificate first.
    let chain: [[UInt8]]

    /// The key and chain of two environment variables' PEM texts.
    /// - Throws: `ValidationFailure` naming every problem: a key of another type (or an RSA key
    ///   under 2048 bits), no certificate, a signing certificate of another key, without the
    ///   code-signing extended key usage, or expired.
    init(keyPEM: String, chainPEM: String, keyVariable: String, chainVariable: String, now: Date = Date()) throws {
        var problems: [String] = []
        var key: Key?
        switch Self.readKey(keyPEM) {
        case .success(let read): key = read
        case .failure(let what):
            problems.append("\(keyVariable) holds \(what.text): cms-1.0.0 signs with an ECDSA P-256 (prime256v1) or an RSA key of 2048 bits or more, in PEM")
        }
        let chain = PEM.blocks(chainPEM).filter { $0.label == "CERTIFICATE" }.map { Array($0.der) }
        if chain.isEmpty { problems.append("\(chainVariable) holds no PEM certificate (the signing certificate first, then its intermediates)") }
        if let leaf = chain.first {
            if let fields = Self.tbsFields(leaf) {
                if let key, key.publicKeyInfo != Array(leaf[fields[5].start..<fields[5].end]) {
                    problems.append("the first certificate in \(chainVariable) is not the certificate of the key in \(keyVariable)")
                }
                let validity = DER.children(leaf, fields[3])
                if validity.count == 2, let notAfter = DER.time(leaf, validity[1]), notAfter < now {
                    problems.append("the signing certificate expired on \(ISO8601DateFormatter().string(from: notAfter))")
                }
            } else {
                problems.append("the first certificate in \(chainVariable) is not a DER X.509 certificate")
            }
            // id-kp-codeSigning (1.3.6.1.5.5.7.3.3): SwiftPM refuses a signature without it.
            if !Self.extendedKeyUsages(leaf).contains([0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03]) {
                problems.append("the signing certificate has no code-signing extended key usage (1.3.6.1.5.5.7.3.3), which SwiftPM requires")
            }
        }
        guard problems.isEmpty, let key else {
            throw ValidationFailure(problems: problems, suggestion: "give a P-256 or RSA (2048+) key and its code-signing certificate chain in PEM; nothing was sent")
        }
        self.key = key
        self.chain = chain
    }

    /// A key's text, what it is when it is not one `cms-1.0.0` signs with.
    struct KeyProblem: Error { var text: String }

    /// The first private key of `pem` (PKCS #8, SEC 1 or PKCS #1), or what it is instead.
    static func readKey(_ pem: String) -> Result<Key, KeyProblem> {
        let blocks = PEM.blocks(pem)
        guard let block = blocks.first(where: { $0.label.hasSuffix("PRIVATE KEY") }) else {
            return .failure(KeyProblem(text: blocks.isEmpty ? "no PEM private key" : "no PEM private key (a \(blocks[0].label) block)"))
        }
        let der = Array(block.der)
        // PKCS #8's encrypted form, or a traditional key's encryption headers (`openssl ec -aes256`).
        if block.label == "ENCRYPTED PRIVATE KEY" || pem.contains("Proc-Type: 4,ENCRYPTED") {
            return .failure(KeyProblem(text: "an encrypted private key (give it unencrypted, as a secret)"))
        }
        switch block.label {
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY": break
        default: return .failure(KeyProblem(text: "a PEM \(block.label) block, not a key it reads"))
        }
        if let key = try? P256.Signing.PrivateKey(derRepresentation: der) { return .success(.p256(key)) }  // PKCS#8 or SEC1
        if let key = try? _RSA.Signing.PrivateKey(derRepresentation: der) { return .success(.rsa(key)) }  // PKCS#8 or PKCS#1
        if let small = try? _RSA.Signing.PrivateKey(unsafeDERRepresentation: der) {
            return .failure(KeyProblem(text: "an RSA key of \(small.keySizeInBits) bits"))
        }
        return .failure(KeyProblem(text: keyKind(der, label: block.label)))
    }

    /// What a private key that neither P-256 nor RSA reads is, by the OIDs of its algorithm
    /// identifier (PKCS #8: algorithm and curve; SEC 1: the curve in its parameters).
    static func keyKind(_ der: [UInt8], label: String) -> String {
        var oids: [[UInt8]] = []
        if let outer = DER.read(der, at: 0), outer.tag == 0x30 {
            let fields = DER.children(der, outer)
            let identifier = label == "PRIVATE KEY" ? fields.dropFirst().first.flatMap { $0.tag == 0x30 ? $0 : nil }
                : fields.first { $0.tag == 0xA0 }
            if let identifier {
                oids = DER.children(der, identifier).filter { $0.tag == 0x06 }.map { Array(der[$0.contentStart..<$0.end]) }
            }
        }
        let names: [[UInt8]: String] = [
            [0x2B, 0x81, 0x04, 0x00, 0x22]: "an EC key on P-384 (secp384r1)", [0x2B, 0x81, 0x04, 0x00, 0x23]: "an EC key on P-521 (secp521r1)",
            [0x2B, 0x81, 0x04, 0x00, 0x0A]: "an EC key on secp256k1",
            [0x2B, 0x65, 0x70]: "an Ed25519 key", [0x2B, 0x65, 0x71]: "an Ed448 key",
            [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]: "an RSA-PSS key", [0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x01]: "a DSA key",
        ]
        // id-ecPublicKey names its curve next; any other algorithm is named by its own OID.
        let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        if let name = oids.lazy.filter({ $0 != ecPublicKey }).compactMap({ names[$0] }).first { return name }
        if oids.contains(ecPublicKey) || label == "EC PRIVATE KEY" { return "an EC key on a curve other than P-256" }
        return "a \(label) that cannot be read"
    }

    /// The detached `cms-1.0.0` signature of `content`.
    func sign(_ content: Data) throws -> Data {
        try sign(digest: Crypto.SHA256.hash(data: content))
    }

    /// The detached `cms-1.0.0` signature of the file at `path`, hashed as it is read (an archive
    /// is never whole in memory).
    /// - Throws: when the file cannot be read.
    func sign(fileAt path: String) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ShiplaneError("cannot read \(path) to sign it") }
        defer { try? handle.close() }
        var hasher = Crypto.SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return try sign(digest: hasher.finalize())
    }

    /// The detached `cms-1.0.0` signature of content whose SHA-256 is `digest`.
    private func sign(digest: Crypto.SHA256.Digest) throws -> Data {
        let signature: [UInt8], signatureAlgorithm: [UInt8]
        switch key {
        case .p256(let key):
            signature = Array(try key.signature(for: digest).derRepresentation)
            signatureAlgorithm = DER.sequence([[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02]])  // ecdsa-with-SHA256
        case .rsa(let key):
            signature = Array(try key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation)
            // sha256WithRSAEncryption, its parameters NULL (RFC 4055)
            signatureAlgorithm = DER.sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B], [0x05, 0x00]])
        }
        let leaf = chain[0]
        guard let fields = Self.tbsFields(leaf) else { throw ShiplaneError("the signing certificate cannot be read") }
        let serial = Array(leaf[fields[0].start..<fields[0].end]), issuer = Array(leaf[fields[2].start..<fields[2].end])
        let sha256: [UInt8] = DER.sequence([[0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]])
        let version1: [UInt8] = [0x02, 0x01, 0x01]
        let signerInfo = DER.sequence([version1, DER.sequence([issuer, serial]), sha256, signatureAlgorithm, DER.element(0x04, signature)])
        // As swift-certificates writes them: the intermediates, then the signing certificate.
        let certificates = DER.element(0xA0, (chain.dropFirst() + [leaf]).flatMap { $0 })
        let signedData = DER.sequence([
            version1, DER.set([sha256]),
            DER.sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]]),  // id-data, detached
            certificates, DER.set([signerInfo]),
        ])
        return Data(DER.sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02], DER.element(0xA0, signedData)]))
    }

    /// A manifest signed as SwiftPM signs it: its bytes, then `\n// signature: cms-1.0.0;BASE64`.
    func signManifest(_ manifest: Data) throws -> Data {
        manifest + Data("\n// signature: \(Self.format);\(try sign(manifest).base64EncodedString())".utf8)
    }

    /// The manifest without a signature line, and the line's base64 signature, when it has one
    /// (SwiftPM's ManifestSignatureParser: the last line `// signature: FORMAT;BASE64`).
    static func splitSignedManifest(_ manifest: Data) -> (content: Data, signatureLine: Data)? {
        guard let newline = manifest.lastIndex(of: 0x0A) else { return nil }
        let line = String(decoding: manifest[(newline + 1)...], as: UTF8.self)
        guard line.hasPrefix("// signature: \(format);") else { return nil }
        return (Data(manifest[..<newline]), Data(manifest[newline...]))
    }

    /// The fields of the certificate's TBSCertificate after its version: serial, signature
    /// algorithm, issuer, validity, subject, subjectPublicKeyInfo, ….
    static func tbsFields(_ certificate: [UInt8]) -> [DER.Element]? {
        guard let outer = DER.read(certificate, at: 0), outer.tag == 0x30,
              let tbs = DER.children(certificate, outer).first, tbs.tag == 0x30 else { return nil }
        var fields = DER.children(certificate, tbs)
        if fields.first?.tag == 0xA0 { fields.removeFirst() }
        guard fields.count >= 6, fields[0].tag == 0x02, fields[2].tag == 0x30, fields[3].tag == 0x30, fields[5].tag == 0x30 else { return nil }
        return fields
    }

    /// The key purposes (each OID's content bytes) of the certificate's extended key usage
    /// extension (2.5.29.37); none when it has no such extension. Read from the extension itself:
    /// the OID's bytes elsewhere in the certificate (a policy, a name) do not count.
    static func extendedKeyUsages(_ certificate: [UInt8]) -> [[UInt8]] {
        guard let fields = tbsFields(certificate),
              let explicit = fields.last(where: { $0.tag == 0xA3 }),
              let list = DER.children(certificate, explicit).first, list.tag == 0x30 else { return [] }
        for fieldsOfExtension in DER.children(certificate, list).map({ DER.children(certificate, $0) }) {
            guard let oid = fieldsOfExtension.first, oid.tag == 0x06,
                  Array(certificate[oid.contentStart..<oid.end]) == [0x55, 0x1D, 0x25],
                  let value = fieldsOfExtension.last, value.tag == 0x04,
                  let purposes = DER.read(certificate, at: value.contentStart), purposes.tag == 0x30, purposes.end == value.end else { continue }
            return DER.children(certificate, purposes).filter { $0.tag == 0x06 }.map { Array(certificate[$0.contentStart..<$0.end]) }
        }
        return []
    }
}
