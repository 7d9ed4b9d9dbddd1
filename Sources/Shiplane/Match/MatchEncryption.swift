import Foundation
internal import Crypto
internal import _CryptoExtras

/// How a file of a match store is encrypted: the formats of fastlane's
/// `match/lib/match/encryption/encryption.rb`, each file base64 text (Ruby's `Base64.encode64`:
/// lines of 60 characters, each ending in a newline).
///
/// - `v2` (match's current format, `EncryptionV2`): `match_encrypted_v2__`, an 8-byte salt, the
///   16-byte GCM tag, then the AES-256-GCM ciphertext. Key, nonce and additional data come from
///   PBKDF2-HMAC-SHA256 of the password and salt, 10,000 rounds, 68 bytes: key 0–31, nonce 32–43,
///   additional authenticated data 44–67.
/// - `legacyMD5` and `legacySHA256` (`EncryptionV1`, OpenSSL's `enc -aes-256-cbc`): `Salted__`, an
///   8-byte salt, then the AES-256-CBC ciphertext (PKCS#7 padding); key and IV from
///   `EVP_BytesToKey` with one round of MD5 (what fastlane writes with `force_legacy_encryption`)
///   or of SHA-256 (what OpenSSL 1.1.0c and later wrote by default, which match reads).
package enum MatchEncryptionFormat: String, Sendable, CaseIterable, Codable {
    case v2
    case legacyMD5 = "legacy-md5"
    case legacySHA256 = "legacy-sha256"

    /// How the README and messages name it.
    package var label: String {
        switch self {
        case .v2: "match v2 (AES-256-GCM, PBKDF2-SHA256)"
        case .legacyMD5: "legacy (AES-256-CBC, Salted__, MD5)"
        case .legacySHA256: "legacy (AES-256-CBC, Salted__, SHA-256)"
        }
    }
}

/// Why a match-encrypted text could not be decrypted.
package enum MatchDecryptionFailure: Error, Equatable, Sendable {
    /// Not base64 of a `Salted__` or `match_encrypted_v2__` payload: not a file match encrypted.
    case notEncrypted
    /// Too short for its header.
    case truncated
    /// The password does not open it (or the file was changed since it was encrypted: the
    /// formats cannot tell the two apart).
    case wrongPassword
}

