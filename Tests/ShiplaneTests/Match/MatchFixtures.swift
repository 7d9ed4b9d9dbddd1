import Foundation
import Testing

/// A throwaway match store, made by `openssl` for each test (no secret is committed): two
/// certificates (DER `.cer`, their keys as `.p12` with an empty password, as match exports them),
/// two profiles (DER CMS-signed plists, as Apple's are), `match_version.txt` and a README.
final class MatchFixture: @unchecked Sendable {
    let root: String
    /// The decrypted files (the reference every test compares with).
    var plain: String { root + "/plain" }
    let files = [
        "certs/distribution/ABCDE12345.cer", "certs/distribution/ABCDE12345.p12",
        "certs/development/FGHIJ67890.cer", "certs/development/FGHIJ67890.p12",
        "profiles/appstore/AppStore_com.example.app.mobileprovision",
        "profiles/development/Development_com.example.app.mobileprovision",
    ]

    init() throws {
        root = NSTemporaryDirectory() + "shiplane-match-test-\(UUID().uuidString)"
        let work = root + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        for folder in ["certs/distribution", "certs/development", "profiles/appstore", "profiles/development"] {
            try FileManager.default.createDirectory(atPath: plain + "/" + folder, withIntermediateDirectories: true)
        }
        for (type, id) in [("distribution", "ABCDE12345"), ("development", "FGHIJ67890")] {
            try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(work)/\(id).key", "-out", "\(work)/\(id).pem",
                              "-days", "2", "-subj", "/CN=iPhone \(type.capitalized): Test Team (\(id))"])
            try Self.openssl(["x509", "-in", "\(work)/\(id).pem", "-outform", "DER", "-out", "\(plain)/certs/\(type)/\(id).cer"])
            try Self.openssl(["pkcs12", "-export", "-inkey", "\(work)/\(id).key", "-in", "\(work)/\(id).pem",
                              "-passout", "pass:", "-out", "\(plain)/certs/\(type)/\(id).p12"])
        }
        for (type, kind, id) in [("appstore", "AppStore", "ABCDE12345"), ("development", "Development", "FGHIJ67890")] {
            let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>Name</key><string>match \(kind) com.example.app</string>
            <key>TeamIdentifier</key><array><string>TEAM123456</string></array></dict></plist>
            """
            try Data(plist.utf8).write(to: URL(fileURLWithPath: "\(work)/\(kind).plist"))
            try Self.openssl(["cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", "\(work)/\(kind).plist",
                              "-signer", "\(work)/\(id).pem", "-inkey", "\(work)/\(id).key",
                              "-out", "\(plain)/profiles/\(type)/\(kind)_com.example.app.mobileprovision"])
        }
        try Data("2.220.0\n".utf8).write(to: URL(fileURLWithPath: plain + "/match_version.txt"))
        try Data("# Certificates and profiles of Test Team, managed by match\n".utf8).write(to: URL(fileURLWithPath: plain + "/README.md"))
        try FileManager.default.removeItem(atPath: work)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A copy of the plain files at `name` (a store to encrypt in place, or a folder to encrypt).
    func copyOfPlain(_ name: String) throws -> String {
        let path = root + "/" + name
        try FileManager.default.copyItem(atPath: plain, toPath: path)
        return path
    }

    /// Runs the Ruby oracle (`Fixtures/Match/match_oracle.rb`, fastlane's encryption in Ruby's
    /// standard library) with these environment variables.
    @discardableResult
    func ruby(_ arguments: [String], environment: [String: String]) throws -> CommandOutput {
        var variables = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (key, value) in environment { variables[key] = value }
        return try runProgram("/usr/bin/env", ["ruby", packageRoot + "/Tests/ShiplaneTests/Fixtures/Match/match_oracle.rb"] + arguments,
                              in: root, environment: variables)
    }

    /// Runs the built `shiplane` in the fixture's folder.
    func shiplane(_ arguments: [String], environment extra: [String: String]) throws -> CommandOutput {
        let home = root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return try runProgram(shiplaneBinary, arguments, in: root, environment: isolatedEnvironment(home: home, extra: extra))
    }

    /// Every file under `folder` (hidden ones too) with its bytes.
    static func snapshot(_ folder: String) -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return result }
        for case let file as String in walker {
            if let data = FileManager.default.contents(atPath: folder + "/" + file),
               (try? FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.type] as? FileAttributeType) == .typeRegular {
                result[file] = data
            }
        }
        return result
    }

    static func openssl(_ arguments: [String]) throws {
        let result = try runProgram("/usr/bin/env", ["openssl"] + arguments, in: "/", environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        guard result.status == 0 else { throw TestFailure("openssl \(arguments.first ?? "") failed: \(result.stderr)") }
    }
}
