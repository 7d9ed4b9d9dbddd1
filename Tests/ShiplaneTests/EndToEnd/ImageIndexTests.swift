import Foundation
import Testing
@testable import Shiplane

private let indexLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.pushImage(["/usr/local/bin/app": "dist/amd64/app"], to: "\(lane.environment["REGISTRY"] ?? "")/acme/app", version: "1.2.0",
                                 tags: ["latest"], platform: "linux/amd64", entrypoint: ["/usr/local/bin/app"],
                                 morePlatforms: ["linux/arm64": ["/usr/local/bin/app": "dist/arm64/app"]])
    }
}
"""#

/// A multi-architecture image: one manifest per platform from the run's files and an image index
/// at the tags, pushed by the shiplane binary to Debian's docker-registry and read by skopeo.
@Suite("OCI image index (multi-architecture) pushed to docker-registry, read with skopeo", .serialized, .offThePool)
struct ImageIndexTests {
    @Test func anIndexOfTwoPlatformsIsPushedSkopeoCopiesAllAndARerunSendsNothing() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", indexLane)
        try repo.write("dist/amd64/app", "the amd64 build\n")
        try repo.write("dist/arm64/app", "the arm64 build\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        let environment = registry.environment.merging(["REGISTRY": registry.host]) { $1 }
        let pushed = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")

        let raw = try registry.skopeo(["inspect", "--raw", "--tls-verify=false", "docker://\(registry.host)/acme/app:1.2.0"])
        #expect(raw.status == 0, "\(raw.output)")
        let index = try #require(try JSONSerialization.jsonObject(with: Data(raw.output.utf8)) as? [String: Any])
        #expect(index["mediaType"] as? String == "application/vnd.oci.image.index.v1+json")
        let manifests = try #require(index["manifests"] as? [[String: Any]])
        let platforms = manifests.compactMap { ($0["platform"] as? [String: Any]).map { "\($0["os"] ?? "")/\($0["architecture"] ?? "")" } }
        #expect(platforms == ["linux/amd64", "linux/arm64"])
        let digest = OCIImage.digest(of: Array(raw.output.utf8))
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == digest, "latest names the same index")

        // skopeo copies every platform; each platform's layer unpacks to its own build.
        let copy = NSTemporaryDirectory() + "shiplane-index-copy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        let copied = try registry.skopeo(["copy", "--all", "--src-tls-verify=false", "docker://\(registry.host)/acme/app:1.2.0", "dir:\(copy)/all"])
        #expect(copied.status == 0, "\(copied.output)")
        for (entry, architecture) in zip(manifests, ["amd64", "arm64"]) {
            let manifestDigest = try #require(entry["digest"] as? String)
            let manifest = try registry.skopeo(["inspect", "--raw", "--tls-verify=false", "docker://\(registry.host)/acme/app@\(manifestDigest)"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(manifest.output.utf8)) as? [String: Any])
            let layer = try #require((object["layers"] as? [[String: Any]])?.first?["digest"] as? String)
            let layerPath = copy + "/all/" + layer.dropFirst("sha256:".count)
            let listed = try runTool(["tar", "-xzOf", layerPath, "usr/local/bin/app"])
            #expect(listed.output == "the \(architecture) build\n", "\(listed.output)")
            let inspected = try registry.skopeo(["inspect", "--tls-verify=false", "--override-arch", architecture, "docker://\(registry.host)/acme/app:1.2.0"])
            #expect(inspected.output.contains("\"Architecture\": \"\(architecture)\""), "\(inspected.output)")
        }

        let again = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already point at \(digest): nothing sent"), "\(again.all)")
    }
}
