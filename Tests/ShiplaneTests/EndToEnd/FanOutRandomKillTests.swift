import Foundation
import Testing

/// Issue 42, item 5, first scenario: the three-part release with its jobs killed (SIGKILL of the
/// built `shiplane`, and every third time only of `shiplane`, whose lane program dies with it) at
/// random moments and retried in fresh clones, as CI runners that die and are replaced. Every
/// trial runs the three parts as concurrent processes, each in a fresh clone, most of them killed
/// at a random moment of their run; in half the trials a second runner builds one part at the
/// same time; every part not recorded is retried in a fresh clone; then the fan-in job, killed at a
/// random moment and retried in a fresh clone. Every trial must end in one published release of
/// 1.5.0 with every part's bytes, one Slack message (none only when the kill landed inside the
/// Slack call and the retry kept the at-most-once rule, with its warning — counted), no part
/// record or run record left on origin. `SHIPLANE_FAN_OUT_TRIALS` sets the number (8 by default).
/// Run twice: the parts' bytes in their records on origin, and (`draft: .github()`) on the parts'
/// draft release only, origin's records naming the assets and their SHA-256s, which the fan-in
/// downloads and checks.
@Suite("A fanned-out release killed at random moments", .serialized, .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct FanOutRandomKillTests {
    @Test(arguments: [false, true]) func everyTrialEndsInOnePublishedReleaseWithEveryArtifact(onTheDraft: Bool) async throws {
        let lane = onTheDraft ? fanOutDraftLanes : fanOutLane
        let trials = ProcessInfo.processInfo.environment["SHIPLANE_FAN_OUT_TRIALS"].flatMap(Int.init) ?? 8
        // A clean run measures how long a part's job and the fan-in take; kills are spread over that.
        let clean = try await FanOutWorld(lane: lane)
        var partSeconds = 0.0
        try await withThrowingTaskGroup(of: (Double, Int32?, String).self) { group in
            for part in ["linux", "macos", "android"] {
                group.addTask {
                    let started = Date()
                    let ran = try await clean.job(["release", "--part", part])
                    return (Date().timeIntervalSince(started), ran.status, ran.output)
                }
            }
            for try await (seconds, status, output) in group {
                partSeconds = max(partSeconds, seconds)
                #expect(status == 0, "\(output)")
            }
        }
        let fanInStarted = Date()
        let cleanFanIn = try await clean.job(["release", "--fan-in"])
        let fanInSeconds = Date().timeIntervalSince(fanInStarted)
        #expect(cleanFanIn.status == 0, "\(cleanFanIn.output)")
        var expected: [String: [UInt8]] = [:]
        for asset in clean.github.allAssets { expected[asset.name] = asset.bytes }
        #expect(expected.keys.sorted() == fanOutAssetNames)
        clean.stop()

        var generator = SystemRandomNumberGenerator()
        var inconsistent: [String] = []
        var counts: [String: Int] = [:]
        for trial in 1...trials {
            let world = try await FanOutWorld(lane: lane)
            defer { world.stop() }
            let duplicate = trial % 2 == 0 ? ["linux", "macos", "android"][trial % 3] : nil
            var attempts: [(part: String, kill: Double?, onlySupervisor: Bool)] = []
            for (index, part) in ["linux", "macos", "android"].enumerated() {
                // Two of three first attempts are killed, at a random moment of the run.
                let killed = Int.random(in: 0..<3, using: &generator) != 0
                attempts.append((part, killed ? Double.random(in: 0...(partSeconds * 1.1), using: &generator) : nil, (trial + index) % 3 == 0))
            }
            if let duplicate { attempts.append((duplicate, nil, false)) }
            var recorded: Set<String> = []
            try await withThrowingTaskGroup(of: (String, Int32?, String).self) { group in
                for attempt in attempts {
                    group.addTask {
                        let ran = try await world.job(["release", "--part", attempt.part], killAfter: attempt.kill, onlySupervisor: attempt.onlySupervisor)
                        return (attempt.part, ran.status, ran.output)
                    }
                }
                for try await (part, status, output) in group {
                    if status == 0 { recorded.insert(part) } else { counts["part jobs killed (or failed)", default: 0] += 1 }
                    if status != 0 && status != nil { inconsistent.append("trial \(trial): part \(part) exited \(status ?? 0): \(output)") }
                }
            }
            // Every part not done is retried on a fresh runner, as CI's retry does.
            for part in ["linux", "macos", "android"] where !recorded.contains(part) {
                let retried = try await world.job(["release", "--part", part])
                counts["part retries in a fresh clone", default: 0] += 1
                if retried.output.contains("already recorded on origin for this commit") { counts["part retries that found their killed run's record", default: 0] += 1 }
                if retried.status != 0 { inconsistent.append("trial \(trial): the retry of part \(part) exited \(retried.status.map(String.init) ?? "killed"): \(retried.output)") }
            }
            if try world.originRefs("refs/shiplane/parts/").count != 3 {
                inconsistent.append("trial \(trial): origin holds \(try world.originRefs("refs/shiplane/parts/")) before the fan-in")
            }
            // The fan-in: killed at a random moment in three of four trials, then retried in a fresh clone.
            let killFanIn = trial % 4 != 0
            let first = try await world.job(["release", "--fan-in"], killAfter: killFanIn ? Double.random(in: 0...(fanInSeconds * 1.1), using: &generator) : nil,
                                            onlySupervisor: trial % 3 == 0)
            var retryOutput = ""
            if first.status != 0 {
                counts["fan-in jobs killed", default: 0] += 1
                let retried = try await world.job(["release", "--fan-in"])
                retryOutput = retried.output
                if retried.status == 5 && retried.output.contains("was published already") {
                    counts["fan-in retries that found the release published", default: 0] += 1
                } else if retried.status == 0 {
                    counts["fan-in retries that finished the release", default: 0] += 1
                } else {
                    inconsistent.append("trial \(trial): the fan-in retry exited \(retried.status.map(String.init) ?? "killed"): \(retried.output)")
                }
            }
            var problems = try world.oneReleaseProblems(assets: expected)
            if world.slack.payloads.count == 0 && retryOutput.contains("may have been sent by the earlier attempt of this step, whose answer was lost") {
                counts["no Slack message: killed inside the Slack call, the retry kept at-most-once", default: 0] += 1
            } else if world.slack.payloads.count != 1 {
                problems.append("\(world.slack.payloads.count) Slack messages")
            }
            inconsistent += problems.map { "trial \(trial): \($0)" }
            counts["trials", default: 0] += 1
        }
        print("Fanned-out release\(onTheDraft ? " on a draft release" : ""), random kills (\(trials) trials; parts killed within \(Int(partSeconds * 1100)) ms, the fan-in within \(Int(fanInSeconds * 1100)) ms):\n"
              + counts.keys.sorted().map { "| \($0) | \(counts[$0] ?? 0) |" }.joined(separator: "\n") + "\n| inconsistent | \(inconsistent.count) |")
        #expect(inconsistent.isEmpty, "\(inconsistent.joined(separator: "\n"))")
    }
}
