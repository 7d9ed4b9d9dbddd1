import Foundation
import Testing
@testable import Shiplane

/// match's formats in process: the legacy one byte for byte against `openssl enc` (the tool
/// fastlane's first versions ran), v2's layout, and a wrong password never taken for the right one.
@Suite("match encryption formats", .offThePool)
struct MatchEncryptionTests {
    static let salt: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    static let saltHex = "0123456789ABCDEF"

    @Test(arguments: [MatchEncryptionFormat.legacyMD5, .legacySHA256])
    func theLegacyFormatIsOpenSSLEncByteForByte(_ format: MatchEncryptionFormat) throws {
        let root = NSTemporaryDirectory() + "shiplane-match-enc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try data.write(to: URL(fileURLWithPath: root + "/plain"))
        let digest = format == .legacyMD5 ? "md5" : "sha256"
        let result = try runProgram("/usr/bin/env", [
            "openssl", "enc", "-aes-256-cbc", "-md", digest, "-S", Self.saltHex, "-pass", "pass:pässword",
            "-in", root + "/plain", "-out", root + "/encrypted",
        ], in: root, environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        try #require(result.status == 0, "\(result.stderr)")
        // OpenSSL 3 leaves the header out when the salt is given with -S: it is put back here.
        let body = try #require(FileManager.default.contents(atPath: root + "/encrypted"))
        let openssl = Data("Salted__".utf8) + Data(Self.salt) + body

        let ours = try MatchEncryption.encrypt(data, password: "pässword", format: format, salt: Self.salt)
        #expect(Data(base64Encoded: ours, options: .ignoreUnknownCharacters) == openssl)
        let back = MatchEncryption.decrypt(Data(openssl.base64EncodedString().utf8), password: "pässword")
        #expect((try? back.get().data) == data)
        #expect((try? back.get().format) == format)
    }

    @Test func v2IsItsPrefixSaltTagAndCiphertext() throws {
        let data = Data("0 a DER-looking payload".utf8)
        let text = try MatchEncryption.encrypt(data, password: "p", format: .v2, salt: Self.salt)
        let bytes = try #require(Data(base64Encoded: text, options: .ignoreUnknownCharacters))
        #expect(bytes.starts(with: Data("match_encrypted_v2__".utf8)))
        #expect(Array(bytes[20..<28]) == Self.salt)
        #expect(bytes.count == 20 + 8 + 16 + data.count, "GCM adds no padding")
        #expect((try? MatchEncryption.decrypt(text, password: "p").get().data) == data)
        #expect(try MatchEncryption.encrypt(data, password: "p", format: .v2, salt: Self.salt) == text, "deterministic for one salt")
        // One flipped ciphertext bit fails the tag: v2 knows a wrong password or a changed file.
        var changed = bytes
        changed[changed.count - 1] ^= 1
        #expect(MatchEncryption.decrypt(Data(changed.base64EncodedString().utf8), password: "p").isFailure(.wrongPassword))
        #expect(MatchEncryption.decrypt(text, password: "q").isFailure(.wrongPassword))
    }

    /// The legacy format has no integrity check: a wrong key gives valid padding about once in
    /// 256 tries (fastlane issue 21663). A certificate, key or profile is DER: the garbage such a
    /// key gives is refused, and the right key is still found.
    @Test func aLegacyWrongPasswordWithValidPaddingIsRefused() throws {
        let der = Data([0x30, 0x82, 0x01, 0x00] + (0..<256).map { UInt8(truncatingIfNeeded: $0) })
        let text = try MatchEncryption.encrypt(der, password: "right", format: .legacyMD5, salt: Self.salt)
        let plausible = MatchStore.plausibility(for: "certs/distribution/X.p12")
        var found: String?
        for index in 0..<4096 {
            let wrong = "wrong-\(index)"
            if case .success(let (garbage, _)) = MatchEncryption.decrypt(text, password: wrong), garbage != der, !plausible(garbage) {
                found = wrong
                break
            }
        }
        let wrong = try #require(found, "some wrong password passes the padding check (about 1 in 128 with MD5 and SHA-256)")
        #expect(MatchEncryption.decrypt(text, password: wrong, plausible: plausible).isFailure(.wrongPassword))
        #expect((try? MatchEncryption.decrypt(text, password: "right", plausible: plausible).get().data) == der)
    }

    @Test func textThatIsNotMatchsIsNamedSo() {
        #expect(MatchEncryption.decrypt(Data("hello".utf8), password: "p").isFailure(.notEncrypted))
        #expect(MatchEncryption.decrypt(Data("U2FsdGVkX18=\n".utf8), password: "p").isFailure(.truncated))
        #expect(MatchEncryption.looksEncrypted(Data("U2FsdGVkX1+Xm+IknZDKG1\n".utf8)))
        #expect(MatchEncryption.looksEncrypted(Data("bWF0Y2hfZW5jcnlwdGVkX3YyX1\n".utf8)))
        #expect(!MatchEncryption.looksEncrypted(Data([0x30, 0x82, 0x05, 0x10, 0x02, 0x01, 0x03, 0x30, 0x82, 0x04, 0xD6, 0x06])))
    }

    @Test func theLayoutIsReadFromMatchsPaths() {
        let layout = MatchStoreLayout(encryptedFiles: [
            "certs/distribution/ABC.cer", "certs/distribution/ABC.p12", "certs/development/DEF.cer",
            "profiles/appstore/AppStore_com.example.app.mobileprovision",
            "profiles/developer_id/Direct_com.example.mac.provisionprofile", "stray.p12",
        ], matchVersion: "2.220.0")
        #expect(layout.certificates.map { "\($0.type)/\($0.id) \($0.hasCertificate) \($0.hasPrivateKey)" }
            == ["development/DEF true false", "distribution/ABC true true"])
        #expect(layout.profiles.map { "\($0.type) \($0.kind) \($0.bundleID)" }
            == ["appstore AppStore com.example.app", "developer_id Direct com.example.mac"])
        #expect(layout.otherEncryptedFiles == ["stray.p12"])

        // A bucket's layout (match's S3 and Google Cloud Storage): the same paths under the team id.
        let bucket = MatchStoreLayout(encryptedFiles: [
            "TEAM123456/certs/distribution/ABC.cer", "TEAM123456/certs/distribution/ABC.p12",
            "TEAM123456/profiles/adhoc/AdHoc_com.example.app.mobileprovision", "a/b/certs/x/Y.cer",
        ], matchVersion: nil)
        #expect(bucket.lines == [
            "certificate distribution/ABC (.cer, .p12) of team TEAM123456",
            "profile adhoc com.example.app (AdHoc) of team TEAM123456",
            "file a/b/certs/x/Y.cer",
        ])
    }
}

extension Result where Failure == MatchDecryptionFailure {
    func isFailure(_ expected: MatchDecryptionFailure) -> Bool {
        if case .failure(let failure) = self { return failure == expected }
        return false
    }
}
