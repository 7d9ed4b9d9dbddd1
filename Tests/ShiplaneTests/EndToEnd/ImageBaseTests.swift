import Foundation
import Testing
@testable import Shiplane

private let baseLane = #"""
import Shiplane

struct Image: Lane {
    func run(_ lane: LaneContext) async throws {
        if lane.environment["RELEASE_TAG"] == "1" {
            try lane.addGitTag("v1.2.0")
            try await lane.push(tags: ["v1.2.0"])
        }
        var files: [String: any ArtifactConvertible] = ["/usr/local/bin/app": "dist/amd64/app"]
        if lane.environment["RESOURCES"] == "1" { files["/usr/share/app"] = "res" }
        try await lane.pushImage(files, to: "\(lane.environment["REGISTRY"] ?? "")/\(lane.environment["IMAGE"] ?? "acme/app")",
                                 version: "1.2.0", from: lane.environment["BASE"], tags: ["latest"],
                                 platform: lane.environment["PLATFORM"] ?? "linux/amd64", entrypoint: ["/usr/local/bin/app"], labels: ["team": "release"],
                                 morePlatforms: lane.environment["ONE_PLATFORM"] == "1" ? [:] : ["linux/arm64": ["/usr/local/bin/app": "dist/arm64/app"]])
    }
}
"""#

/// Writes an OCI layout (an index of linux/amd64 and linux/arm64/v8 images, or one platform) of a
/// base image with a config as a Dockerfile build leaves it (Env, Cmd, WorkingDir, User, Labels,
/// history), and prints each platform's layer digest and diff_id and the index's digest as JSON.
private let makeBase = #"""
import gzip, hashlib, io, json, os, sys, tarfile
out, tag, marker, archs, big = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(","), int(sys.argv[5])
os.makedirs(out + "/blobs/sha256", exist_ok=True)
def blob(data):
    digest = hashlib.sha256(data).hexdigest()
    with open(out + "/blobs/sha256/" + digest, "wb") as f:
        f.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}
entries, facts = [], {}
for arch in archs:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for folder in ["etc", "srv", "usr", "usr/bin", "usr/share"]:
            info = tarfile.TarInfo(folder); info.type = tarfile.DIRTYPE; info.mode = 0o755; t.addfile(info)
        def add(name, data, mode=0o644):
            info = tarfile.TarInfo(name); info.size = len(data); info.mode = mode; t.addfile(info, io.BytesIO(data))
        add("etc/base-release", ("base %s %s\n" % (marker, arch)).encode())
        add("usr/bin/tool", b"#!/bin/sh\necho tool\n", 0o755)
        if big:
            add("usr/share/big.bin", os.urandom(big))
    tar = raw.getvalue()
    layer = blob(gzip.compress(tar, compresslevel=1, mtime=0))
    diff = "sha256:" + hashlib.sha256(tar).hexdigest()
    platform = {"architecture": arch, "os": "linux"}
    if arch == "arm64": platform["variant"] = "v8"
    config = dict(platform, created="2024-01-01T00:00:00Z",
                  config={"Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "BASE_MARKER=" + marker], "Cmd": ["/usr/bin/tool"],
                          "WorkingDir": "/srv", "User": "1000", "Labels": {"base.name": "os"}},
                  rootfs={"type": "layers", "diff_ids": [diff]},
                  history=[{"created": "2024-01-01T00:00:00Z", "created_by": "base " + marker}])
    config_blob = blob(json.dumps(config).encode())
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": dict(config_blob, mediaType="application/vnd.oci.image.config.v1+json"),
                "layers": [dict(layer, mediaType="application/vnd.oci.image.layer.v1.tar+gzip")]}
    entries.append(dict(blob(json.dumps(manifest).encode()), mediaType="application/vnd.oci.image.manifest.v1+json", platform=platform))
    facts[arch] = {"layer": layer["digest"], "diff": diff}
if len(entries) > 1:
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": entries}
    top = dict(blob(json.dumps(index).encode()), mediaType="application/vnd.oci.image.index.v1+json")
else:
    top = {k: v for k, v in entries[0].items() if k != "platform"}
facts["top"] = top["digest"]
top["annotations"] = {"org.opencontainers.image.ref.name": tag}
with open(out + "/index.json", "w") as f:
    json.dump({"schemaVersion": 2, "manifests": [top]}, f)
with open(out + "/oci-layout", "w") as f:
    f.write('{"imageLayoutVersion": "1.0.0"}')
