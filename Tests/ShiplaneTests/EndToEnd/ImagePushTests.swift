import Foundation
import Testing
@testable import Shiplane

private let imageLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        let registry = lane.environment["REGISTRY"] ?? ""
        let chunk = lane.environment["CHUNK"].flatMap(Int.init)
        try await lane.pushImage(["/usr/local/bin/app": "dist/app", "/etc/app/README": "dist/README"],
                                 to: "\(registry)/acme/app", version: lane.environment["VERSION"] ?? "1.2.0", tags: ["latest"], platform: "linux/arm64",
                                 entrypoint: ["/usr/local/bin/app"], source: "https://github.com/acme/app", chunkSize: chunk)
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}
"""#

@Suite("OCI images pushed by the shiplane binary to Debian's docker-registry, read back with skopeo", .serialized, .offThePool)
struct ImagePushTests {
    private func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", imageLane)
        try repo.write(".gitignore", "dist/\n")
        var generator = SeededGenerator(seed: 41)
        let binary = generator.bytes(3 << 20)
        try FileManager.default.createDirectory(atPath: repo.path + "/dist", withIntermediateDirectories: true)
        try binary.write(to: URL(fileURLWithPath: repo.path + "/dist/app"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: repo.path + "/dist/app")
        try repo.write("dist/README", "the app\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        return repo
    }

    @Test(arguments: [nil, "1048576"])
    func pushesAnImageSkopeoReadsBackAndARerunSendsNothing(chunk: String?) async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try repository()
        var environment = registry.environment
        environment["REGISTRY"] = registry.host
        if let chunk { environment["CHUNK"] = chunk }
        let pushed = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        #expect(!pushed.all.contains("s3cret-registry-pass"))
        #expect(!(repo.read(".git/shiplane/run.json") ?? "").contains("s3cret-registry-pass"))

        let inspected = try #require(try registry.inspect("acme/app:1.2.0"), "skopeo inspect reads the image")
        let digest = try #require(inspected["Digest"] as? String)
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == digest)
        #expect(inspected["Architecture"] as? String == "arm64" && inspected["Os"] as? String == "linux")
        let labels = inspected["Labels"] as? [String: String] ?? [:]
        #expect(labels["org.opencontainers.image.version"] == "1.2.0")
        #expect(labels["org.opencontainers.image.source"] == "https://github.com/acme/app")
        #expect(labels["org.opencontainers.image.revision"] == (try repo.git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)))
        let config = try #require(try registry.inspect("acme/app:1.2.0", config: true))
        #expect((config["config"] as? [String: Any])?["Entrypoint"] as? [String] == ["/usr/local/bin/app"])

        // skopeo copies the image to a folder; the layer unpacks (with tar) to the very files.
        let copy = NSTemporaryDirectory() + "shiplane-image-copy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        let copied = try registry.skopeo(["copy", "--src-tls-verify=false", "docker://\(registry.host)/acme/app:1.2.0", "dir:\(copy)/image"])
        #expect(copied.status == 0, "\(copied.output)")
        let manifestData = try Data(contentsOf: URL(fileURLWithPath: copy + "/image/manifest.json"))
        #expect(SHA256.hex(of: manifestData) == digest.dropFirst("sha256:".count), "the manifest's bytes have the digest the tag names")
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        #expect(manifest["mediaType"] as? String == "application/vnd.oci.image.manifest.v1+json")
        let layers = try #require(manifest["layers"] as? [[String: Any]])
        #expect(layers.count == 1)
        let layerDigest = try #require(layers.first?["digest"] as? String)
        let layerPath = copy + "/image/" + layerDigest.dropFirst("sha256:".count)
        #expect(SHA256.hex(of: try Data(contentsOf: URL(fileURLWithPath: layerPath))) == layerDigest.dropFirst("sha256:".count))
        try FileManager.default.createDirectory(atPath: copy + "/root", withIntermediateDirectories: true)
        let listed = try runTool(["tar", "-tvzf", layerPath])
        #expect(listed.output.contains("-rwxr-xr-x 0/0") && listed.output.contains("1970-01-01"), "\(listed.output)")
        #expect(try runTool(["tar", "-xzf", layerPath, "-C", copy + "/root"]).status == 0)
        #expect(FileManager.default.contents(atPath: copy + "/root/usr/local/bin/app") == FileManager.default.contents(atPath: repo.path + "/dist/app"))
        #expect(FileManager.default.contents(atPath: copy + "/root/etc/app/README") == Data("the app\n".utf8))
        #expect(FileManager.default.isExecutableFile(atPath: copy + "/root/usr/local/bin/app"))

        let again = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already point at \(digest): nothing sent"), "\(again.all)")
    }

    @Test func aFailedLaneRemovesTheTagsItPushedAndAWrongPasswordIsAClearError() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try repository()
        var environment = registry.environment
        environment["REGISTRY"] = registry.host

        let wrong = try await repo.shiplaneAsync(["image"], environment: environment.merging(["REGISTRY_PASSWORD": "wrong-password-value"]) { $1 })
        #expect(wrong.status != 0)
        #expect(wrong.all.contains("HTTP 401") && wrong.all.contains("refused the credentials"), "\(wrong.all)")
        #expect(!wrong.all.contains("wrong-password-value"))
        #expect(try registry.inspect("acme/app:1.2.0") == nil)

        let dry = try await repo.shiplaneAsync(["image", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("would push layer sha256:") && dry.all.contains("\(registry.host)/acme/app:1.2.0 (new)"), "\(dry.all)")
        #expect(try registry.inspect("acme/app:1.2.0") == nil, "a dry run sends nothing")

        let failed = try await repo.shiplaneAsync(["image"], environment: environment.merging(["FAIL": "1"]) { $1 })
        #expect(failed.status != 0)
        #expect(try registry.inspect("acme/app:1.2.0") == nil, "rolled back: \(failed.all)")
        #expect(try registry.inspect("acme/app:latest") == nil)
    }

    /// `latest` moved to a new image by a lane that then fails points back at the earlier image;
    /// the new version's tag is deleted. A registry that refuses deletes keeps it, and says so.
    @Test func rollbackPutsLatestBackAndARegistryRefusingDeletesKeepsTheTag() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try repository()
        var environment = registry.environment
        environment["REGISTRY"] = registry.host
        let first = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(first.status == 0, "\(first.all)")
        let earlier = try #require(try registry.inspect("acme/app:latest")?["Digest"] as? String)
        try repo.write("dist/README", "the app, changed\n")
        let failed = try await repo.shiplaneAsync(["image"], environment: environment.merging(["VERSION": "1.3.0", "FAIL": "1"]) { $1 })
        #expect(failed.status != 0)
        #expect(try registry.inspect("acme/app:1.3.0") == nil, "\(failed.all)")
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == earlier, "latest points back at 1.2.0's image")
        #expect(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String == earlier)

        let refusing = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass", deletes: false)
        defer { refusing.stop() }
        environment["REGISTRY"] = refusing.host
        let kept = try await repo.shiplaneAsync(["image"], environment: environment.merging(["FAIL": "1"]) { $1 })
        #expect(kept.status != 0)
        #expect(kept.all.contains("stays: the registry refuses deletes"), "\(kept.all)")
        #expect(try refusing.inspect("acme/app:1.2.0") != nil)
    }
}
