import Foundation
import Testing
@testable import Shiplane

private let mountLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        let registry = lane.environment["REGISTRY"] ?? ""
        try await lane.pushImage(["/usr/local/bin/app": "dist/app"], to: "\(registry)/\(lane.environment["REPO"] ?? "acme/app")", version: "1.2.0",
                                 tags: ["latest"], entrypoint: ["/usr/local/bin/app"], mountFrom: lane.environment["MOUNT"])
    }
}
"""#

/// Cross-repository blob mounts against Debian's docker-registry: the same build pushed to
/// acme/base and then to acme/app with `mountFrom: "acme/base"` is mounted (201, no bytes sent);
/// mounting from a repository that lacks the blobs gets 202 and an upload session, and the bytes
/// go up in it. skopeo pulls both back whole.
@Suite("OCI images: cross-repository blob mounts on docker-registry, read back with skopeo", .serialized, .offThePool)
struct ImageMountTests {
    @Test func blobsInAnotherRepositoryAreMountedAndA202FallsBackToUploading() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", mountLane)
        try repo.write(".gitignore", "dist/\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        var generator = SeededGenerator(seed: 4143)
        try FileManager.default.createDirectory(atPath: repo.path + "/dist", withIntermediateDirectories: true)
        try generator.bytes(2 << 20).write(to: URL(fileURLWithPath: repo.path + "/dist/app"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: repo.path + "/dist/app")
        let environment = repo.environment.merging(registry.environment) { $1 }.merging(["REGISTRY": registry.host]) { $1 }

        let base = try await runProgramAsync(shiplaneBinary, ["image", "--verbose"], in: repo.path, environment: environment.merging(["REPO": "acme/base"]) { $1 })
        #expect(base.status == 0, "\(base.all)")
        let baseDigest = try #require(try registry.inspect("acme/base:1.2.0")?["Digest"] as? String)
        let layers = try #require(try registry.inspect("acme/base:1.2.0")?["Layers"] as? [String])

        let dry = try await runProgramAsync(shiplaneBinary, ["image", "--dry-run"], in: repo.path, environment: environment.merging(["MOUNT": "acme/base"]) { $1 })
        #expect(dry.status == 0 && dry.all.contains("asking to mount each from acme/base first"), "\(dry.all)")

        let mounted = try await runProgramAsync(shiplaneBinary, ["image", "--verbose"], in: repo.path, environment: environment.merging(["MOUNT": "acme/base"]) { $1 })
        #expect(mounted.status == 0, "\(mounted.all)")
        #expect(mounted.all.contains("mounted \(layers[0]) from acme/base"), "\(mounted.all)")
        #expect(!mounted.all.contains("sent sha256:"), "no blob uploaded: \(mounted.all)")
        #expect(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String == baseDigest, "the same build, the same digest")
        let copy = NSTemporaryDirectory() + "shiplane-mount-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        let copied = try registry.skopeo(["copy", "--src-tls-verify=false", "docker://\(registry.host)/acme/app:1.2.0", "dir:" + copy + "/app"])
        #expect(copied.status == 0, "\(copied.output)")
        let unpacked = try runTool(["tar", "-xzf", copy + "/app/" + layers[0].dropFirst("sha256:".count), "-C", copy, "usr/local/bin/app"])
        #expect(unpacked.status == 0, "\(unpacked.output)")
        let built = try Data(contentsOf: URL(fileURLWithPath: repo.path + "/dist/app"))
        #expect(FileManager.default.contents(atPath: copy + "/usr/local/bin/app") == built, "the mounted layer unpacks to the build")

        // acme/empty holds nothing: docker-registry answers the mount with 202 and an upload session.
        let fallback = try await runProgramAsync(shiplaneBinary, ["image", "--verbose"], in: repo.path,
                                                 environment: environment.merging(["REPO": "acme/other", "MOUNT": "acme/empty"]) { $1 })
        #expect(fallback.status == 0, "\(fallback.all)")
        #expect(fallback.all.contains("sent \(layers[0])") && !fallback.all.contains("mounted "), "\(fallback.all)")
        #expect(try registry.inspect("acme/other:latest")?["Digest"] as? String == baseDigest)
        let other = try registry.skopeo(["copy", "--src-tls-verify=false", "docker://\(registry.host)/acme/other:latest", "dir:" + copy + "/other"])
        #expect(other.status == 0, "\(other.output)")

        let again = try await runProgramAsync(shiplaneBinary, ["image"], in: repo.path, environment: environment.merging(["MOUNT": "acme/base"]) { $1 })
        #expect(again.all.contains("already point at \(baseDigest): nothing sent"), "\(again.all)")
        let wrong = try await runProgramAsync(shiplaneBinary, ["image"], in: repo.path, environment: environment.merging(["MOUNT": "acme/app"]) { $1 })
        #expect(wrong.status != 0 && wrong.all.contains("mountFrom acme/app is not another repository"), "\(wrong.all)")
        #expect(!mounted.all.contains("s3cret-registry-pass") && !fallback.all.contains("s3cret-registry-pass"))
    }
}
