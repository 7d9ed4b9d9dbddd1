import Foundation
import Testing
import _CryptoExtras
@testable import Shiplane

private let signedLane = #"""
import Shiplane

struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.publishToSwiftRegistry("acme.Rocket", version: "1.2.0", registry: lane.environment["REGISTRY"] ?? "",
                                              signingKey: "SWIFT_REGISTRY_SIGNING_KEY")
    }
}
"""#

/// SE-0391 signing (issue 41): the oracle is the Swift toolchain's own SwiftPM, told to trust only
/// a throwaway CA and to refuse unsigned or untrusted packages, and `openssl cms -verify`.
@Suite("Swift package registry signing: SwiftPM accepts Shiplane's cms-1.0.0 signatures and refuses a tampered archive", .serialized, .offThePool)
struct SwiftRegistrySigningTests {
    /// openssl makes `name.key` (P-256, or RSA when `rsa`) and `name.pem`, self-signed, with the
    /// extensions given, valid for `days`.
    static func certificate(_ name: String, in folder: String, rsa: Bool = false, extensions: String) throws {
        try Data(extensions.utf8).write(to: URL(fileURLWithPath: folder + "/\(name).cnf"))
        let key = rsa ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        let made = try runTool(["openssl", "req", "-x509"] + key + ["-nodes", "-keyout", folder + "/\(name).key", "-out", folder + "/\(name).pem",
                                "-days", "30", "-subj", "/CN=\(name)", "-extensions", "v3", "-config", folder + "/\(name).cnf"])
        #expect(made.status == 0, "\(made.output)")
    }

    /// A one-target package with the signed publish lane, committed.
    static func smallPackage() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(name: \"Rocket\", targets: [.target(name: \"Rocket\")])\n")
        try repo.write("Sources/Rocket/Rocket.swift", "public enum Rocket {}\n")
        try repo.write("Lanes/Publish.swift", signedLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: rockets")
        return repo
    }

    /// A self-signed P-256 certificate with one extended key usage, as its key's and its own PEM.
    static func certificatePEMs(_ name: String, in folder: String, extendedKeyUsage: String) throws -> (key: String, chain: String) {
        try certificate(name, in: folder, extensions: "[req]\ndistinguished_name = dn\n[dn]\n[v3]\nextendedKeyUsage = \(extendedKeyUsage)\n")
        return (try String(contentsOfFile: folder + "/\(name).key", encoding: .utf8), try String(contentsOfFile: folder + "/\(name).pem", encoding: .utf8))
    }

    /// Every problem with the key and chain is named at once, before anything is made or sent:
    /// a key of a type cms-1.0.0 does not sign with (P-384, Ed25519, RSA under 2048 bits), a
    /// certificate of another key, no code-signing usage, expired; a chain variable without a
    /// certificate; a good pair passes, P-256 or RSA.
    @Test func aBadKeyOrChainIsRefusedNamingEveryProblem() throws {
        let folder = try TemporaryRepository(commit: false)
        let pki = folder.root
        let request = "[req]\ndistinguished_name = dn\n[dn]\n[v3]\n"
        try Self.certificate("good", in: pki, extensions: request + "extendedKeyUsage = codeSigning\n")
        try Self.certificate("plain", in: pki, extensions: request + "extendedKeyUsage = serverAuth\n")
        try Self.certificate("rsa", in: pki, rsa: true, extensions: request + "extendedKeyUsage = codeSigning\n")
        func read(_ file: String) throws -> String { try String(contentsOfFile: pki + "/" + file, encoding: .utf8) }

        _ = try RegistrySigner(keyPEM: try read("good.key"), chainPEM: try read("good.pem"), keyVariable: "K", chainVariable: "C")
        let rsa = try RegistrySigner(keyPEM: try read("rsa.key"), chainPEM: try read("rsa.pem"), keyVariable: "K", chainVariable: "C")
        if case .rsa(let key) = rsa.key { #expect(key.keySizeInBits == 2048) } else { Issue.record("an RSA key read as \(rsa.key)") }
        // The same RSA key as PKCS #1 ("RSA PRIVATE KEY"), as `openssl genrsa -traditional` writes it.
        let pkcs1 = try runTool(["openssl", "rsa", "-in", pki + "/rsa.key", "-traditional"])
        #expect(pkcs1.output.contains("BEGIN RSA PRIVATE KEY"), "\(pkcs1.output)")
        _ = try RegistrySigner(keyPEM: pkcs1.output, chainPEM: try read("rsa.pem"), keyVariable: "K", chainVariable: "C")

        // A P-384 key, with a certificate of another key that has no code-signing usage, read a year on.
        let later = Date().addingTimeInterval(365 * 86_400)
        let p384 = try runTool(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp384r1"])
        #expect {
            _ = try RegistrySigner(keyPEM: p384.output, chainPEM: try read("plain.pem"), keyVariable: "K", chainVariable: "C", now: later)
        } throws: { error in
            let message = (error as? ValidationFailure)?.problems.joined(separator: "\n") ?? "\(error)"
            return message.contains("K holds an EC key on P-384 (secp384r1): cms-1.0.0 signs with an ECDSA P-256 (prime256v1) or an RSA key of 2048 bits or more")
                && message.contains("code-signing extended key usage") && message.contains("expired on")
        }
        // Ed25519, a 1024-bit RSA key and encrypted keys (traditional and PKCS #8) are named as what they are.
        for (made, named) in [(["openssl", "genpkey", "-algorithm", "ed25519"], "K holds an Ed25519 key"),
                              (["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], "K holds an RSA key of 1024 bits"),
                              (["openssl", "ec", "-in", pki + "/good.key", "-aes256", "-passout", "pass:x"], "K holds an encrypted private key"),
                              (["openssl", "pkcs8", "-topk8", "-in", pki + "/good.key", "-v2", "aes256", "-passout", "pass:x"], "K holds an encrypted private key")] {
            let key = try runTool(made)
            #expect(key.status == 0, "\(key.output)")
            #expect {
                _ = try RegistrySigner(keyPEM: key.output, chainPEM: try read("good.pem"), keyVariable: "K", chainVariable: "C")
            } throws: { error in
                let problems = (error as? ValidationFailure)?.problems ?? []
                return problems.count == 1 && problems[0].hasPrefix(named)
            }
        }
        // A P-256 key with another key's certificate; and a chain with no certificate at all.
        #expect {
            _ = try RegistrySigner(keyPEM: try read("good.key"), chainPEM: try read("plain.pem"), keyVariable: "K", chainVariable: "C")
        } throws: { error in
            let problems = (error as? ValidationFailure)?.problems ?? []
            return problems.contains("the first certificate in C is not the certificate of the key in K")
                && problems.contains { $0.contains("code-signing extended key usage") } && problems.count == 2
        }
        // The code-signing OID elsewhere in the certificate (as a policy) is not the usage.
        try Self.certificate("policy", in: pki, extensions: request + "extendedKeyUsage = serverAuth\ncertificatePolicies = 1.3.6.1.5.5.7.3.3\n")
        #expect {
            _ = try RegistrySigner(keyPEM: try read("policy.key"), chainPEM: try read("policy.pem"), keyVariable: "K", chainVariable: "C")
        } throws: { error in
            (error as? ValidationFailure)?.problems == ["the signing certificate has no code-signing extended key usage (1.3.6.1.5.5.7.3.3), which SwiftPM requires"]
        }
        #expect(RegistrySigner.extendedKeyUsages(Array(try #require(PEM.blocks(try read("good.pem")).first).der))
                == [[0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03]])
        #expect {
            _ = try RegistrySigner(keyPEM: try read("good.key"), chainPEM: "", keyVariable: "K", chainVariable: "C")
        } throws: { error in
            (error as? ValidationFailure)?.problems == ["C holds no PEM certificate (the signing certificate first, then its intermediates)"]
        }
    }

    /// The built binary with a chain whose certificate has no code-signing usage: a usage error
    /// naming it, the key never shown, and nothing sent to the registry.
    @Test func aChainWithoutCodeSigningSendsNothing() async throws {
        let registry = FakeSwiftRegistry()
        try await registry.start()
        defer { registry.stop() }
        let repo = try Self.smallPackage()
        let (key, chain) = try Self.certificatePEMs("plain", in: repo.root, extendedKeyUsage: "serverAuth")
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first.map(String.init))
        let run = try await repo.shiplaneAsync(["publish"], environment: [
            "REGISTRY": registry.baseURL, "SWIFT_REGISTRY_SIGNING_KEY": key, "SWIFT_REGISTRY_CERTIFICATE_CHAIN": chain,
        ])
        #expect(run.status == 2, "a usage error (exit 2): \(run.all)")
        #expect(run.all.contains("no code-signing extended key usage"), "\(run.all)")
        #expect(!run.all.contains(keyLine), "the key never shows")
        #expect(registry.puts == 0, "\(registry.log)")
    }

    /// The built binary given an Ed25519 key (a type cms-1.0.0 does not sign with): a usage error
    /// naming the key's type and the ones allowed, the key never shown, nothing sent.
    @Test func aKeyOfAnotherTypeIsAUsageErrorBeforeAnythingIsSent() async throws {
        let registry = FakeSwiftRegistry()
        try await registry.start()
        defer { registry.stop() }
        let repo = try Self.smallPackage()
        let (_, chain) = try Self.certificatePEMs("good", in: repo.root, extendedKeyUsage: "codeSigning")
        let made = try runTool(["openssl", "genpkey", "-algorithm", "ed25519"])
        #expect(made.status == 0, "\(made.output)")
        let keyLine = try #require(made.output.split(separator: "\n").dropFirst().first.map(String.init))
        let run = try await repo.shiplaneAsync(["publish"], environment: [
            "REGISTRY": registry.baseURL, "SWIFT_REGISTRY_SIGNING_KEY": made.output, "SWIFT_REGISTRY_CERTIFICATE_CHAIN": chain,
        ])
        #expect(run.status == 2, "a usage error (exit 2): \(run.all)")
        #expect(run.all.contains("SWIFT_REGISTRY_SIGNING_KEY holds an Ed25519 key: cms-1.0.0 signs with an ECDSA P-256 (prime256v1) or an RSA key of 2048 bits or more"), "\(run.all)")
        #expect(!run.all.contains(keyLine), "the key never shows")
        #expect(registry.puts == 0 && registry.log.isEmpty, "nothing asked of the registry: \(registry.log)")
    }

    /// A dry run with a good key and chain says the archive would go signed, with how many
    /// certificates, shows no key, and sends nothing.
    @Test func aDryRunSaysTheArchiveWouldGoSignedAndSendsNothing() async throws {
        let registry = FakeSwiftRegistry()
        try await registry.start()
        defer { registry.stop() }
        let repo = try Self.smallPackage()
        let (key, chain) = try Self.certificatePEMs("good", in: repo.root, extendedKeyUsage: "codeSigning")
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first.map(String.init))
        let run = try await repo.shiplaneAsync(["publish", "--dry-run"], environment: [
            "REGISTRY": registry.baseURL, "SWIFT_REGISTRY_SIGNING_KEY": key, "SWIFT_REGISTRY_CERTIFICATE_CHAIN": chain,
        ])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.all.contains("would PUT"), "\(run.all)")
        #expect(run.all.contains("signed cms-1.0.0 (1 certificate)"), "\(run.all)")
        #expect(!run.all.contains(keyLine), "the key never shows")
        #expect(registry.puts == 0, "\(registry.log)")
        #expect(registry.violations.isEmpty, "\(registry.violations)")
    }

    /// For each key type cms-1.0.0 allows (ECDSA P-256, RSA 2048): SwiftPM, trusting only the
    /// test's CA (of the same key type), resolves and builds the signed release and refuses it tampered.
    @Test(arguments: ["p256", "rsa"])
    func swiftPMResolvesTheSignedReleaseRefusesATamperedOneAndARerunSendsNothing(keyType: String) async throws {
        let registry = FakeSwiftRegistry()
        try await registry.start()
        defer { registry.stop() }
        let repo = try TemporaryRepository()
        let manifest = "// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(\n    name: \"Rocket\",\n    products: [.library(name: \"Rocket\", targets: [\"Rocket\"])],\n    targets: [.target(name: \"Rocket\")]\n)\n"
        try repo.write("Package.swift", manifest)
        try repo.write("Sources/Rocket/Rocket.swift", "public enum Rocket {\n    public static func launch() -> String { \"signed liftoff\" }\n}\n")
        try repo.write("package-metadata.json", #"{"description": "Rockets.", "repositoryURLs": ["https://github.com/acme/rocket"]}"#)
        try repo.write(".gitignore", ".build/\n")
        try repo.write("Lanes/Publish.swift", signedLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: rockets")

        // A throwaway CA and a code-signing certificate under it (P-256 or RSA 2048), made by openssl.
        let pki = repo.root + "/pki"
        try FileManager.default.createDirectory(atPath: pki + "/roots", withIntermediateDirectories: true)
        let newKey = keyType == "rsa" ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        for command in [
            ["openssl", "req", "-x509"] + newKey + ["-nodes", "-keyout", pki + "/ca.key",
             "-out", pki + "/ca.pem", "-days", "30", "-subj", "/CN=Shiplane Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["openssl", "req"] + newKey + ["-nodes", "-keyout", pki + "/leaf.key",
             "-out", pki + "/leaf.csr", "-subj", "/CN=Acme Release Signing/O=Acme"],
            ["openssl", "x509", "-req", "-in", pki + "/leaf.csr", "-CA", pki + "/ca.pem", "-CAkey", pki + "/ca.key", "-CAcreateserial",
             "-out", pki + "/leaf.pem", "-days", "30", "-extfile", pki + "/ext.cnf"],
            ["openssl", "x509", "-in", pki + "/ca.pem", "-outform", "DER", "-out", pki + "/roots/ca.cer"],
        ] {
            if command[1] == "x509", command.contains("-req") {
                try Data("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning\n".utf8)
                    .write(to: URL(fileURLWithPath: pki + "/ext.cnf"))
            }
            let made = try runTool(command)
            #expect(made.status == 0, "\(made.output)")
        }
        let key = try String(contentsOfFile: pki + "/leaf.key", encoding: .utf8)
        #expect(key.contains("BEGIN PRIVATE KEY"))
        let chain = try String(contentsOfFile: pki + "/leaf.pem", encoding: .utf8)
        let environment = ["REGISTRY": registry.baseURL, "SWIFT_REGISTRY_SIGNING_KEY": key, "SWIFT_REGISTRY_CERTIFICATE_CHAIN": chain]
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first.map(String.init))

        let published = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(published.status == 0, "\(published.all)")
        #expect(!published.all.contains(keyLine), "the key never shows")
        #expect(registry.violations.isEmpty, "\(registry.violations)")
        #expect(registry.lastParts == ["metadata", "metadata-signature", "source-archive", "source-archive-signature"])
        let release = try #require(registry.release("acme.Rocket", "1.2.0"), "\(registry.log)")
        #expect(release.signatureFormat == "cms-1.0.0")
        #expect(!((try? runTool(["cat", repo.root + "/.git/shiplane/run.json"]).output) ?? "").contains(keyLine))

        // openssl verifies the detached signature over the archive, chained to the CA.
        try release.archive.write(to: URL(fileURLWithPath: pki + "/archive.zip"))
        try #require(release.signature).write(to: URL(fileURLWithPath: pki + "/archive.sig"))
        let verified = try runTool(["openssl", "cms", "-verify", "-binary", "-inform", "DER", "-in", pki + "/archive.sig", "-content", pki + "/archive.zip",
                                    "-CAfile", pki + "/ca.pem", "-purpose", "any", "-out", "/dev/null"])
        #expect(verified.status == 0 && verified.output.contains("Verification successful"), "\(verified.output)")
        let manifestInArchive = try runTool(["unzip", "-p", pki + "/archive.zip", "Rocket/Package.swift"]).output
        #expect(manifestInArchive.hasPrefix(manifest) && manifestInArchive.contains("\n// signature: cms-1.0.0;"), "\(manifestInArchive)")

        // SwiftPM resolves and builds it, trusting only the CA and refusing unsigned or untrusted packages.
        func consumer(_ name: String) async throws -> (status: Int32, all: String) {
            let folder = repo.root + "/" + name
            try FileManager.default.createDirectory(atPath: folder + "/Sources/Launcher", withIntermediateDirectories: true)
            try Data("// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(\n    name: \"Launcher\",\n    dependencies: [.package(id: \"acme.Rocket\", from: \"1.2.0\")],\n    targets: [.executableTarget(name: \"Launcher\", dependencies: [.product(name: \"Rocket\", package: \"acme.Rocket\")])]\n)\n".utf8)
                .write(to: URL(fileURLWithPath: folder + "/Package.swift"))
            try Data("import Rocket\nprint(Rocket.launch())\n".utf8).write(to: URL(fileURLWithPath: folder + "/Sources/Launcher/main.swift"))
            let swiftPM = ["--cache-path", folder + "-swiftpm/cache", "--config-path", folder + "-swiftpm/configuration", "--security-path", folder + "-swiftpm/security"]
            let set = try await runProgramAsync("/usr/bin/env", ["swift", "package-registry", "set"] + swiftPM + ["--allow-insecure-http", registry.baseURL],
                                                in: folder, environment: repo.environment)
            #expect(set.status == 0, "\(set.all)")
            // `set` wrote the project's registries.json; the security settings are the user-level file's.
            try FileManager.default.createDirectory(atPath: folder + "-swiftpm/configuration", withIntermediateDirectories: true)
            let configFile = folder + "-swiftpm/configuration/registries.json"
            var config: [String: Any] = ["authentication": [String: Any](), "registries": [String: Any](), "version": 1]
            config["security"] = ["default": ["signing": [
                "onUnsigned": "error", "onUntrustedCertificate": "error", "trustedRootCertificatesPath": pki + "/roots",
                "includeDefaultTrustedRootCertificates": false,
                "validationChecks": ["certificateExpiration": "enabled", "certificateRevocation": "disabled"],
            ]]]
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
            let run = try await runProgramAsync("/usr/bin/env", ["swift", "run"] + swiftPM + ["Launcher"], in: folder, environment: repo.environment, timeout: 900)
            return (run.status, run.all)
        }
        let good = try await consumer("consumer")
        #expect(good.status == 0 && good.all.contains("signed liftoff"), "\(good.all)\n\(registry.log)")

        // The re-run rebuilds the published bytes (the registry's manifest signatures kept): nothing sent.
        let again = try await repo.shiplaneAsync(["publish"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("nothing sent"), "\(again.all)")
        #expect(registry.puts == 1)

        // A tampered archive under the same signature: SwiftPM refuses it.
        var tampered = release.archive
        tampered.append(contentsOf: Array("tampered".utf8))
        registry.tamper("acme.Rocket", "1.2.0", archive: tampered)
        let bad = try await consumer("tampered")
        #expect(bad.status != 0, "\(bad.all)")
        #expect(bad.all.contains("signature is invalid"), "\(bad.all)")
        #expect(!bad.all.contains("signed liftoff"))
    }
}