/// match's encryption, natively: byte for byte what fastlane's `MatchDataEncryption` writes and
/// reads. Written here rather than taken from a package because no Swift package implements
/// match's formats; the primitives (AES-GCM, AES-CBC, PBKDF2, MD5, SHA-256) are swift-crypto's.
package enum MatchEncryption {
    static let v1Prefix = Array("Salted__".utf8)
    static let v2Prefix = Array("match_encrypted_v2__".utf8)
    static let saltCount = 8
    static let tagCount = 16
    /// fastlane's PBKDF2 rounds for v2.
    static let v2Rounds = 10_000

    /// Encrypts `data` as match does (a fresh random salt), returning the file's text.
    package static func encrypt(_ data: Data, password: String, format: MatchEncryptionFormat = .v2) throws -> Data {
        var salt = [UInt8](repeating: 0, count: saltCount)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        return try encrypt(data, password: password, format: format, salt: salt)
    }

    /// Encrypts with a given salt (tests compare with fastlane's output byte for byte).
    package static func encrypt(_ data: Data, password: String, format: MatchEncryptionFormat, salt: [UInt8]) throws -> Data {
        precondition(salt.count == saltCount, "match's salt is 8 bytes")
        let password = Array(password.utf8)
        var payload: [UInt8]
        switch format {
        case .v2:
            let (key, nonce, additional) = try v2KeyMaterial(password: password, salt: salt)
            let sealed = try AES.GCM.seal(data, using: key, nonce: nonce, authenticating: additional)
            payload = v2Prefix + salt + Array(sealed.tag) + Array(sealed.ciphertext)
        case .legacyMD5, .legacySHA256:
            let (key, iv) = try v1KeyMaterial(password: password, salt: salt, sha256: format == .legacySHA256)
            payload = v1Prefix + salt + Array(try AES._CBC.encrypt(data, using: key, iv: iv))
        }
        return rubyBase64(payload)
    }

    /// Decrypts a match-encrypted file's text. For the legacy format, as fastlane does, MD5 is
    /// tried first and SHA-256 second; `plausible` (when given) must also accept what a key gives,
    /// so a wrong key whose padding happens to look right (1 in 256) is not taken for the right one.
    package static func decrypt(
        _ text: Data, password: String, plausible: ((Data) -> Bool)? = nil
    ) -> Result<(data: Data, format: MatchEncryptionFormat), MatchDecryptionFailure> {
        guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return .failure(.notEncrypted) }
        let stored = Array(decoded)
        let password = Array(password.utf8)
        if stored.starts(with: v2Prefix) {
            let header = v2Prefix.count + saltCount + tagCount
            guard stored.count >= header else { return .failure(.truncated) }
            let salt = Array(stored[v2Prefix.count..<v2Prefix.count + saltCount])
            let tag = stored[v2Prefix.count + saltCount..<header]
            let ciphertext = stored[header...]
            guard let (key, nonce, additional) = try? v2KeyMaterial(password: password, salt: salt),
                  let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag),
                  let data = try? AES.GCM.open(box, using: key, authenticating: additional)
            else { return .failure(.wrongPassword) }
            return .success((data, .v2))
        }
        guard stored.starts(with: v1Prefix) else { return .failure(.notEncrypted) }
        guard stored.count >= v1Prefix.count + saltCount + 16 else { return .failure(.truncated) }
        let salt = Array(stored[v1Prefix.count..<v1Prefix.count + saltCount])
        let ciphertext = stored[(v1Prefix.count + saltCount)...]
        for format in [MatchEncryptionFormat.legacyMD5, .legacySHA256] {
            guard let (key, iv) = try? v1KeyMaterial(password: password, salt: salt, sha256: format == .legacySHA256),
                  let data = try? AES._CBC.decrypt(ciphertext, using: key, iv: iv)
            else { continue }
            if let plausible, !plausible(data) { continue }
            return .success((data, format))
        }
        return .failure(.wrongPassword)
    }

    /// True when `text` is a file match encrypted (base64 of one of its headers): what is about
    /// to be encrypted must not be one already.
    package static func looksEncrypted(_ text: Data) -> Bool {
        guard text.count >= 12, let head = Data(base64Encoded: Data(text.prefix(12))) else { return false }
        let bytes = Array(head)
        return bytes.starts(with: v1Prefix.prefix(bytes.count)) || bytes.starts(with: v2Prefix.prefix(bytes.count))
    }

    // MARK: Key material

    /// PBKDF2-HMAC-SHA256, 10,000 rounds, 68 bytes: key, nonce, additional data (`EncryptionV2#keyivgen`).
    private static func v2KeyMaterial(password: [UInt8], salt: [UInt8]) throws -> (SymmetricKey, AES.GCM.Nonce, [UInt8]) {
        let derived = try KDF.Insecure.PBKDF2.deriveKey(
            from: password, salt: salt, using: .sha256, outputByteCount: 32 + 12 + 24, unsafeUncheckedRounds: v2Rounds
        )
        let bytes = derived.withUnsafeBytes { Array($0) }
        return (SymmetricKey(data: bytes[0..<32]), try AES.GCM.Nonce(data: bytes[32..<44]), Array(bytes[44...]))
    }

    /// OpenSSL's `EVP_BytesToKey` with one round (Ruby's `pkcs5_keyivgen(password, salt, 1, hash)`):
    /// D1 = H(password ‖ salt), Dn = H(Dn-1 ‖ password ‖ salt), until 48 bytes: key 0–31, IV 32–47.
    private static func v1KeyMaterial(password: [UInt8], salt: [UInt8], sha256: Bool) throws -> (SymmetricKey, AES._CBC.IV) {
        var material: [UInt8] = []
        var previous: [UInt8] = []
        while material.count < 48 {
            let input = previous + password + salt
            previous = sha256 ? Array(Crypto.SHA256.hash(data: input)) : Array(Crypto.Insecure.MD5.hash(data: input))
            material += previous
        }
        return (SymmetricKey(data: material[0..<32]), try AES._CBC.IV(ivBytes: material[32..<48]))
    }

    /// Ruby's `Base64.encode64`: lines of 60 characters, each followed by a newline.
    static func rubyBase64(_ bytes: [UInt8]) -> Data {
        let encoded = Array(Data(bytes).base64EncodedString().utf8)
        var text: [UInt8] = []
        text.reserveCapacity(encoded.count + encoded.count / 60 + 1)
        var index = 0
        while index < encoded.count {
            let end = min(index + 60, encoded.count)
            text += encoded[index..<end]
            text.append(0x0A)
            index = end
        }
        return Data(text)
    }
}
