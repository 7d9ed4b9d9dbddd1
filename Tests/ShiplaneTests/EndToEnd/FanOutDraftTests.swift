import Foundation
import Testing

/// The fanned-out release of `fanOutLane`, its parts uploading to GitHub's draft release
/// (`draft: .github()`), and `candidate`: the same parts, then only a GitHub prerelease (no push
/// before it, so a failure there is rolled back).
let fanOutDraftLanes = #"""
import Shiplane

struct Release: Lane {
    static let summary = "One release, three runners, one draft release on GitHub"

    func run(_ lane: LaneContext) async throws {
        try await buildParts(lane)
        let version = try lane.bumpVersion(.auto)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try await lane.githubRelease(tag: "v\(version)", notes: "notes", assets: lane.artifacts)
        try await lane.slack("Released \(version)")
    }
}

struct Candidate: Lane {
    static let summary = "The same parts as a GitHub prerelease"

    func run(_ lane: LaneContext) async throws {
        try await buildParts(lane)
        try await lane.githubRelease(tag: "v1.5.0-rc.1", notes: "candidate", assets: lane.artifacts, prerelease: true)
    }
}

func buildParts(_ lane: LaneContext) async throws {
    try await lane.part("linux", os: "linux", arch: "x86_64", draft: .github()) {
        _ = try lane.archive(["Sources", "VERSION"], to: "dist/app-linux.tar.gz")
    }
    try await lane.part("macos", os: "macos", arch: "arm64", draft: .github()) {
        _ = try lane.archive(["Sources", "Package.swift"], to: "dist/app-macos.tar.gz")
    }
    try await lane.part("android", os: "linux", draft: .github()) {
        _ = try lane.archive(["App.xcconfig"], to: "dist/app-android.tar.gz")
    }
}
"""#

/// The parts of a fanned-out release upload their artifacts to one GitHub draft release, agreed
/// through `refs/shiplane/drafts/LANE` on origin (compare-and-swap); the fan-in publishes it once
/// (issue 42). Built `shiplane`, fresh clones, origin behind `git http-backend`, FakeGitHub
/// checking every request against GitHub's published description.
@Suite("Fanned-out parts upload to one draft release", .serialized, .offThePool)
struct FanOutDraftTests {
    /// Uploads of `name` the stand-in received.
    private func uploads(_ world: FanOutWorld, _ name: String) -> Int {
        world.github.log.filter { $0.hasPrefix("POST /uploads/") && $0.hasSuffix("?name=" + name) }.count
    }

    /// Three part jobs at once in fresh clones: one draft release (a job that lost the swap
    /// deleted its own), every part's archive on it; the fan-in publishes that draft once with
    /// the release's tag, uploads nothing again and retires origin's word of it.
    @Test func threePartsAtOnceMakeOneDraftThatTheFanInPublishesOnce() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        try await withThrowingTaskGroup(of: (String, Int32?, String).self) { group in
            for part in ["linux", "macos", "android"] {
                group.addTask { let ran = try await world.job(["release", "--part", part]); return (part, ran.status, ran.output) }
            }
            for try await (part, status, output) in group { #expect(status == 0, "\(part): \(output)") }
        }
        let drafts = world.github.allReleases
        #expect(drafts.count == 1 && drafts.allSatisfy(\.draft), "one draft: \(drafts.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let draft = try #require(drafts.first)
        let made = world.github.log.filter { $0 == "POST /repos/acme/rocket/releases" }.count
        let deleted = world.github.log.filter { $0.hasPrefix("DELETE /repos/acme/rocket/releases/") }.count
        #expect(made >= 1 && deleted == made - 1, "every draft but the winner's was deleted by its maker: \(made) made, \(deleted) deleted")
        #expect(world.github.allAssets.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(try world.originRefs("refs/shiplane/drafts/") == ["refs/shiplane/drafts/release"])
        var expected: [String: [UInt8]] = [:]
        for asset in world.github.allAssets { expected[asset.name] = asset.bytes }

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(fanIn.output.contains("the parts uploaded their artifacts to the draft release \(draft.id)"), "\(fanIn.output)")
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(world.github.allReleases.map(\.id) == [draft.id], "the parts' draft is the release")
        for name in fanOutAssetNames { #expect(uploads(world, name) == 1, "\(name) uploaded once, by its part") }
        let patches = world.github.log.filter { $0 == "PATCH /repos/acme/rocket/releases/\(draft.id)" }.count
        #expect(patches == 2, "the tag and texts, then draft=false: \(patches)")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [], "origin's word of the draft is retired")
        #expect(world.slack.payloads.count == 1)
    }

    /// A part job SIGKILLed after its upload landed but before GitHub's answer came (the answer
    /// held back), retried in a fresh clone: the retry finds the draft by origin's ref and the
    /// asset by name, size and digest, and sends nothing again; the release has one of it.
    @Test func aPartKilledMidUploadIsRetriedWithoutADuplicate() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        world.github.inject(FakeGitHub.Fault(method: "POST", pathContains: "?name=app-linux.tar.gz", remaining: 1, action: .answerLate(seconds: 4)))
        let github = world.github
        let killed = try await world.job(["release", "--part", "linux"], killWhen: { github.allAssets.contains { $0.name == "app-linux.tar.gz" } })
        #expect(killed.status == nil, "killed while its upload's answer was held: \(killed.output)")
        #expect(try world.originRefs("refs/shiplane/parts/") == [], "the killed job recorded nothing")
        #expect(try world.originRefs("refs/shiplane/drafts/") == ["refs/shiplane/drafts/release"])

        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        #expect(uploads(world, "app-linux.tar.gz") == 1, "the retry sent nothing again: \(world.github.log)")
        #expect(world.github.allAssets.filter { $0.name == "app-linux.tar.gz" }.count == 1)
        #expect(world.github.allReleases.count == 1)
        for part in ["macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        var expected: [String: [UInt8]] = [:]
        for asset in world.github.allAssets { expected[asset.name] = asset.bytes }
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The fan-in's release step fails after it took the parts' draft over and before it
    /// published it (GitHub refuses the draft's update): the run is rolled back and the draft is
    /// given back to the parts as they left it (placeholder tag, name, body with Shiplane's word,
    /// every asset), not deleted — it holds the parts' bytes, which their records on origin only
    /// name. The fan-in run again publishes that same draft without any part built or uploaded again.
    @Test func aRolledBackFanInGivesTheDraftBackToTheParts() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["candidate", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && draft.draft)
        world.github.failNext(1, method: "PATCH", path: "/releases/\(draft.id)", status: 422,
                              body: #"{"message":"Validation Failed","documentation_url":"https://docs.github.com/rest"}"#, contentType: "application/json")
        let failed = try await world.job(["candidate", "--fan-in"])
        #expect(failed.status == 1, "\(failed.output)")
        let left = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && left.id == draft.id && left.draft && left.tag == draft.tag && left.name == draft.name
                && left.body == draft.body && !left.prerelease, "given back as the parts left it: \(world.github.allReleases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        #expect(!world.github.log.contains("DELETE /repos/acme/rocket/releases/\(draft.id)"))
        #expect(world.github.allAssets.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)

        let again = try await world.job(["candidate", "--fan-in"])
        #expect(again.status == 0, "\(again.output)")
        let releases = world.github.allReleases
        #expect(releases.count == 1 && releases.allSatisfy { $0.id == draft.id && !$0.draft && $0.tag == "v1.5.0-rc.1" && $0.prerelease },
                "\(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        #expect(world.github.allAssets.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)
        for name in fanOutAssetNames { #expect(uploads(world, name) == 1, "\(name) uploaded once, by its part") }
        #expect(try world.originRefs("refs/shiplane/drafts/") == [] && world.originRefs("refs/shiplane/parts/") == [])
    }
}