print(json.dumps(facts))
"""#

/// A base image's facts: each platform's layer digest and diff_id, and the top digest (the index).
struct BaseImageFacts {
    var layers: [String: String]
    var diffIDs: [String: String]
    var top: String

    /// Makes the base image's OCI layout with `marker` in its files and Env and copies it with
    /// skopeo to `registry` at `base/os:stable`; `bigBytes` random bytes more in its layer.
    static func push(to registry: RealRegistry, marker: String, architectures: [String] = ["amd64", "arm64"], bigBytes: Int = 0,
                     repository: String = "base/os", tag: String = "stable") throws -> BaseImageFacts {
        let layout = NSTemporaryDirectory() + "shiplane-base-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: layout) }
        let made = try runTool(["python3", "-c", makeBase, layout, tag, marker, architectures.joined(separator: ","), String(bigBytes)])
        guard made.status == 0, let facts = try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any] else {
            throw TestFailure("the base image's layout was not made: \(made.output)")
        }
        var arguments = ["copy", "--all", "--dest-tls-verify=false"]
        if let username = registry.username, let password = registry.password { arguments += ["--dest-creds", "\(username):\(password)"] }
        let copied = try runTool(["skopeo", "--insecure-policy"] + arguments + ["oci:\(layout):\(tag)", "docker://\(registry.host)/\(repository):\(tag)"])
        guard copied.status == 0 else { throw TestFailure("skopeo did not push the base: \(copied.output)") }
        var layers: [String: String] = [:]
        var diffIDs: [String: String] = [:]
        for architecture in architectures {
            let platform = facts[architecture] as? [String: String]
            layers[architecture] = platform?["layer"]
            diffIDs[architecture] = platform?["diff"]
        }
        return BaseImageFacts(layers: layers, diffIDs: diffIDs, top: facts["top"] as? String ?? "")
    }
}

/// Images built on a base image by digest (or a tag resolved to one): pushed by the shiplane
/// binary to Debian's docker-registry, read back and unpacked with skopeo.
@Suite("OCI images on a base image, pushed to docker-registry, unpacked with skopeo", .serialized, .offThePool)
struct ImageBaseTests {
    private func project(lane: String = baseLane) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Image.swift", lane)
        try repo.write("dist/amd64/app", "the amd64 build\n")
        try repo.write("dist/arm64/app", "the arm64 build\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: the image lane")
        return repo
    }

    /// The image's platform copied by skopeo to a `dir:` and its layers unpacked in order: the
    /// root file system a container gets, and the config skopeo reads.
    private func unpack(_ registry: RealRegistry, _ reference: String, architecture: String) throws -> (root: String, config: [String: Any], layers: [String]) {
        let folder = NSTemporaryDirectory() + "shiplane-unpack-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let copied = try registry.skopeo(["copy", "--src-tls-verify=false", "--override-arch", architecture, "docker://\(registry.host)/\(reference)", "dir:\(folder)/dir"])
        guard copied.status == 0 else { throw TestFailure("skopeo copy: \(copied.output)") }
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/dir/manifest.json"))) as? [String: Any])
        let layers = (manifest["layers"] as? [[String: Any]] ?? []).compactMap { $0["digest"] as? String }
        try FileManager.default.createDirectory(atPath: folder + "/root", withIntermediateDirectories: true)
        for layer in layers {
            let unpacked = try runTool(["tar", "-xzf", folder + "/dir/" + layer.dropFirst("sha256:".count), "-C", folder + "/root"])
            guard unpacked.status == 0 else { throw TestFailure("tar: \(unpacked.output)") }
        }
        let configDigest = try #require((manifest["config"] as? [String: Any])?["digest"] as? String)
        let config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/dir/" + configDigest.dropFirst("sha256:".count)))) as? [String: Any])
        return (folder + "/root", config, layers)
    }

    private func tags(_ registry: RealRegistry, _ repository: String = "acme/app") throws -> [String] {
        let listed = try registry.skopeo(["list-tags", "--tls-verify=false", "docker://\(registry.host)/\(repository)"])
        let object = try? JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
        return (object?["Tags"] as? [String] ?? []).sorted()
    }

    private func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// A base named by tag on the same registry: the dry run resolves it to its digest; the run
    /// mounts its layers, and each platform unpacks to the base's files (of that platform) plus
    /// the built file, with the base's config merged. The same build from a copy of the base on
    /// another registry, named by digest, copies the layers and gives the same manifest digest.
    @Test func anImageOnABaseUnpacksToTheBaseAndTheBuildWithItsConfigMerged() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let other = try RealRegistry()
        defer { other.stop() }
        let base = try BaseImageFacts.push(to: registry, marker: "v1")
        let copy = try BaseImageFacts.push(to: other, marker: "v1")
        #expect(copy.top == base.top, "the same layout gives the same index digest on both registries")
        let repo = try project()
        let environment = registry.environment.merging(["REGISTRY": registry.host, "BASE": "\(registry.host)/base/os:stable"]) { $1 }

        let planned = try await repo.shiplaneAsync(["image", "--dry-run"], environment: environment)
        #expect(planned.status == 0, "\(planned.all)")
        #expect(planned.all.contains("base \(registry.host)/base/os:stable is \(base.top) now"), "\(planned.all)")
        #expect(planned.all.contains("2 of its layers"), "\(planned.all)")
        #expect(try tags(registry).isEmpty, "the dry run sent nothing")

        let pushed = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        #expect(pushed.all.contains("mounted base layer \(base.layers["amd64"] ?? "")"), "\(pushed.all)")
        #expect(pushed.all.contains("mounted base layer \(base.layers["arm64"] ?? "")"), "\(pushed.all)")
        let digest = try #require(try registry.inspect("acme/app:1.2.0")?["Digest"] as? String)

        for architecture in ["amd64", "arm64"] {
            let image = try unpack(registry, "acme/app:1.2.0", architecture: architecture)
            defer { try? FileManager.default.removeItem(atPath: (image.root as NSString).deletingLastPathComponent) }
            #expect(image.layers.count == 2 && image.layers.first == base.layers[architecture], "the base's layer, then the built one: \(image.layers)")
            #expect(read(image.root + "/etc/base-release") == "base v1 \(architecture)\n")
            #expect(read(image.root + "/usr/bin/tool") == "#!/bin/sh\necho tool\n")
            #expect(read(image.root + "/usr/local/bin/app") == "the \(architecture) build\n")
            let config = image.config["config"] as? [String: Any] ?? [:]
            #expect(config["Env"] as? [String] == ["PATH=/usr/local/bin:/usr/bin:/bin", "BASE_MARKER=v1"], "the base's Env: \(config)")
            #expect(config["WorkingDir"] as? String == "/srv" && config["User"] as? String == "1000", "\(config)")
            #expect(config["Entrypoint"] as? [String] == ["/usr/local/bin/app"] && config["Cmd"] == nil, "the entrypoint given replaces the base's Cmd: \(config)")
            let labels = config["Labels"] as? [String: String] ?? [:]
            #expect(labels["base.name"] == "os" && labels["team"] == "release" && labels["org.opencontainers.image.version"] == "1.2.0", "\(labels)")
            let diffIDs = (image.config["rootfs"] as? [String: Any])?["diff_ids"] as? [String] ?? []
            #expect(diffIDs.count == 2 && diffIDs.first == base.diffIDs[architecture], "\(diffIDs)")
            let history = image.config["history"] as? [[String: Any]] ?? []
            #expect(history.count == 2 && history.first?["created_by"] as? String == "base v1" && history.last?["created_by"] as? String == "shiplane pushImage", "\(history)")
            #expect(image.config["architecture"] as? String == architecture && image.config["created"] == nil)
        }

        let again = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(again.status == 0 && again.all.contains("already point at \(digest): nothing sent"), "\(again.all)")

        // The base on another registry (anonymous), by digest: its layers copied, the same image.
        let copied = try await repo.shiplaneAsync(["image"], environment: environment.merging(["IMAGE": "acme/copied", "BASE": "\(other.host)/base/os@\(copy.top)"]) { $1 })
        #expect(copied.status == 0, "\(copied.all)")
        #expect(copied.all.contains("copied base layer \(base.layers["amd64"] ?? "") from \(other.host)/base/os"), "\(copied.all)")
        #expect(try registry.inspect("acme/copied:1.2.0")?["Digest"] as? String == digest, "the same base by digest and the same files: the same index")
        let wholeFolder = NSTemporaryDirectory() + "shiplane-copied-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: wholeFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: wholeFolder) }
        let whole = try registry.skopeo(["copy", "--all", "--src-tls-verify=false", "docker://\(registry.host)/acme/copied:1.2.0", "dir:" + wholeFolder + "/dir"])
        #expect(whole.status == 0, "every blob is in acme/copied: \(whole.output)")
        #expect(!pushed.all.contains("s3cret-registry-pass") && !copied.all.contains("s3cret-registry-pass"))

        // The base as a Docker schema 2 manifest list (skopeo --format v2s2): its layers are
        // listed under the OCI media types, and the image unpacks the same.
        let docker = try runTool(["skopeo", "--insecure-policy", "copy", "--all", "--format", "v2s2", "--src-tls-verify=false", "--dest-tls-verify=false",
                                  "docker://\(other.host)/base/os@\(copy.top)", "docker://\(other.host)/base/docker:stable"])
        #expect(docker.status == 0, "\(docker.output)")
        let raw = try runTool(["skopeo", "inspect", "--raw", "--tls-verify=false", "docker://\(other.host)/base/docker:stable"])
        #expect(raw.output.contains("application/vnd.docker.distribution.manifest.list.v2+json"), "\(raw.output)")
        let onDocker = try await repo.shiplaneAsync(["image"], environment: environment.merging(["IMAGE": "acme/ondocker", "BASE": "\(other.host)/base/docker:stable"]) { $1 })
        #expect(onDocker.status == 0, "\(onDocker.all)")
        for architecture in ["amd64", "arm64"] {
            let image = try unpack(registry, "acme/ondocker:1.2.0", architecture: architecture)
            defer { try? FileManager.default.removeItem(atPath: (image.root as NSString).deletingLastPathComponent) }
            #expect(image.layers.first == base.layers[architecture], "\(image.layers)")
            #expect(read(image.root + "/etc/base-release") == "base v1 \(architecture)\n" && read(image.root + "/usr/local/bin/app") == "the \(architecture) build\n")
            #expect((image.config["config"] as? [String: Any])?["WorkingDir"] as? String == "/srv")
        }
        let manifest = try runTool(["skopeo", "inspect", "--raw", "--tls-verify=false", "--creds", "shiplane:s3cret-registry-pass", "--override-arch", "amd64",
                                    "docker://\(registry.host)/acme/ondocker:1.2.0"])
        #expect(manifest.output.contains("application/vnd.oci.image.index.v1+json") && !manifest.output.contains("vnd.docker"), "\(manifest.output)")
    }

    /// A folder given as a file's source goes in whole at its image path (files, subfolders,
    /// empty ones too), as swift-container-plugin's `--resources` adds a folder; a symbolic link
    /// in it is an error before anything is sent.
    @Test func aFolderGoesInWholeAndALinkInItIsAnError() async throws {
        let registry = try RealRegistry()
        defer { registry.stop() }
        let repo = try project()
        try repo.write("res/index.html", "<h1>app</h1>\n")
        try repo.write("res/css/site.css", "body {}\n")
        try FileManager.default.createDirectory(atPath: repo.path + "/res/empty", withIntermediateDirectories: true)
        let environment = ["REGISTRY": registry.host, "ONE_PLATFORM": "1", "RESOURCES": "1"]
        let pushed = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        let image = try unpack(registry, "acme/app:1.2.0", architecture: "amd64")
        defer { try? FileManager.default.removeItem(atPath: (image.root as NSString).deletingLastPathComponent) }
        #expect(read(image.root + "/usr/share/app/index.html") == "<h1>app</h1>\n")
        #expect(read(image.root + "/usr/share/app/css/site.css") == "body {}\n")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: image.root + "/usr/share/app/empty", isDirectory: &isFolder) && isFolder.boolValue)
        #expect(read(image.root + "/usr/local/bin/app") == "the amd64 build\n")

        try FileManager.default.createSymbolicLink(atPath: repo.path + "/res/link", withDestinationPath: "index.html")
        let refused = try await repo.shiplaneAsync(["image"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.all.contains("res/link is not a file or a folder (a symbolic link or a device)"), "\(refused.all)")
    }

    /// A base digest that names nothing, and a base without the platform asked for: each is an
    /// error that says so, in the dry run and in the run, and nothing is pushed.
    @Test func aMissingBaseOrPlatformIsAnErrorBeforeAnythingIsSent() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        _ = try BaseImageFacts.push(to: registry, marker: "v1")
        let repo = try project()
        let environment = registry.environment.merging(["REGISTRY": registry.host]) { $1 }
        let nowhere = "\(registry.host)/base/os@sha256:" + String(repeating: "0", count: 64)
        for dryRun in [true, false] {
            let missing = try await repo.shiplaneAsync(["image"] + (dryRun ? ["--dry-run"] : []), environment: environment.merging(["BASE": nowhere]) { $1 })
            #expect(missing.status != 0)
            #expect(missing.all.contains("the base image \(nowhere) does not exist"), "\(missing.all)")
            let platform = try await repo.shiplaneAsync(["image"] + (dryRun ? ["--dry-run"] : []),
                                                       environment: environment.merging(["BASE": "\(registry.host)/base/os:stable", "PLATFORM": "linux/s390x"]) { $1 })
            #expect(platform.status != 0)
            #expect(platform.all.contains("has no linux/s390x image (it has linux/amd64, linux/arm64/v8)"), "\(platform.all)")
        }
        let malformed = try await repo.shiplaneAsync(["image"], environment: environment.merging(["BASE": "\(registry.host)/base/os@sha256:abc"]) { $1 })
        #expect(malformed.status != 0 && malformed.all.contains("is not a base image"), "\(malformed.all)")
        #expect(try tags(registry).isEmpty, "nothing was pushed")
        let storage = registry.folder + "/data/docker/registry/v2/repositories/acme"
        #expect(!FileManager.default.fileExists(atPath: storage), "no blob either: \((try? FileManager.default.subpathsOfDirectory(atPath: storage)) ?? [])")
    }

    /// A release past its point of no return (its tag pushed to origin), SIGKILLed while a base
    /// layer is being copied from another registry (the layer's GET answered by that registry and
    /// held by a loopback proxy); then the base's tag moves to another image, and the same command
    /// in a fresh clone finishes the release on the digest the killed run resolved (kept in the
    /// run's record on origin): one image at both tags, on the first base.
    @Test func killedMidBaseLayerCopyAFreshCloneFinishesOnTheRecordedDigest() async throws {
        let registry = try RealRegistry(username: "shiplane", password: "s3cret-registry-pass")
        defer { registry.stop() }
        let other = try RealRegistry()
        defer { other.stop() }
        let first = try BaseImageFacts.push(to: other, marker: "v1", architectures: ["amd64"], bigBytes: 4 << 20)
        let layer = try #require(first.layers["amd64"])
        let proxy = try HoldingProxy(to: other.port, holding: "GET", pathContaining: "/blobs/" + layer)
        defer { proxy.stop() }
        let repo = try project()
        try repo.write(".gitignore", "dist/\n")
        try repo.git("rm", "-q", "-r", "--cached", "dist")
        try repo.git("add", ".gitignore")
        try repo.git("commit", "-q", "-m", "chore: ignore dist")
        let origin = repo.root + "/origin.git"
        try repo.git("init", "-q", "--bare", "-b", "main", origin)
        try repo.git("push", "-q", origin, "main")
        func clone() throws -> String {
            let folder = repo.root + "/clone-\(UUID().uuidString.prefix(8))"
            try repo.git("clone", "-q", origin, folder)
            try FileManager.default.createDirectory(atPath: folder + "/dist/amd64", withIntermediateDirectories: true)
            try Data("the amd64 build\n".utf8).write(to: URL(fileURLWithPath: folder + "/dist/amd64/app"))
            return folder
        }
        let environment = repo.environment.merging(registry.environment) { $1 }.merging([
            "REGISTRY": registry.host, "BASE": "\(proxy.host)/base/os:stable", "ONE_PLATFORM": "1", "RELEASE_TAG": "1",
        ]) { $1 }
        let run = try SupervisedRun(["image"], in: try clone(), environment: environment)
        run.wait { proxy.holding }
        #expect(proxy.holding, "the base layer's download had begun")
        try run.killEverything()
        #expect(try tags(registry).isEmpty)

        let moved = try BaseImageFacts.push(to: other, marker: "v2", architectures: ["amd64"])
        #expect(moved.top != first.top, "base/os:stable names another image now")

        let fresh = try await runProgramAsync(shiplaneBinary, ["image"], in: try clone(), environment: environment)
        #expect(fresh.status == 0, "\(fresh.all)")
        #expect(fresh.all.contains("copied base layer \(layer)"), "\(fresh.all)")
        #expect(try tags(registry) == ["1.2.0", "latest"])
        let image = try unpack(registry, "acme/app:1.2.0", architecture: "amd64")
        defer { try? FileManager.default.removeItem(atPath: (image.root as NSString).deletingLastPathComponent) }
        #expect(image.layers.first == layer, "built on the digest the killed run resolved, not on the moved tag: \(image.layers)")
        #expect(read(image.root + "/etc/base-release") == "base v1 amd64\n")
        #expect(read(image.root + "/usr/local/bin/app") == "the amd64 build\n")
        #expect(try registry.inspect("acme/app:latest")?["Digest"] as? String == registry.inspect("acme/app:1.2.0")?["Digest"] as? String)
        #expect(!fresh.all.contains("s3cret-registry-pass"))
    }
}
