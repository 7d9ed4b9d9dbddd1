internal import Crypto
import Foundation

/// Signs for a Swift package registry in SE-0391's `cms-1.0.0` format, as SwiftPM's
/// `swift package-registry publish --private-key-path --cert-chain-paths` does: a detached CMS
/// `SignedData` (RFC 5652) with no signed attributes, one signer named by issuer and serial
/// number, SHA-256 and ECDSA P-256, carrying the certificate chain (intermediates, then the
/// signing certificate). Written natively with the little DER Shiplane has (no new dependency).
struct RegistrySigner: Sendable {
    static let format = "cms-1.0.0"
    let key: P256.Signing.PrivateKey
    /// DER certificates, the signing certificate first.
    let chain: [[UInt8]]

    /// The key and chain of two environment variables' PEM texts.
    /// - Throws: `ValidationFailure` naming every problem: not a P-256 key, no certificate, a
    ///   signing certificate of another key, without the code-signing extended key usage, or expired.
    init(keyPEM: String, chainPEM: String, keyVariable: String, chainVariable: String, now: Date = Date()) throws {
        var problems: [String] = []
        let keyBlock = PEM.blocks(keyPEM).first { $0.label == "PRIVATE KEY" || $0.label == "EC PRIVATE KEY" }
        var key: P256.Signing.PrivateKey?
        if let keyBlock { key = try? P256.Signing.PrivateKey(derRepresentation: keyBlock.der) }  // PKCS#8 or SEC1
        if key == nil { problems.append("\(keyVariable) does not hold a PEM P-256 (prime256v1) private key: cms-1.0.0 signs with ECDSA P-256 only") }
        let chain = PEM.blocks(chainPEM).filter { $0.label == "CERTIFICATE" }.map { Array($0.der) }
        if chain.isEmpty { problems.append("\(chainVariable) holds no PEM certificate (the signing certificate first, then its intermediates)") }
        if let leaf = chain.first {
            if let fields = Self.tbsFields(leaf) {
                if let key, Array(key.publicKey.derRepresentation) != Array(leaf[fields[5].start..<fields[5].end]) {
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
            throw ValidationFailure(problems: problems, suggestion: "give a P-256 key and its code-signing certificate chain in PEM; nothing was sent")
        }
        self.key = key
        self.chain = chain
    }

    /// The detached `cms-1.0.0` signature of `content`.
    func sign(_ content: Data) throws -> Data {
        let signature = Array(try key.signature(for: content).derRepresentation)
        let leaf = chain[0]
        guard let fields = Self.tbsFields(leaf) else { throw ShiplaneError("the signing certificate cannot be read") }
        let serial = Array(leaf[fields[0].start..<fields[0].end]), issuer = Array(leaf[fields[2].start..<fields[2].end])
        let sha256: [UInt8] = DER.sequence([[0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]])
        let ecdsaWithSHA256: [UInt8] = DER.sequence([[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02]])
        let version1: [UInt8] = [0x02, 0x01, 0x01]
        let signerInfo = DER.sequence([version1, DER.sequence([issuer, serial]), sha256, ecdsaWithSHA256, DER.element(0x04, signature)])
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
