import Foundation
import Testing

/// The fan-in killed past its point of no return, retried where CI retries it: a fresh clone at
/// the commit that triggered the pipeline (a detached checkout, as `actions/checkout` makes),
/// which is the parent of the release commit the killed attempt pushed to main. The same state
/// comes about in `FanOutRandomKillTests` when the kill lands while origin still runs the
/// attempt's push: the retry's clone is made before origin moves main, and the record it then
/// finds names a release commit the clone is not at.
///
/// The retry moves its checkout forward to the release commit origin's main holds
/// (`RemoteRunRecord.catchUp`) and finishes the release once; without that it stopped with exit 7
/// ("origin holds the record … of a release this checkout is not at"), leaving the parts' records
/// and the run record on origin and nothing published.
@Suite("A fan-in retried at the trigger commit", .serialized, .offThePool)
struct FanInRetryAtTriggerTests {
    @Test func aFanInKilledPastItsPushIsFinishedByARetryAtTheTriggerCommit() async throws {
        let world = try await FanOutWorld()
        defer { world.stop() }
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let origin = world.origin
        let trigger = try origin.git("rev-parse", "main")
        // Origin applies the push (main, v1.5.0, refs/shiplane/run) and holds its answer: the job
        // is killed in between, past its point of no return.
        world.gitServer.holdAnswer(toPushUpdating: "refs/tags/v1.5.0", seconds: 30)
        let killed = try await world.job(["release", "--fan-in"], killWhen: {
            let found = try? runProgram("/usr/bin/git", ["--git-dir", origin.path, "rev-parse", "--verify", "-q", "refs/tags/v1.5.0"],
                                        in: origin.root, environment: origin.environment)
            return found?.status == 0
        })
        #expect(killed.status == nil, "\(killed.output)")
        #expect(try origin.git("rev-parse", "main^") == trigger, "main holds the release commit, on top of the trigger commit")
        #expect(try world.originRefs("refs/shiplane/run") == ["refs/shiplane/run"])

        let retried = try await world.job(["release", "--fan-in"], at: trigger)
        var expected: [String: [UInt8]] = [:]
        for asset in world.github.allAssets { expected[asset.name] = asset.bytes }
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(retried.status == 0, "\(retried.output)")
        #expect(retried.output.contains("moved forward to it to finish the release"), "\(retried.output)")
        #expect(problems.isEmpty, "\(problems)")
        #expect(world.slack.payloads.count == 1)
        #expect(try world.originRefs("refs/shiplane/run") == [], "the run record is retired")
        #expect(try origin.git("rev-parse", "main^") == trigger, "no second release commit")
    }
}
