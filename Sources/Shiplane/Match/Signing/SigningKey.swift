import Foundation
internal import Crypto
internal import _CryptoExtras

/// A new signing identity's private key (RSA 2048, what Apple requires) and the certificate
/// signing request App Store Connect turns into a certificate.
///
/// The CSR is written here in DER rather than with swift-certificates: it has one fixed shape
/// (PKCS#10: version 0, a one-name subject, the key, no attributes, SHA-256 with RSA), which is a
/// few dozen lines, while the package would add two modules to everything a lane compiles
/// against. `openssl req -verify` checks what it writes (`MatchSigningTests`).
package struct SigningKey: Sendable {
    let key: _RSA.Signing.PrivateKey

    /// A fresh RSA 2048 key.
    /// - Throws: when the system cannot make one.
    package static func generate() throws -> SigningKey {
        SigningKey(key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// Reads a key from PEM (PKCS#1 `RSA PRIVATE KEY`, as fastlane's cert writes the `.p12` of a
    /// match store, or PKCS#8).
    /// - Throws: when the text is not an RSA private key.
    package init(pem: String) throws {
        key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
    }

    init(key: _RSA.Signing.PrivateKey) {
        self.key = key
    }

    /// The key as PEM (PKCS#1), the bytes match keeps as `certs/<type>/<id>.p12`.
    package var pem: Data { Data((key.pemRepresentation + (key.pemRepresentation.hasSuffix("\n") ? "" : "\n")).utf8) }

    /// The SubjectPublicKeyInfo's SHA-256, in hex: how a certificate Apple made from this key's
    /// CSR is recognised (`SigningCertificate.publicKeyDigest`), without keeping the key anywhere.
    package var publicKeyDigest: String { SHA256.hex(of: key.publicKey.derRepresentation) }

    /// The PKCS#10 certificate signing request in DER, signed with SHA-256 and PKCS#1 v1.5.
    /// - Throws: when signing fails.
    package func certificateSigningRequest(commonName: String) throws -> Data {
        let name = DER.sequence([DER.set([DER.sequence([DER.commonNameOID, DER.utf8String(commonName)])])])
        let info = DER.sequence([DER.integerZero, name, Array(key.publicKey.derRepresentation), [0xA0, 0x00]])
        let signature = try key.signature(for: info, padding: .insecurePKCS1v1_5)
        return Data(DER.sequence([info, DER.sha256WithRSA, DER.bitString(Array(signature.rawRepresentation))]))
    }

    /// The CSR as PEM text, as App Store Connect's `csrContent` takes it.
    package func certificateSigningRequestPEM(commonName: String) throws -> String {
        let base64 = try certificateSigningRequest(commonName: commonName).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE REQUEST-----\n" + base64 + "\n-----END CERTIFICATE REQUEST-----\n"
    }
}

/// What Shiplane reads of an X.509 certificate (DER): the key it certifies, when it expires and
/// whose it is.
package struct SigningCertificate: Equatable, Sendable {
    /// The SubjectPublicKeyInfo's SHA-256 in hex (compare `SigningKey.publicKeyDigest`).
    package var publicKeyDigest: String
    /// `notAfter`.
    package var expires: Date
    /// The subject's common name (`Apple Distribution: Acme Inc (TEAM123456)`): the identity
    /// `codesign` and `xcodebuild` name.
    package var commonName: String?
    /// The subject's organisational unit: the team id in Apple's certificates.
    package var organizationalUnit: String?

    package init(publicKeyDigest: String, expires: Date, commonName: String?, organizationalUnit: String?) {
        self.publicKeyDigest = publicKeyDigest
        self.expires = expires
        self.commonName = commonName
        self.organizationalUnit = organizationalUnit
    }

    /// Reads a DER certificate; nil when it is not one.
    package init?(der: Data) {
        let bytes = Array(der)
        guard let certificate = DER.read(bytes, at: 0), certificate.tag == 0x30,
              let tbs = DER.children(bytes, certificate).first, tbs.tag == 0x30 else { return nil }
        var fields = DER.children(bytes, tbs)
        if fields.first?.tag == 0xA0 { fields.removeFirst() }  // [0] version
        // serial, signature algorithm, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count >= 6, fields[3].tag == 0x30, fields[4].tag == 0x30, fields[5].tag == 0x30 else { return nil }
        let validity = DER.children(bytes, fields[3])
        guard validity.count == 2, let notAfter = DER.time(bytes, validity[1]) else { return nil }
        publicKeyDigest = SHA256.hex(of: Data(bytes[fields[5].start..<fields[5].end]))
        expires = notAfter
        commonName = DER.nameAttribute(bytes, fields[4], oid: [0x55, 0x04, 0x03])
        organizationalUnit = DER.nameAttribute(bytes, fields[4], oid: [0x55, 0x04, 0x0B])
    }
}

/// The little DER the CSR and certificate reading need.
enum DER {
    struct Element { var tag: UInt8; var start: Int; var contentStart: Int; var end: Int }

    static let integerZero: [UInt8] = [0x02, 0x01, 0x00]
    /// id-at-commonName (2.5.4.3).
    static let commonNameOID: [UInt8] = [0x06, 0x03, 0x55, 0x04, 0x03]
    /// sha256WithRSAEncryption (1.2.840.113549.1.1.11) with NULL parameters.
    static let sha256WithRSA: [UInt8] = sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B], [0x05, 0x00]])

    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
    static func sequence(_ parts: [[UInt8]]) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }
    static func set(_ parts: [[UInt8]]) -> [UInt8] { element(0x31, parts.flatMap { $0 }) }
    static func utf8String(_ text: String) -> [UInt8] { element(0x0C, Array(text.utf8)) }
    static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(0x03, [0x00] + bytes) }

    /// The element at `offset`, when its length fits in `bytes`.
    static func read(_ bytes: [UInt8], at offset: Int) -> Element? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var index = offset + 1
        var count = Int(bytes[index])
        index += 1
        if count & 0x80 != 0 {
            let octets = count & 0x7F
            guard octets >= 1, octets <= 4, index + octets <= bytes.count else { return nil }
            count = 0
            for _ in 0..<octets { count = count << 8 | Int(bytes[index]); index += 1 }
        }
        guard index + count <= bytes.count else { return nil }
        return Element(tag: tag, start: offset, contentStart: index, end: index + count)
    }

    /// The elements inside a constructed one.
    static func children(_ bytes: [UInt8], _ parent: Element) -> [Element] {
        var items: [Element] = []
        var offset = parent.contentStart
        while offset < parent.end, let item = read(bytes, at: offset), item.end <= parent.end {
            items.append(item)
            offset = item.end
        }
        return items
    }

    /// UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ).
    static func time(_ bytes: [UInt8], _ element: Element) -> Date? {
        var text = String(decoding: bytes[element.contentStart..<element.end], as: UTF8.self)
        guard text.hasSuffix("Z") else { return nil }
        text.removeLast()
        if element.tag == 0x17 {
            guard let year = Int(text.prefix(2)) else { return nil }
            text = (year >= 50 ? "19" : "20") + text
        } else if element.tag != 0x18 {
            return nil
        }
        let digits = text.compactMap { $0.wholeNumberValue }
        guard digits.count == 14, text.count == 14 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int { digits[from..<from + count].reduce(0) { $0 * 10 + $1 } }
        var components = DateComponents()
        components.year = number(0, 4); components.month = number(4, 2); components.day = number(6, 2)
        components.hour = number(8, 2); components.minute = number(10, 2); components.second = number(12, 2)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: components)
    }

    /// The string value of the name's attribute `oid` (its content bytes), if present.
    static func nameAttribute(_ bytes: [UInt8], _ name: Element, oid: [UInt8]) -> String? {
        for set in children(bytes, name) {
            for pair in children(bytes, set) {
                let parts = children(bytes, pair)
                guard parts.count == 2, parts[0].tag == 0x06, Array(bytes[parts[0].contentStart..<parts[0].end]) == oid else { continue }
                return String(decoding: bytes[parts[1].contentStart..<parts[1].end], as: UTF8.self)
            }
        }
        return nil
    }
}
