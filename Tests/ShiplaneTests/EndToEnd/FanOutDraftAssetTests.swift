import Foundation
import Shiplane
import Testing

/// One part whose build differs every time (random bytes), uploaded to GitHub's parts' draft,
/// then a GitHub prerelease of it.
private let randomPartLane = #"""
import Shiplane

struct Release: Lane {
    static let summary = "One part whose bytes differ on every build"

    func run(_ lane: LaneContext) async throws {
        try await lane.part("linux", os: "linux", draft: .github()) {
            _ = try await lane.sh("sh", "-c", "mkdir -p dist && head -c 48 /dev/urandom | base64 > dist/app-linux.bin")
            try lane.artifact("dist/app-linux.bin")
        }
        try await lane.githubRelease(tag: "v1.5.0-rc.1", notes: "candidate", assets: lane.artifacts, prerelease: true)
    }
}
"""#

/// `fanOutDraftLanes`' release with a step between the release and the message that, when the
/// job's `HOLD` names a file, makes it and waits: a fan-in killed there has published.
private let heldFanInLane = #"""
import Shiplane

struct Release: Lane {
    static let summary = "Three parts on one GitHub draft; a step that can hold after the release"

    func run(_ lane: LaneContext) async throws {
        try await lane.part("linux", os: "linux", draft: .github()) {
            _ = try lane.archive(["Sources", "VERSION"], to: "dist/app-linux.tar.gz")
        }
        try await lane.part("macos", os: "macos", draft: .github()) {
            _ = try lane.archive(["Sources", "Package.swift"], to: "dist/app-macos.tar.gz")
        }
        try await lane.part("android", os: "linux", draft: .github()) {
            _ = try lane.archive(["App.xcconfig"], to: "dist/app-android.tar.gz")
        }
        let version = try lane.bumpVersion(.auto)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try await lane.githubRelease(tag: "v\(version)", notes: "notes", assets: lane.artifacts)
        _ = try await lane.sh("sh", "-c", "if [ -n \"$HOLD\" ]; then touch \"$HOLD\"; sleep 60; fi")
        try await lane.slack("Released \(version)")
    }
}
"""#

/// A flag one task sets and another waits for.
private final class Flag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var raised = false
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}

/// Where a fanned-out release's bytes live (issue 42 item 2): a part that uploaded its artifacts
/// to the parts' draft release records on origin their assets and SHA-256s, not their bytes; the
/// fan-in downloads each asset (`GET /repos/{owner}/{repo}/releases/assets/{asset_id}` with
/// `Accept: application/octet-stream`, GitHub's 302 to its storage followed without the token) and
/// checks its digest before it publishes; a retried part finds its assets intact and uploads
/// nothing. Built `shiplane`, fresh clones, origin behind `git http-backend`, FakeGitHub checking
/// every request against GitHub's published description.
@Suite("Fanned-out parts keep their bytes on the draft release", .serialized, .offThePool)
struct FanOutDraftAssetTests {
    /// Uploads of `name` the stand-in received.
    private func uploads(_ world: FanOutWorld, _ name: String) -> Int {
        world.github.log.filter { $0.hasPrefix("POST /uploads/") && $0.hasSuffix("?name=" + name) }.count
    }

    /// Every object origin's repository holds, by id (`git cat-file --batch-all-objects`).
    private func originObjects(_ world: FanOutWorld) throws -> Set<String> {
        let listed = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "cat-file", "--batch-all-objects", "--batch-check"],
                                    in: world.origin.root, environment: world.origin.environment)
        #expect(listed.status == 0, "\(listed.all)")
        return Set(listed.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    /// The blob id git gives `bytes` (`git hash-object`).
    private func blobID(_ bytes: [UInt8], in world: FanOutWorld) throws -> String {
        let file = world.origin.root + "/hash-object-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let hashed = try runProgram("/usr/bin/git", ["hash-object", file], in: world.origin.root, environment: world.origin.environment)
        return hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// origin's record of `part` (`part.json` of `refs/shiplane/parts/release/PART`), as JSON.
    private func record(_ part: String, _ world: FanOutWorld) throws -> [String: Any] {
        let shown = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "show", "refs/shiplane/parts/release/\(part):part.json"],
                                   in: world.origin.root, environment: world.origin.environment)
        return try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown.all)")
    }

    private func runParts(_ world: FanOutWorld, lane: String = "release") async throws {
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job([lane, "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
    }

    /// With a draft, origin holds no blob equal to any artifact (git's own object list as the
    /// oracle), each record names its asset's id, size and SHA-256; the fan-in downloads each
    /// asset through the API and GitHub's storage redirect, and publishes the release with every
    /// asset as the part built it, uploaded once. Without a draft (the same parts, `fanOutLane`)
    /// the bytes are in origin's records as before.
    @Test func aPartWithADraftRecordsItsAssetNotItsBytesAndTheFanInPublishesIt() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        try await runParts(world)
        let draft = try #require(world.github.allReleases.first)
        let assets = world.github.allAssets
        #expect(assets.map(\.name).sorted() == fanOutAssetNames)
        let objects = try originObjects(world)
        var expected: [String: [UInt8]] = [:]
        for asset in assets {
            expected[asset.name] = asset.bytes
            #expect(!objects.contains(try blobID(asset.bytes, in: world)), "origin holds the bytes of \(asset.name)")
        }
        let linux = try record("linux", world)
        let recorded = try #require((linux["assets"] as? [[String: Any]])?.first, "\(linux)")
        let asset = try #require(assets.first { $0.name == "app-linux.tar.gz" })
        #expect(recorded["id"] as? Int == asset.id && recorded["releaseID"] as? Int == draft.id && recorded["name"] as? String == asset.name)
        #expect(recorded["size"] as? Int == asset.bytes.count && recorded["sha256"] as? String == SHA256.hex(of: asset.bytes))
        #expect(recorded["forge"] as? String == "github" && recorded["repository"] as? String == "acme/rocket")

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        for asset in assets {
            #expect(world.github.log.contains("GET /repos/acme/rocket/releases/assets/\(asset.id)"), "asked for \(asset.name)'s bytes")
            #expect(world.github.log.contains("GET /storage/\(asset.id)"), "followed GitHub's redirect to the storage for \(asset.name)")
            #expect(fanIn.output.contains("\(asset.name) downloaded from the parts' draft release \(draft.id)"), "\(fanIn.output)")
        }
        #expect(world.github.storageAuthorizationHeaders.allSatisfy { $0 == nil }, "the token never goes to the storage")
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        for name in fanOutAssetNames { #expect(uploads(world, name) == 1, "\(name) uploaded once, by its part") }
        #expect(!fanIn.output.contains(world.github.token))

        // The same parts without a draft: the record holds the bytes (named by their SHA-256).
        let plain = try await FanOutWorld(lane: fanOutLane)
        defer { plain.stop() }
        let ran = try await plain.job(["release", "--part", "linux"])
        #expect(ran.status == 0, "\(ran.output)")
        let tree = try runProgram("/usr/bin/git", ["--git-dir", plain.origin.path, "ls-tree", "--name-only", "refs/shiplane/parts/release/linux"],
                                  in: plain.origin.root, environment: plain.origin.environment).stdout
        let sha = try #require(((try record("linux", plain))["artifacts"] as? [[String: Any]])?.first?["sha256"] as? String)
        #expect(tree.split(separator: "\n").contains(Substring(sha)), "without a draft the bytes are in the record: \(tree)")
    }

    /// Someone replaces a part's asset on the draft (same name, other bytes) after the part
    /// recorded it: the fan-in stops with exit 8 naming the part, the asset, the expected and the
    /// found SHA-256 and what to do, and publishes nothing (no tag, no release, no message, the
    /// records kept). The part's job run again finds the asset changed, uploads its artifact
    /// anew, and the fan-in then publishes the part's own bytes.
    @Test func aTamperedAssetStopsTheFanInBeforeAnythingIsPublished() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        try await runParts(world)
        let asset = try #require(world.github.allAssets.first { $0.name == "app-linux.tar.gz" })
        var expected: [String: [UInt8]] = [:]
        for each in world.github.allAssets { expected[each.name] = each.bytes }
        let forged = Array("not what the linux part built".utf8)
        world.github.replaceAssetBytes(id: asset.id, with: forged)

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 8, "\(fanIn.output)")
        for text in ["app-linux.tar.gz", "part `linux`", "expected sha256:\(SHA256.hex(of: asset.bytes))", "found sha256:\(SHA256.hex(of: forged))",
                     "--part linux", "nothing was published"] {
            #expect(fanIn.output.contains(text), "says \(text): \(fanIn.output)")
        }
        #expect(world.github.allReleases.count == 1 && world.github.allReleases.allSatisfy(\.draft), "nothing published")
        #expect(try world.origin.git("tag", "--list") == "v1.4.0", "no tag pushed")
        #expect(world.slack.payloads.isEmpty, "no message")
        #expect(try world.originRefs("refs/shiplane/parts/").count == 3, "the records stay")
        #expect(!world.github.log.contains { $0.hasPrefix("PATCH /repos/acme/rocket/releases/") }, "the draft was not taken over")

        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        #expect(retry.output.contains("app-linux.tar.gz holds sha256:\(SHA256.hex(of: forged).prefix(12))"), "\(retry.output)")
        let replaced = try #require(world.github.allAssets.first { $0.name == "app-linux.tar.gz" })
        #expect(replaced.bytes == expected["app-linux.tar.gz"], "the part uploaded its own bytes again")
        let again = try await world.job(["release", "--fan-in"])
        #expect(again.status == 0, "\(again.output)")
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(world.slack.payloads.count == 1)
    }

    /// A part retried in a fresh clone after it recorded: its asset is on the draft as recorded
    /// (GitHub's digest, read from the release, no download), so nothing is built or uploaded again.
    /// With the asset deleted from the draft, the next retry uploads it again and records the new one.
    @Test func aRetriedPartWithItsAssetIntactUploadsNothing() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let first = try await world.job(["release", "--part", "linux"])
        #expect(first.status == 0, "\(first.output)")
        let asset = try #require(world.github.allAssets.first { $0.name == "app-linux.tar.gz" })
        let before = world.github.log.count
        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        let asked = world.github.log.dropFirst(before)
        #expect(!asked.contains { $0.hasPrefix("POST ") || $0.hasPrefix("PATCH ") || $0.hasPrefix("DELETE ") }, "the retry changed nothing: \(Array(asked))")
        #expect(!asked.contains { $0.hasPrefix("GET /storage/") }, "GitHub's digest was enough: \(Array(asked))")
        #expect(uploads(world, "app-linux.tar.gz") == 1)
        #expect(retry.output.contains("already recorded on origin for this commit (1 artifact, 1 on the parts' draft release as recorded)"), "\(retry.output)")

        let draft = try #require(world.github.allReleases.first)
        world.github.removeAsset(id: asset.id)
        let redo = try await world.job(["release", "--part", "linux"])
        #expect(redo.status == 0, "\(redo.output)")
        #expect(redo.output.contains("app-linux.tar.gz is gone"), "\(redo.output)")
        #expect(uploads(world, "app-linux.tar.gz") == 2, "uploaded again")
        let fresh = try #require(world.github.allAssets.first { $0.name == "app-linux.tar.gz" })
        let recorded = try #require((try record("linux", world)["assets"] as? [[String: Any]])?.first)
        #expect(recorded["id"] as? Int == fresh.id && fresh.id != asset.id && fresh.releaseID == draft.id)
    }

    /// A record written before parts named their assets (bytes in the tree, no `assets`) still
    /// reads, with every artifact's bytes expected from origin; a new one names its assets.
    @Test func anOlderRecordWithoutAssetsStillReads() throws {
        let older = #"{"argumentsDigest":"sha256:00","artifacts":[{"kind":"archive","name":"app-linux.tar.gz","path":"dist/app-linux.tar.gz","sha256":"ab"}],"base":"0123","format":1,"lane":"release","part":"linux","run":"r1"}"#
        let record = try JSONDecoder().decode(PartRecord.self, from: Data(older.utf8))
        #expect(record.assets == nil && record.artifacts.map(\.path) == ["dist/app-linux.tar.gz"])
        let asset = #"{"api":"https://api.github.com","forge":"github","id":42,"name":"app-linux.tar.gz","path":"dist/app-linux.tar.gz","releaseID":7,"repository":"acme/rocket","sha256":"ab","size":10}"#
        let newer = try JSONDecoder().decode(PartRecord.self, from: Data(older.replacingOccurrences(of: #""format":1"#, with: #""assets":[\#(asset)],"format":1"#).utf8))
        let again = try JSONDecoder().decode(PartRecord.self, from: try JSONEncoder().encode(newer))
        #expect(again == newer && again.assets?.first?.id == 42)
    }

    /// Two runners of one part whose builds differ: the late one, held while it reads the draft's
    /// releases, lists origin before the early one records, then uploads after it — replacing the
    /// asset the early one's record (the one origin took) names. Losing the record's swap, it
    /// finds that record's asset gone from the draft and its own intact, and replaces the record
    /// by compare-and-swap: the fan-in finds the bytes the record names and publishes them.
    /// (Without that, the record named a deleted asset and the fan-in stopped with exit 8.)
    @Test func aRunnerThatReplacedTheRecordedAssetReplacesTheStaleRecord() async throws {
        let world = try await FanOutWorld(lane: randomPartLane)
        defer { world.stop() }
        let early = Flag()
        world.github.inject(FakeGitHub.Fault(method: "GET", pathContains: "/releases", remaining: 1, action: .answerAfter({
            while !early.isRaised { try? await Task.sleep(nanoseconds: 20_000_000) }
        }), exactPath: "/repos/acme/rocket/releases"))
        async let lateJob = world.job(["release", "--part", "linux"])
        while !world.github.log.contains("GET /repos/acme/rocket/releases") { try await Task.sleep(nanoseconds: 20_000_000) }
        let first = try await world.job(["release", "--part", "linux"])
        #expect(first.status == 0, "\(first.output)")
        let recordedFirst = try #require((try record("linux", world)["assets"] as? [[String: Any]])?.first?["id"] as? Int)
        early.raise()
        let late = try await lateJob
        #expect(late.status == 0, "\(late.output)")
        #expect(late.output.contains("this runner's record, which names what the draft holds, replaces it"), "\(late.output)")
        let onDraft = try #require(world.github.allAssets.first { $0.name == "app-linux.bin" })
        let recordedNow = try #require((try record("linux", world)["assets"] as? [[String: Any]])?.first)
        #expect(onDraft.id != recordedFirst && recordedNow["id"] as? Int == onDraft.id && recordedNow["sha256"] as? String == SHA256.hex(of: onDraft.bytes))

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let releases = world.github.allReleases
        #expect(releases.count == 1 && releases.allSatisfy { !$0.draft && $0.tag == "v1.5.0-rc.1" }, "\(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let published = try #require(world.github.allAssets.first { $0.name == "app-linux.bin" && $0.releaseID == releases.first?.id })
        #expect(published.bytes == onDraft.bytes, "the bytes the record names")
    }

    /// A fan-in killed after its release step finished (published) and before it retired the
    /// parts' records, resumed in a fresh clone: the resumed run replays the release step from its
    /// record, so it never asked for the parts' draft; it still retires origin's word of it and
    /// deletes the draft a stopped part job left unclaimed (before, both stayed).
    @Test func aResumedFanInRetiresTheDraftWordAndDeletesUnclaimedDrafts() async throws {
        let world = try await FanOutWorld(lane: heldFanInLane)
        defer { world.stop() }
        try await runParts(world)
        let draft = try #require(world.github.allReleases.first)
        let word = try #require(draft.body.split(separator: "\n").first { $0.hasPrefix("<!-- shiplane:parts-draft ") }.map(String.init))
        let base = try world.origin.git("rev-parse", "main")
        let orphan = world.github.addRelease(tag: "shiplane-parts-\(base.prefix(12))-stopped1", draft: true, name: draft.name, body: "Shiplane's draft.\n\n" + word)
        let hold = world.origin.root + "/held-\(UUID().uuidString)"
        let killed = try await world.job(["release", "--fan-in"], killWhen: { FileManager.default.fileExists(atPath: hold) }, extra: ["HOLD": hold])
        #expect(killed.status == nil, "killed while held after the release: \(killed.output)")
        #expect(world.github.allReleases.contains { $0.id == draft.id && !$0.draft }, "published before the kill")
        #expect(try world.originRefs("refs/shiplane/drafts/") == ["refs/shiplane/drafts/release"])

        let resumed = try await world.job(["release", "--fan-in"])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(!world.github.allReleases.contains { $0.id == orphan }, "the unclaimed draft is deleted: \(world.github.allReleases.map { "\($0.id) \($0.tag)" })")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [], "origin's word of the draft is retired")
        #expect(world.github.allReleases.map(\.id) == [draft.id] && world.slack.payloads.count == 1)
    }

    /// A part job with `draft: .github()` and no token: its artifacts' bytes go in its record on
    /// origin, as where there is no draft, with a warning naming the variable; GitHub is not asked.
    /// The fan-in (with the token) takes the bytes from the record and uploads them.
    /// A record on origin that names a path leaving the work tree (`../`) is refused by the
    /// fan-in (exit 8, as a part with no record): nothing is written outside the clone's work
    /// tree and nothing is published.
    @Test func aRecordNamingAPathOutsideTheWorkTreeIsRefused() async throws {
        let world = try await FanOutWorld(lane: fanOutLane)
        defer { world.stop() }
        try await runParts(world)
        func originGit(_ arguments: [String], input: String? = nil) throws -> String {
            var command = ["/usr/bin/git", "--git-dir", world.origin.path] + arguments
            if let input {
                let file = world.origin.root + "/input.txt"
                try input.write(toFile: file, atomically: true, encoding: .utf8)
                command = ["/bin/sh", "-c", "\"$@\" < \(file)", "sh"] + command
            }
            let ran = try runProgram(command[0], Array(command.dropFirst()), in: world.origin.root, environment: world.origin.environment)
            guard ran.status == 0 else { throw TestFailure("git \(arguments): \(ran.all)") }
            return ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let ref = "refs/shiplane/parts/release/linux"
        var linux = try record("linux", world)
        var artifacts = try #require(linux["artifacts"] as? [[String: Any]])
        artifacts[0]["path"] = "../escape.tar.gz"
        linux["artifacts"] = artifacts
        let json = String(decoding: try JSONSerialization.data(withJSONObject: linux, options: [.sortedKeys]), as: UTF8.self)
        let blob = try originGit(["hash-object", "-w", "--stdin"], input: json)
        let entries = try originGit(["ls-tree", ref]).split(separator: "\n").map { line -> String in
            line.hasSuffix("\tpart.json") ? "100644 blob \(blob)\tpart.json" : String(line)
        }
        let tree = try originGit(["mktree"], input: entries.joined(separator: "\n") + "\n")
        let commit = try originGit(["commit-tree", tree, "-p", ref, "-m", "a record naming ../escape.tar.gz"])
        _ = try originGit(["update-ref", ref, commit])

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 8, "\(fanIn.output)")
        #expect(fanIn.output.contains("its record names ../escape.tar.gz, a path outside the work tree"), "\(fanIn.output)")
        let clone = try #require(world.lastClone)
        #expect(!FileManager.default.fileExists(atPath: clone.root + "/escape.tar.gz"), "nothing written beside the work tree")
        let published = world.github.allReleases.filter { !$0.draft }
        #expect(published.isEmpty, "nothing published")
        #expect(try world.origin.git("tag", "--list") == "v1.4.0", "no tag pushed")
        #expect(world.slack.payloads.isEmpty, "no message")
    }

    @Test func aPartWithoutATokenRecordsItsBytesOnOrigin() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        // Origin is reached with a git credential of its own (SHIPLANE_GIT_TOKEN); no API token.
        let ran = try await world.job(["release", "--part", "linux"], extra: ["GITHUB_TOKEN": "", "GH_TOKEN": "", "SHIPLANE_GIT_TOKEN": world.github.token])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output.contains("no GITHUB_TOKEN (or GH_TOKEN) is set for this job: part linux's artifacts go in its record on origin"), "\(ran.output)")
        #expect(world.github.log.isEmpty, "GitHub not asked: \(world.github.log)")
        let linux = try record("linux", world)
        let sha = try #require((linux["artifacts"] as? [[String: Any]])?.first?["sha256"] as? String)
        #expect(linux["assets"] == nil)
        let tree = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "ls-tree", "--name-only", "refs/shiplane/parts/release/linux"],
                                  in: world.origin.root, environment: world.origin.environment).stdout
        #expect(tree.split(separator: "\n").contains(Substring(sha)), "\(tree)")
        for part in ["macos", "android"] {
            let other = try await world.job(["release", "--part", part])
            #expect(other.status == 0, "\(part): \(other.output)")
        }
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let release = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && !release.draft && world.github.allAssets.filter { $0.releaseID == release.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(world.github.allAssets.first { $0.name == "app-linux.tar.gz" }.map { SHA256.hex(of: $0.bytes) } == sha)
    }
}
