import Crypto
import Foundation
import _CryptoExtras
@testable import Shiplane

/// Keys, tokens and app packages for the store tests, all made here.
enum StoreFixtures {
    /// An App Store Connect test key (EC P-256, PKCS#8 PEM as in a .p8).
    static let appleKey = P256.Signing.PrivateKey()
    static let appleKeyID = "TESTKEY123"
    static let appleIssuerID = "69a6de7e-aaaa-47e3-e053-5b8c7c11a4d1"

    /// A Google service account test key (RSA 2048).
    static let googleKey: _RSA.Signing.PrivateKey? = try? _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let googleEmail = "shiplane-ci@acme-project.iam.gserviceaccount.com"

    static func appleEnvironment(apiURL: String, key: String? = nil) -> [String: String] {
        [
            "APP_STORE_CONNECT_KEY_ID": appleKeyID, "APP_STORE_CONNECT_ISSUER_ID": appleIssuerID,
            "APP_STORE_CONNECT_PRIVATE_KEY": key ?? appleKey.pemRepresentation, "APP_STORE_CONNECT_API_URL": apiURL,
        ]
    }

    /// A service-account JSON key whose token_uri is `tokenURL`.
    static func serviceAccountJSON(tokenURL: String) -> String {
        let object: [String: String] = [
            "type": "service_account", "project_id": "acme-project", "private_key_id": "abc123",
            "private_key": googleKey?.pemRepresentation ?? "", "client_email": googleEmail, "client_id": "1234567890",
            "token_uri": tokenURL,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: - Packages

    /// Writes an IPA: `Payload/<name>.app/Info.plist` (XML, or binary written by Python's
    /// plistlib as an independent writer) and an executable of `payloadBytes` pseudo-random bytes.
    @discardableResult
    static func makeIPA(
        at path: String, bundleID: String? = "com.acme.rocket", version: String? = "1.4.0", build: String? = "42",
        binaryPlist: Bool = false, payloadBytes: Int = 300_000, withPlist: Bool = true, appName: String = "Rocket", zip64: Bool = false
    ) throws -> String {
        var plist: [String: Any] = ["CFBundleExecutable": appName, "CFBundleSupportedPlatforms": ["iPhoneOS"]]
        if let bundleID { plist["CFBundleIdentifier"] = bundleID }
        if let version { plist["CFBundleShortVersionString"] = version }
        if let build { plist["CFBundleVersion"] = build }
        var entries: [(String, Data)] = [("Payload/\(appName).app/\(appName)", pseudoRandomBytes(payloadBytes, seed: UInt64(payloadBytes)))]
        if withPlist {
            let data = binaryPlist ? try pythonBinaryPlist(plist) : try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            entries.insert(("Payload/\(appName).app/Info.plist", data), at: 0)
        }
        try writeZip(at: path, entries: entries, zip64: zip64)
        return path
    }

    /// Writes an AAB with an aapt2 protocol-buffer manifest for `package` and `versionCode`.
    @discardableResult
    static func makeAAB(at path: String, package: String = "com.acme.rocket", versionCode: Int = 42, payloadBytes: Int = 200_000) throws -> String {
        try writeZip(at: path, entries: [
            ("base/manifest/AndroidManifest.xml", Data(manifestProto(package: package, versionCode: versionCode))),
            ("base/dex/classes.dex", pseudoRandomBytes(payloadBytes, seed: UInt64(versionCode))),
            ("BundleConfig.pb", Data([0x0a, 0x02, 0x08, 0x01])),
        ])
        return path
    }

    /// Writes the entries to a scratch folder and zips them with the `zip` command (an
    /// independent writer: Shiplane's reader is checked against it).
    static func writeZip(at path: String, entries: [(String, Data)], zip64: Bool = false) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let scratch = NSTemporaryDirectory() + "zip-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for (name, data) in entries {
            let file = scratch + "/" + name
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: file))
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let result = try runProgram("/usr/bin/zip", ["-q", "-X"] + (zip64 ? ["-fz"] : []) + [absolute] + entries.map(\.0), in: scratch, environment: ["PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw TestFailure("zip failed: \(result.all)") }
    }

    static func pseudoRandomBytes(_ count: Int, seed: UInt64) -> Data {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    private static func pythonBinaryPlist(_ plist: [String: Any]) throws -> Data {
        let json = try JSONSerialization.data(withJSONObject: plist)
        let script = "import json,plistlib,sys; sys.stdout.buffer.write(plistlib.dumps(json.loads(sys.stdin.read()), fmt=plistlib.FMT_BINARY))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(json)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, data.starts(with: Array("bplist00".utf8)) else { throw TestFailure("python3 could not write a binary plist") }
        return data
    }

    // MARK: - aapt2 protocol-buffer XML

    static func manifestProto(package: String, versionCode: Int) -> [UInt8] {
        let android = "http://schemas.android.com/apk/res/android"
        let packageAttribute = field(2, "package") + field(3, package)
        let primitive = field(6, varint: UInt64(versionCode))                 // Primitive.int_decimal_value
        let item = field(7, primitive)                                         // Item.prim
        let versionAttribute = field(1, android) + field(2, "versionCode") + field(5, varint: 0x0101_021b) + field(6, item)
        let nameAttribute = field(1, android) + field(2, "versionName") + field(3, "1.4.0")
        let child = field(1, field(3, "application"))                          // XmlNode { element { name } }
        let element = field(3, "manifest") + field(4, packageAttribute) + field(4, versionAttribute) + field(4, nameAttribute) + field(5, child)
        return field(1, element)                                               // XmlNode.element
    }

    static func field(_ number: Int, _ text: String) -> [UInt8] { field(number, Array(text.utf8)) }

    static func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] {
        encodeVarint(UInt64(number << 3 | 2)) + encodeVarint(UInt64(bytes.count)) + bytes
    }

    static func field(_ number: Int, varint value: UInt64) -> [UInt8] { encodeVarint(UInt64(number << 3)) + encodeVarint(value) }

    static func encodeVarint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7f)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }
}

/// Checks a compact JWT: its signature with the given verifier, its header and its claims.
struct VerifiedJWT {
    let header: [String: Any]
    let claims: [String: Any]

    /// - Returns: nil with a reason when the token is malformed or the signature does not verify.
    static func verify(_ token: String, verify: (Data, Data) -> Bool) -> Result<VerifiedJWT, TestFailure> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let headerData = JSONWebToken.decodeBase64URL(parts[0]), let claimsData = JSONWebToken.decodeBase64URL(parts[1]),
              let signature = JSONWebToken.decodeBase64URL(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any] else {
            return .failure(TestFailure("not a compact JWT"))
        }
        guard verify(Data((parts[0] + "." + parts[1]).utf8), signature) else { return .failure(TestFailure("the signature does not verify")) }
        return .success(VerifiedJWT(header: header, claims: claims))
    }
}
