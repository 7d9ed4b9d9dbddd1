import Crypto
import Foundation
import Testing
@testable import Shiplane
import _CryptoExtras

@Suite("Store packages, keys and tokens", .offThePool)
struct StoresPackageTests {
    @Test(arguments: [(false, false), (true, false), (false, true)])
    func readsTheIPAsInfoPlist(binary: Bool, zip64: Bool) async throws {
        try await withTemporaryDirectory { folder in
            let path = try StoreFixtures.makeIPA(at: folder.path + "/App.ipa", bundleID: "com.acme.rocket", version: "2.10", build: "7",
                                                 binaryPlist: binary, zip64: zip64)
            let metadata = try IPAMetadata.read(ipa: path)
            #expect(metadata.bundleID == "com.acme.rocket")
            #expect(metadata.version == "2.10")
            #expect(metadata.buildNumber == "7")
            #expect(metadata.platform == "IOS")
            #expect(metadata.appName == "Rocket.app")
            #expect(metadata.fileSize == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value)
        }
    }

    @Test(arguments: [
        ("no-plist", "has no Payload/<App>.app/Info.plist"),
        ("bad-version", "CFBundleShortVersionString \"1.4.0-beta.1\" is not a version"),
        ("bad-build", "CFBundleVersion \"42a\" is not a build number"),
        ("no-bundle-id", "CFBundleIdentifier is missing"),
        ("not-zip", "is not a zip archive"),
        ("missing", "does not exist"),
    ])
    func badIPAsGetClearErrors(kind: String, expected: String) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.path + "/App.ipa"
            switch kind {
            case "no-plist": try StoreFixtures.makeIPA(at: path, withPlist: false)
            case "bad-version": try StoreFixtures.makeIPA(at: path, version: "1.4.0-beta.1")
            case "bad-build": try StoreFixtures.makeIPA(at: path, build: "42a")
            case "no-bundle-id": try StoreFixtures.makeIPA(at: path, bundleID: nil)
            case "not-zip": try writeFile(folder, "App.ipa", "PK but not really")
            default: break
            }
            let error = #expect(throws: StorePackageError.self) { try IPAMetadata.read(ipa: path) }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }

    @Test func readsTheBundlesProtobufManifest() async throws {
        try await withTemporaryDirectory { folder in
            let path = try StoreFixtures.makeAAB(at: folder.path + "/app.aab", package: "com.acme.rocket", versionCode: 1234)
            let manifest = try AndroidBundleManifest.read(bundle: path)
            #expect(manifest.packageName == "com.acme.rocket")
            #expect(manifest.versionCode == 1234)
            #expect(manifest.versionName == "1.4.0")
            try StoreFixtures.writeZip(at: folder.path + "/text.aab", entries: [("base/manifest/AndroidManifest.xml", Data("<manifest package=\"x.y\"/>".utf8))])
            #expect(throws: StorePackageError.self) { try AndroidBundleManifest.read(bundle: folder.path + "/text.aab") }
        }
    }

    @Test func theAppStoreConnectTokenIsES256WithApplesClaims() throws {
        let credentials = try AppStoreConnectCredentials.fromEnvironment(StoreFixtures.appleEnvironment(apiURL: "http://127.0.0.1:1"), workingDirectory: "/")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try credentials.token(now: now)
        let verified = VerifiedJWT.verify(token) { input, signature in
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return StoreFixtures.appleKey.publicKey.isValidSignature(signature, for: input)
        }
        let jwt = try verified.get()
        #expect(jwt.header as NSDictionary == ["alg": "ES256", "kid": StoreFixtures.appleKeyID, "typ": "JWT"] as NSDictionary)
        #expect(jwt.claims["iss"] as? String == StoreFixtures.appleIssuerID)
        #expect(jwt.claims["aud"] as? String == "appstoreconnect-v1")
        #expect((jwt.claims["exp"] as? Int ?? 0) - (jwt.claims["iat"] as? Int ?? 0) <= 1200)
    }

    @Test func aTokenIsMintedAnewBeforeItCouldExpireDuringALongUpload() throws {
        let credentials = try AppStoreConnectCredentials.fromEnvironment(StoreFixtures.appleEnvironment(apiURL: "http://127.0.0.1:1"), workingDirectory: "/")
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let source = AppStoreConnectTokenSource(credentials: credentials, now: { clock.now })
        let first = try source.token()
        clock.advance(5 * 60)
        #expect(try source.token() == first)
        clock.advance(6 * 60)
        let second = try source.token()
        #expect(second != first)
        #expect(source.redactor.redact("\(first) and \(second)") == "*** and ***", "every minted token is known for redaction")
    }

    @Test func keysThatAreNotP256AreNamed() throws {
        #expect(throws: StoreCredentialsError.self) { try AppStoreConnectCredentials.parsePrivateKey("just text") }
        let rsa = try #require(StoreFixtures.googleKey?.pemRepresentation)
        let error = #expect(throws: StoreCredentialsError.self) { try AppStoreConnectCredentials.parsePrivateKey(rsa) }
        #expect(error?.message.contains("not an EC P-256 key") == true)
        let escaped = StoreFixtures.appleKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        #expect((try? AppStoreConnectCredentials.parsePrivateKey(escaped)) != nil, "CI secrets with literal \\n still work")
    }

    @Test(arguments: [
        ("{", "not valid JSON"),
        (#"{"type": "authorized_user", "client_email": "a@b", "private_key": "x"}"#, "not \"service_account\""),
        (#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"}"#, "client_email is missing"),
    ])
    func malformedServiceAccountsAreExplained(json: String, expected: String) {
        let error = #expect(throws: StoreCredentialsError.self) { try GooglePlayServiceAccount.parse(json) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    @Test func operationsMustCoverTheFileExactlyOnce() throws {
        func op(_ offset: Int64, _ length: Int64, expires: String? = nil) -> ASCUploadOperation {
            ASCUploadOperation(method: "PUT", url: "https://upload.example/part", offset: offset, length: length, requestHeaders: [], expiration: expires, partNumber: nil)
        }
        let now = Date()
        #expect(try UploadOperations([op(5, 5), op(0, 5)], file: "/f", fileSize: 10, now: now).operations.map(\.offset) == [0, 5])
        #expect(throws: StoreAPIError.self) { try UploadOperations([op(0, 5), op(6, 4)], file: "/f", fileSize: 10, now: now) }
        #expect(throws: StoreAPIError.self) { try UploadOperations([op(0, 6), op(5, 5)], file: "/f", fileSize: 10, now: now) }
        #expect(throws: StoreAPIError.self) { try UploadOperations([op(0, 9)], file: "/f", fileSize: 10, now: now) }
        #expect(throws: StoreAPIError.self) { try UploadOperations([], file: "/f", fileSize: 10, now: now) }
        #expect(throws: StoreAPIError.self) { try UploadOperations([op(0, 10, expires: "2001-01-01T00:00:00Z")], file: "/f", fileSize: 10, now: now) }
    }

    @Test func mintedTokensAreRedactedByShape() {
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlLWJ5dGVz"
        #expect(SecretRedactor().redact("token \(jwt) sent") == "token *** sent")
        #expect(SecretRedactor().redact("access ya29.a0AfH6SMBx-Test_token.more done") == "access *** done")
        #expect(SecretRedactor().redact("eyJust a word") == "eyJust a word")
        #expect(LaneEnvironment.looksSecret("GOOGLE_PLAY_SERVICE_ACCOUNT_JSON"))
    }
}

private final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
