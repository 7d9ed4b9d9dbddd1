import Foundation
import Testing
@testable import Shiplane

private let imageKillLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.pushImage(["/usr/local/bin/app": "dist/app"], to: "\(lane.environment["REGISTRY"] ?? "")/acme/app", version: "1.2.0",
                                 tags: ["latest"], entrypoint: ["/usr/local/bin/app"], chunkSize: 1 << 20,
                                 overwrite: lane.environment["OVERWRITE"] == "1")
    }
}
"""#

/// The `shiplane` binary SIGKILLed (itself and its lane program, as a dead CI runner) while it
/// pushes an image to Debian's docker-registry, then the same command from a fresh clone (the
/// build's files made again, as a CI job makes them): one image at the tags, nothing sent twice.
@Suite("OCI images: the shiplane binary killed mid-push to docker-registry, re-run from a fresh clone", .serialized, .offThePool)
struct ImageKillTests {
    /// 8 MiB that gzip cannot shrink (a 64 KiB random block repeated: further apart than
    /// deflate's 32 KiB window), so the layer goes up in 8 chunks of 1 MiB and the kill lands mid-upload.
    static let binary: Data = {
        var generator = SeededGenerator(seed: 4141)
        let block = generator.bytes(64 << 10)
        var binary = Data(capacity: 128 * block.count)
        for _ in 0..<128 { binary.append(block) }
        return binary
    }()

    private func project() throws -> (repo: TemporaryRepository, origin: String) {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", imageKillLane)
        try repo.write(".gitignore", "dist/\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        let origin = repo.root + "/origin.git"
        try repo.git("init", "-q", "--bare", "-b", "main", origin)
        try repo.git("push", "-q", origin, "main")
        return (repo, origin)
    }

    /// A new clone of `origin` with the build's file in `dist/app`.
    private func clone(_ repo: TemporaryRepository, _ origin: String) throws -> String {
        let folder = repo.root + "/clone-\(UUID().uuidString.prefix(8))"
        try repo.git("clone", "-q", origin, folder)
        try FileManager.default.createDirectory(atPath: folder + "/dist", withIntermediateDirectories: true)
        try Self.binary.write(to: URL(fileURLWithPath: folder + "/dist/app"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/dist/app")
        return folder
    }

    /// The registry's storage: upload sessions with bytes in them, and the tags it holds.
    private func uploadsWithBytes(_ registry: RealRegistry) -> Int {
        let uploads = registry.folder + "/data/docker/registry/v2/repositories/acme/app/_uploads"
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []
        return sessions.filter { (((try? FileManager.default.attributesOfItem(atPath: "\(uploads)/\($0)/data"))?[.size] as? Int) ?? 0) > 0 }.count
    }

    private func hasTag(_ registry: RealRegistry, _ tag: String) -> Bool {
        FileManager.default.fileExists(atPath: registry.folder + "/data/docker/registry/v2/repositories/acme/app/_manifests/tags/\(tag)/current/link")
    }

    /// `GET /v2/acme/app/tags/list` through skopeo: the tags the registry holds.
    private func tags(_ registry: RealRegistry) throws -> [String] {
        let listed = try registry.skopeo(["list-tags", "--tls-verify=false", "docker://\(registry.host)/acme/app"])
        guard listed.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any] else { return [] }
        return (object["Tags"] as? [String] ?? []).sorted()
    }

    /// Killed in the middle of the layer's chunked upload (the registry took the first 1 MiB
    /// PATCH and its answer is held by a loopback proxy, so the run is inside the upload when the
    /// kill lands, however loaded the machine), and (second case) once the version's tag is in,
    /// with `latest` maybe not: the fresh clone's run (straight to the registry) ends with both
    /// tags at the one image skopeo reads, and a further run sends nothing.
    @Test(arguments: ["mid-blob", "after-version-tag"])
    func killedMidPushThenAFreshCloneFinishesOnce(moment: String) async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let proxy = try HoldingProxy(to: registry.port, holding: "PATCH", pathContaining: "/blobs/uploads/")
        defer { proxy.stop() }
        let (repo, origin) = try project()
        let environment = repo.environment.merging(registry.environment) { $1 }.merging(["REGISTRY": registry.host]) { $1 }
        let first = try clone(repo, origin)
        let run = try SupervisedRun(["image"], in: first, environment: environment.merging(["REGISTRY": moment == "mid-blob" ? proxy.host : registry.host]) { $1 })
        if moment == "mid-blob" {
            run.wait { proxy.holding && uploadsWithBytes(registry) > 0 }
            #expect(proxy.holding, "the first PATCH went through and its answer is held")
            #expect(uploadsWithBytes(registry) > 0, "the layer's upload had begun")
        } else {
            run.wait { hasTag(registry, "1.2.0") }
            #expect(hasTag(registry, "1.2.0"), "the version's manifest was put")
        }
        try run.killEverything()
        let killedAt = try tags(registry)
        if moment == "mid-blob" { #expect(killedAt.isEmpty, "no manifest yet: \(killedAt)") }

        let fresh = try clone(repo, origin)
        let again = try await runProgramAsync(shiplaneBinary, ["image"], in: fresh, environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(try tags(registry) == ["1.2.0", "latest"])
        let digest = try #require(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String)
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == digest, "one image at both tags")
        if moment == "after-version-tag" {
            #expect(again.all.contains("1.2.0") && !again.all.contains("already points at"), "the same build, found at the tag: \(again.all)")
        }

        let third = try await runProgramAsync(shiplaneBinary, ["image"], in: fresh, environment: environment)
        #expect(third.status == 0, "\(third.all)")
        #expect(third.all.contains("already point at \(digest): nothing sent"), "\(third.all)")
        #expect(!again.all.contains("s3cret-registry-pass") && !third.all.contains("s3cret-registry-pass"))
    }

    /// Killed inside the manifest PUT: the registry stored the version's manifest and tag, and
    /// its answer is held (a loopback proxy in front of docker-registry), so the run never heard
    /// it. The fresh clone's run (straight to the registry) finds the tag at the same image, puts
    /// `latest`, and ends with one correct manifest at both tags, which skopeo reads and copies
    /// out whole; a further run sends nothing.
    @Test func killedInsideTheManifestPutThenAFreshCloneFinishesOnce() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let proxy = try HoldingProxy(to: registry.port, holding: "PUT", pathContaining: "/manifests/")
        defer { proxy.stop() }
        let (repo, origin) = try project()
        let base = repo.environment.merging(registry.environment) { $1 }
        let first = try clone(repo, origin)
        let run = try SupervisedRun(["image"], in: first, environment: base.merging(["REGISTRY": proxy.host]) { $1 })
        run.wait { proxy.holding && hasTag(registry, "1.2.0") }
        #expect(proxy.holding && hasTag(registry, "1.2.0"), "the registry took the version's manifest; its answer is held")
        try run.killEverything()
        #expect(try tags(registry) == ["1.2.0"], "only the version's tag, put inside the held PUT")
        let killedAt = try #require(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String)

        let environment = base.merging(["REGISTRY": registry.host]) { $1 }
        let fresh = try clone(repo, origin)
        let again = try await runProgramAsync(shiplaneBinary, ["image"], in: fresh, environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(!again.all.contains("already points at"), "the same build, found at the tag: \(again.all)")
        #expect(try tags(registry) == ["1.2.0", "latest"])
        #expect(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String == killedAt, "the manifest the killed run put")
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == killedAt, "one image at both tags")
        let copied = repo.root + "/copied"
        let copy = try registry.skopeo(["copy", "--src-tls-verify=false", "docker://\(registry.host)/acme/app:latest", "dir:" + copied])
        #expect(copy.status == 0, "skopeo reads the image whole: \(copy.output)")

        let third = try await runProgramAsync(shiplaneBinary, ["image"], in: fresh, environment: environment)
        #expect(third.status == 0 && third.all.contains("already point at \(killedAt): nothing sent"), "\(third.all)")
        #expect(!again.all.contains("s3cret-registry-pass") && !third.all.contains("s3cret-registry-pass"))
    }

    /// The version's tag at another image (another build of 1.2.0) is an error that sends nothing;
    /// `overwrite: true` moves it (and `latest`), as documented.
    @Test func theVersionTagAtAnotherImageIsAnErrorUnlessOverwrite() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let (repo, origin) = try project()
        let environment = repo.environment.merging(registry.environment) { $1 }.merging(["REGISTRY": registry.host]) { $1 }
        let folder = try clone(repo, origin)
        let pushed = try await runProgramAsync(shiplaneBinary, ["image"], in: folder, environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        let earlier = try #require(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String)

        try Data("another build\n".utf8).write(to: URL(fileURLWithPath: folder + "/dist/app"))
        let refused = try await runProgramAsync(shiplaneBinary, ["image"], in: folder, environment: environment)
        #expect(refused.status != 0)
        #expect(refused.all.contains("\(registry.host)/acme/app:1.2.0 already points at \(earlier)"), "\(refused.all)")
        #expect(refused.all.contains("overwrite: true"), "\(refused.all)")
        #expect(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String == earlier)
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == earlier, "latest did not move either")

        let moved = try await runProgramAsync(shiplaneBinary, ["image"], in: folder, environment: environment.merging(["OVERWRITE": "1"]) { $1 })
        #expect(moved.status == 0, "\(moved.all)")
        let now = try #require(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String)
        let latest = try registry.inspect("acme/app:latest")?["Digest"] as? String
        #expect(now != earlier && latest == now)
    }
}
