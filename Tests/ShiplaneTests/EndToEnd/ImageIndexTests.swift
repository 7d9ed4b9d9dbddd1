import Foundation
import Testing
@testable import Shiplane

private let indexLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.pushImage(["/usr/local/bin/app": "dist/amd64/app"], to: "\(lane.environment["REGISTRY"] ?? "")/acme/app",
                                 version: lane.environment["VERSION"] ?? "1.2.0",
                                 tags: ["latest"], platform: "linux/amd64", entrypoint: ["/usr/local/bin/app"],
                                 morePlatforms: ["linux/arm64": ["/usr/local/bin/app": "dist/arm64/app"]])
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
        if lane.environment["HOLD"] == "1" { try await lane.sh("sleep", "110") }
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

    // MARK: - Rollback of an index

    private func storage(_ registry: RealRegistry) -> String { registry.folder + "/data/docker/registry/v2/repositories/acme/app/_manifests" }

    /// The manifests (indexes and platforms' manifests) the registry holds, from its storage.
    private func revisions(_ registry: RealRegistry) -> Set<String> {
        let folder = storage(registry) + "/revisions/sha256"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Set(names.filter { FileManager.default.fileExists(atPath: "\(folder)/\($0)/link") })
    }

    /// Where a tag points, from the registry's storage (nil: no such tag).
    private func link(_ registry: RealRegistry, _ tag: String) -> String? {
        try? String(contentsOfFile: storage(registry) + "/tags/\(tag)/current/link", encoding: .utf8)
    }

    private func tags(_ registry: RealRegistry) throws -> [String] {
        let listed = try registry.skopeo(["list-tags", "--tls-verify=false", "docker://\(registry.host)/acme/app"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
        return (object?["Tags"] as? [String] ?? []).sorted()
    }

    private func copiesWhole(_ registry: RealRegistry, _ tag: String) throws -> Bool {
        let copy = NSTemporaryDirectory() + "shiplane-index-copy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let copied = try registry.skopeo(["copy", "--all", "--src-tls-verify=false", "docker://\(registry.host)/acme/app:\(tag)", "dir:" + copy])
        return copied.status == 0
    }

    /// A run of 1.3.0 that pushed both platforms' manifests, the index, 1.3.0 (new) and latest
    /// (moved from 1.2.0's index) and then failed: the rollback points latest back at 1.2.0's
    /// index and deletes 1.3.0's index and its platforms' manifests, so the registry holds what it
    /// held before. Then a run killed at the same moment, after which someone else tagged its
    /// index `edge`: `shiplane rollback` points latest back, and keeps the index (deleting it by
    /// digest would take `edge`) and the platforms' manifests it lists, saying so.
    @Test func aFailedRunPutsTheTagsBackAndKeepsWhatAnotherTagStillNames() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", indexLane)
        try repo.write(".gitignore", "dist/\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        try repo.write("dist/amd64/app", "the amd64 build\n")
        try repo.write("dist/arm64/app", "the arm64 build\n")
        let environment = repo.environment.merging(registry.environment) { $1 }.merging(["REGISTRY": registry.host]) { $1 }
        let first = try await runProgramAsync(shiplaneBinary, ["image"], in: repo.path, environment: environment)
        #expect(first.status == 0, "\(first.all)")
        let earlier = try #require(link(registry, "latest"))
        let before = revisions(registry)
        #expect(before.count == 3, "1.2.0's index and its two platforms' manifests: \(before)")

        try repo.write("dist/amd64/app", "the amd64 build of 1.3.0\n")
        try repo.write("dist/arm64/app", "the arm64 build of 1.3.0\n")
        let next = environment.merging(["VERSION": "1.3.0"]) { $1 }
        let failed = try await runProgramAsync(shiplaneBinary, ["image"], in: repo.path, environment: next.merging(["FAIL": "1"]) { $1 })
        #expect(failed.status != 0)
        #expect(try tags(registry) == ["1.2.0", "latest"], "\(failed.all)")
        #expect(link(registry, "latest") == earlier, "latest points back at 1.2.0's index")
        #expect(revisions(registry) == before, "1.3.0's index and platforms' manifests deleted: \(failed.all)")
        #expect(try copiesWhole(registry, "latest"))

        let run = try SupervisedRun(["image"], in: repo.path, environment: next.merging(["HOLD": "1"]) { $1 })
        // A link file is written in place: wait for a whole digest ("sha256:" and 64 hex digits) at both tags.
        run.wait { link(registry, "1.3.0")?.count == 71 && link(registry, "latest")?.count == 71 && link(registry, "latest") != earlier }
        try run.killEverything()
        let pushed = try #require(link(registry, "1.3.0"))
        #expect(link(registry, "latest") == pushed, "the run moved latest before it was killed")
        let tagged = try registry.skopeo(["copy", "--all", "--src-tls-verify=false", "--dest-tls-verify=false", "--dest-creds", "shiplane:s3cret-registry-pass",
                                          "docker://\(registry.host)/acme/app:1.3.0", "docker://\(registry.host)/acme/app:edge"])
        #expect(tagged.status == 0, "\(tagged.output)")
        #expect(link(registry, "edge") == pushed, "skopeo kept the index's digest")

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: repo.path, environment: environment)
        #expect(link(registry, "latest") == earlier, "latest points back at 1.2.0's index: \(rollback.all)")
        #expect(link(registry, "1.3.0") == pushed && link(registry, "edge") == pushed, "\(rollback.all)")
        #expect(rollback.all.contains("\(registry.host)/acme/app:edge points at it too"), "\(rollback.all)")
        #expect(rollback.all.contains("the image index \(pushed) that lists it is still in the registry"), "\(rollback.all)")
        #expect(revisions(registry).count == 6, "both indexes and their platforms' manifests")
        #expect(try copiesWhole(registry, "edge"), "edge's index whole")
        #expect(try copiesWhole(registry, "latest"))
        #expect(!rollback.all.contains("s3cret-registry-pass") && !failed.all.contains("s3cret-registry-pass"))
    }
}
