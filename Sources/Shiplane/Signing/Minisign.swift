import Foundation
internal import Crypto

/// minisign's key and signature files (minisign's README, "Signature format"), signed and
/// checked natively: Ed25519 over the file's BLAKE2b-512 hash, then over that signature and the
/// trusted comment.
enum Minisign {
    /// A secret key file's key: its 8-byte id and the Ed25519 key.
    struct SecretKey {
        var keyID: [UInt8]
        fileprivate var key: Curve25519.Signing.PrivateKey

        /// The public key file's text (`minisign.pub`), which `minisign -V -p` reads.
        var publicKeyFile: String {
            let blob = Array("Ed".utf8) + keyID + Array(key.publicKey.rawRepresentation)
            return "untrusted comment: minisign public key \(Minisign.hexID(keyID))\n\(Data(blob).base64EncodedString())\n"
        }

        /// The key id as minisign prints it (16 hex digits), never key material.
        var shownID: String { Minisign.hexID(keyID) }
    }

    /// A public key: its id and the Ed25519 key.
    struct PublicKey {
        var keyID: [UInt8]
        var key: Curve25519.Signing.PublicKey
    }

    /// True when `text` looks like a minisign secret key file.
    static func looksLikeSecretKey(_ text: String) -> Bool { text.contains("minisign") && text.contains("secret key") }

    /// Reads a secret key file made without a password (`minisign -G -W`).
    /// - Throws: `SigningError` for a password-protected key or a damaged one.
    static func secretKey(from text: String) throws -> SecretKey {
        guard let blob = base64Line(of: text), blob.count == 158, blob[0..<2] == [0x45, 0x64] else {
            throw SigningError("it is not a minisign secret key file", suggestion: "give the text of the key file `minisign -G -W` writes")
        }
        guard blob[2..<4] == [0, 0] else {
            throw SigningError(
                "the minisign secret key is protected by a password, which Shiplane does not ask for",
                suggestion: "make a key without a password for CI (`minisign -G -W`) and keep it in a secret")
        }
        let keyID = Array(blob[54..<62]), secret = Array(blob[62..<126]), checksum = Array(blob[126..<158])
        // minisign 0.11 leaves the checksum of a key made without a password as zeros.
        guard checksum.allSatisfy({ $0 == 0 }) || BLAKE2b.hash(Array(blob[0..<2]) + keyID + secret, length: 32) == checksum else {
            throw SigningError("the minisign secret key is damaged (its checksum does not match)")
        }
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: secret.prefix(32))
        guard Array(key.publicKey.rawRepresentation) == Array(secret.suffix(32)) else { throw SigningError("the minisign secret key is damaged") }
        return SecretKey(keyID: keyID, key: key)
    }

    /// Reads a public key file (or its base64 line alone, as `minisign -P` takes it).
    /// - Throws: `SigningError` for text that is not one.
    static func publicKey(from text: String) throws -> PublicKey {
        guard let blob = base64Line(of: text), blob.count == 42, blob[0..<2] == [0x45, 0x64] else {
            throw SigningError("it is not a minisign public key", suggestion: "give the minisign.pub file, or its second line")
        }
        return PublicKey(keyID: Array(blob[2..<10]), key: try Curve25519.Signing.PublicKey(rawRepresentation: blob[10..<42]))
    }

    /// The `.minisig` file's text for `data`, prehashed as minisign 0.11 signs by default.
    static func sign(_ data: [UInt8], trustedComment: String, with secret: SecretKey) throws -> String {
        let signature = Array(try secret.key.signature(for: BLAKE2b.hash(data, length: 64)))
        let global = Array(try secret.key.signature(for: signature + Array(trustedComment.utf8)))
        let blob = Array("ED".utf8) + secret.keyID + signature
        return "untrusted comment: signature from minisign secret key\n\(Data(blob).base64EncodedString())\n"
            + "trusted comment: \(trustedComment)\n\(Data(global).base64EncodedString())\n"
    }

    /// Checks a `.minisig` file's text against `data` and `key`; returns the trusted comment.
    /// - Throws: `SigningError` saying what does not match.
    static func verify(_ data: [UInt8], signature text: String, key: PublicKey) throws -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .init(charactersIn: "\r")) }
        guard lines.count >= 4, let blob = Data(base64Encoded: lines[1]).map(Array.init), blob.count == 74,
              lines[2].hasPrefix("trusted comment: "), let global = Data(base64Encoded: lines[3]).map(Array.init)
        else { throw SigningError("it is not a minisign signature file") }
        let algorithm = String(decoding: blob[0..<2], as: UTF8.self)
        guard Array(blob[2..<10]) == key.keyID else {
            throw SigningError("it was signed by minisign key \(hexID(Array(blob[2..<10]))), not by the given key \(hexID(key.keyID))")
        }
        let signature = Array(blob[10..<74])
        let signed: [UInt8]
        switch algorithm {
        case "ED": signed = BLAKE2b.hash(data, length: 64)
        case "Ed": signed = data
        default: throw SigningError("its signature algorithm \(algorithm) is not minisign's")
        }
        guard key.key.isValidSignature(signature, for: signed) else { throw SigningError("the signature does not match the file's bytes") }
        let comment = String(lines[2].dropFirst("trusted comment: ".count))
        guard key.key.isValidSignature(global, for: signature + Array(comment.utf8)) else {
            throw SigningError("the trusted comment was changed after signing")
        }
        return comment
    }

    /// The decoded base64 line of a key file (the last non-comment line), or of a bare base64 text.
    private static func base64Line(of text: String) -> [UInt8]? {
        let line = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .last { !$0.isEmpty && !$0.hasPrefix("untrusted comment:") }
        return line.flatMap { Data(base64Encoded: $0) }.map(Array.init)
    }

    /// minisign prints key ids as the little-endian number in upper-case hex.
    static func hexID(_ id: [UInt8]) -> String {
        id.reversed().map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
