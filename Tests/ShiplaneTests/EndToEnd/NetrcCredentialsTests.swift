import Foundation
import Testing
@testable import Shiplane

private let netrcLane = #"""
import Shiplane

struct Upload: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.uploadToS3(["dist/notes.txt"], bucket: "releases", prefix: "netrc", pathStyle: true)
    }
}

struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.publishToSwiftRegistry("acme.Rocket", version: "1.2.0", registry: lane.environment["REGISTRY"] ?? "")
    }
}
"""#

/// Credentials from `~/.netrc` (`machine HOST login NAME password SECRET`), as curl and SwiftPM
/// read it, for S3 (the endpoint's host: the access key id and the secret) and a Swift package
/// registry (the registry's host: HTTP Basic); the environment's credentials win over it.
@Suite("Credentials from ~/.netrc for S3 and the Swift package registry, the environment winning", .serialized, .offThePool)
struct NetrcCredentialsTests {
    @Test func theFileIsReadAsCurlReadsIt() {
        let netrc = Netrc.parse("""
        # a comment
        machine example.com login alice password "pass word \\" x"
        machine 127.0.0.1
          login key-id
          password s3cret
        macdef init
        machine evil.example.com login mallory password nope

        default login anyone password anything
        """)
        #expect(netrc.login(for: "EXAMPLE.com")?.password == "pass word \" x")
        #expect(netrc.login(for: "127.0.0.1").map { "\($0.login):\($0.password)" } == "key-id:s3cret")
        #expect(netrc.login(for: "evil.example.com")?.login == "anyone", "a macro's body is not an entry")
        #expect(netrc.login(for: "other.org")?.login == "anyone", "the default entry")
        #expect(Netrc.parse("machine a.b login x").login(for: "a.b") == nil, "no password: no login")
        #expect(Netrc.path(in: ["HOME": "/h"]) == "/h/.netrc" && Netrc.path(in: ["HOME": "/h", "NETRC": "/n"]) == "/n")
    }

    private func project() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(name: \"Rocket\", targets: [.target(name: \"Rocket\")])\n")
        try repo.write("Sources/Rocket/Rocket.swift", "public enum Rocket {}\n")
        try repo.write("Lanes/Netrc.swift", netrcLane)
        try repo.write(".gitignore", "dist/\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: rockets")
        try FileManager.default.createDirectory(atPath: repo.path + "/dist", withIntermediateDirectories: true)
        try Data("release notes\n".utf8).write(to: URL(fileURLWithPath: repo.path + "/dist/notes.txt"))
        return repo
    }

    private func writeNetrc(_ repo: TemporaryRepository, _ text: String) throws {
        let home = try #require(repo.environment["HOME"])
        try Data(text.utf8).write(to: URL(fileURLWithPath: home + "/.netrc"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: home + "/.netrc")
    }

    /// moto's S3 with signatures checked: the key and secret only in `~/.netrc` put the object;
    /// a wrong secret in the environment wins over the right one in the file (refused, nothing put).
    @Test func s3TakesTheEndpointHostsLoginAndTheEnvironmentWins() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let repo = try project()
        try writeNetrc(repo, "machine 127.0.0.1 login \(server.accessKeyID) password \(server.secretAccessKey)\n")
        let place = ["AWS_ENDPOINT_URL_S3": server.endpoint, "AWS_REGION": "us-east-1"]

        let wrong = try await repo.shiplaneAsync(["upload"], environment: place.merging([
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": "not-the-secret"]) { $1 })
        #expect(wrong.status != 0 && wrong.all.contains("SignatureDoesNotMatch"), "the environment wins: \(wrong.all)")
        #expect(try server.contents().objects.isEmpty)

        let fromFile = try await repo.shiplaneAsync(["upload"], environment: place)
        #expect(fromFile.status == 0, "\(fromFile.all)")
        #expect(try server.contents().objects["netrc/notes.txt"]?["sha256"] as? String == SHA256.hex(of: Array("release notes\n".utf8)))
        #expect(!fromFile.all.contains(server.secretAccessKey), "the secret from the file is redacted")

        try writeNetrc(repo, "machine elsewhere.example.com login x password y\n")
        let none = try await repo.shiplaneAsync(["upload", "--dry-run"], environment: place)
        #expect(none.status != 0 && none.all.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set")
                && none.all.contains("a login for 127.0.0.1 in"), "\(none.all)")
    }

    /// A registry asking for HTTP Basic: the login in `~/.netrc` for its host publishes; a wrong
    /// login in the environment wins over the file's (401, nothing published).
    @Test func theRegistryTakesItsHostsLoginAndTheEnvironmentWins() async throws {
        let registry = FakeSwiftRegistry()
        registry.basicLogin = "acme-bot:registry-s3cret"
        try await registry.start()
        defer { registry.stop() }
        let repo = try project()
        try writeNetrc(repo, "machine 127.0.0.1\n  login acme-bot\n  password registry-s3cret\n")

        let wrong = try await repo.shiplaneAsync(["publish"], environment: [
            "REGISTRY": registry.baseURL, "SWIFTPM_REGISTRY_LOGIN": "acme-bot", "SWIFTPM_REGISTRY_PASSWORD": "wrong"])
        #expect(wrong.status != 0 && wrong.all.contains("401"), "the environment wins: \(wrong.all)")
        #expect(registry.release("acme.Rocket", "1.2.0") == nil)

        let fromFile = try await repo.shiplaneAsync(["publish"], environment: ["REGISTRY": registry.baseURL])
        #expect(fromFile.status == 0, "\(fromFile.all)")
        #expect(registry.release("acme.Rocket", "1.2.0") != nil)
        #expect(!fromFile.all.contains("registry-s3cret"))
        #expect(registry.violations.isEmpty, "\(registry.violations)")
    }
}
