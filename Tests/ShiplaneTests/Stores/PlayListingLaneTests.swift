import Crypto
import Foundation
import Testing
@testable import Shiplane

/// `updatePlayStore` end to end: the built `shiplane` runs a lane that reads supply's folder and
/// changes tracks, against the Play stand-in checked by Google's discovery document.
@Suite("updatePlayStore: supply's listing folder and track changes, end to end", .serialized, .offThePool)
struct PlayListingLaneTests {
    static let lanePromote = #"try await lane.updatePlayStore(packageName: "com.acme.rocket", track: "production", promoteFrom: "beta", rollout: .fraction(0.1), inAppUpdatePriority: 3)"#

    func repository(lane body: String, play: FakeGooglePlay) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "build/\n")
        try repo.write("Lanes/Ship.swift", """
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                \(body)
            }
        }
        """)
        let base = "fastlane/metadata/android/"
        try repo.write(base + "en-US/title.txt", "Rocket\n")
        try repo.write(base + "en-US/short_description.txt", "Fast rockets\n")
        try repo.write(base + "en-US/full_description.txt", "The fastest rockets.\nNow on Android.\n")
        try repo.write(base + "en-US/images/icon.png", "icon-bytes")
        try repo.write(base + "en-US/images/phoneScreenshots/1_en-US.png", "shot-1")
        try repo.write(base + "en-US/images/phoneScreenshots/2_en-US.png", "shot-2")
        try repo.write(base + "en-US/changelogs/42.txt", "Faster launches\n")
        try repo.write(base + "de-DE/title.txt", "Rakete\n")
        try repo.write(base + "de-DE/changelogs/default.txt", "Schnellere Starts\n")
        try repo.write("build/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes and metadata")
        return repo
    }

    func environment(_ repo: TemporaryRepository, _ play: FakeGooglePlay) -> [String: String] {
        ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": repo.path + "/build/play.json", "GOOGLE_PLAY_API_URL": play.baseURL,
         "SHIPLANE_HTTP_RETRY_DELAY": "0.01"]
    }

    func standIn() async throws -> FakeGooglePlay {
        let play = try FakeGooglePlay()
        try await play.start()
        play.setTrack("beta", versionCodes: [42])
        play.lock.withLock {
            play.committedListings["en-US"] = ["title": "Old Rocket", "shortDescription": "Fast rockets", "fullDescription": "Old text"]
        }
        return play
    }

    static func sha(_ text: String) -> String { SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }

    @Test func listingImagesNotesAndPromotionGoInOneEditAndARerunChangesNothing() async throws {
        let play = try await standIn()
        defer { play.stop() }
        let repo = try repository(lane: Self.lanePromote, play: play)
        let run = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play))
        #expect(run.status == 0, "\(run.all)")
        let listings = play.lock.withLock { play.committedListings }
        #expect(listings["en-US"] == ["title": "Rocket", "shortDescription": "Fast rockets", "fullDescription": "The fastest rockets.\nNow on Android."])
        #expect(listings["de-DE"] == ["title": "Rakete"])
        // One write per locale that differs: a listing the app has is patched; a language it has
        // no listing in yet is created with listings.update (patch answers 404 there, as only
        // update "creates or updates" in Google's description).
        let patches = play.log.filter { $0.hasPrefix("PATCH ") && $0.contains("/listings/") }
        let updates = play.log.filter { $0.hasPrefix("PUT ") && $0.contains("/listings/") }
        #expect(patches.count == 1 && patches.allSatisfy { $0.contains("/listings/en-US") }, "\(patches)")
        #expect(updates.count == 1 && updates.allSatisfy { $0.contains("/listings/de-DE") }, "\(updates)")
        let images = play.lock.withLock { play.committedImages["en-US"] ?? [:] }
        #expect(images["phoneScreenshots"]?.map(\.sha256) == [Self.sha("shot-1"), Self.sha("shot-2")])
        #expect(images["icon"]?.map(\.sha256) == [Self.sha("icon-bytes")])
        let production = try #require(play.tracks["production"]?["releases"] as? [[String: Any]])
        #expect(production.count == 1)
        #expect(production.first?["status"] as? String == "inProgress")
        #expect(production.first?["userFraction"] as? Double == 0.1)
        #expect(production.first?["inAppUpdatePriority"] as? Int == 3)
        #expect(production.first?["versionCodes"] as? [String] == ["42"])
        let notes = production.first?["releaseNotes"] as? [[String: String]] ?? []
        #expect(notes == [["language": "de-DE", "text": "Schnellere Starts"], ["language": "en-US", "text": "Faster launches"]])
        #expect(play.log.filter { $0.contains(":commit") }.count == 1, "committed once")
        #expect(play.lock.withLock { play.imageUploads.count } == 3)

        let again = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play))
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("nothing to change"), "\(again.all)")
        #expect(play.lock.withLock { play.imageUploads.count } == 3, "nothing uploaded again")
        #expect(play.log.filter { $0.contains(":commit") }.count == 1, "nothing committed again")
        #expect(play.openEdits.isEmpty)
    }

    @Test func aChangedScreenshotReplacesItsTypeInOrderAndOnlyThat() async throws {
        let play = try await standIn()
        defer { play.stop() }
        let repo = try repository(lane: #"try await lane.updatePlayStore(packageName: "com.acme.rocket")"#, play: play)
        #expect(try await repo.shiplaneAsync(["ship"], environment: environment(repo, play)).status == 0)
        try repo.write("fastlane/metadata/android/en-US/images/phoneScreenshots/2_en-US.png", "shot-2 retaken")
        let before = play.log.count
        let run = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play))
        #expect(run.status == 0, "\(run.all)")
        let writes = play.log.dropFirst(before).filter { $0.hasPrefix("DELETE ") && $0.contains("/listings/") || $0.contains("uploadType=media") }
        #expect(writes.count == 4, "\(writes)")
        #expect(writes.prefix(2).allSatisfy { $0.hasPrefix("DELETE ") && $0.contains("/phoneScreenshots/") })
        #expect(writes.suffix(2).allSatisfy { $0.contains("/phoneScreenshots?uploadType=media") })
        let shots = play.lock.withLock { play.committedImages["en-US"]?["phoneScreenshots"] ?? [] }
        #expect(shots.map(\.sha256) == [Self.sha("shot-1"), Self.sha("shot-2 retaken")])
        #expect(play.lock.withLock { play.committedImages["en-US"]?["icon"]?.count } == 1, "the icon is not touched")
    }

    @Test func theDryRunPrintsTheDiffFieldByFieldAndChangesNothing() async throws {
        let play = try await standIn()
        defer { play.stop() }
        let repo = try repository(lane: Self.lanePromote, play: play)
        let run = try await repo.shiplaneAsync(["ship", "--dry-run"], environment: environment(repo, play))
        #expect(run.status == 0, "\(run.all)")
        #expect(run.all.contains(#"en-US title: "Old Rocket" → "Rocket""#), "\(run.all)")
        #expect(run.all.contains(#"de-DE title: (none) → "Rakete""#), "\(run.all)")
        #expect(!run.all.contains("en-US shortDescription"), "unchanged members are not shown")
        #expect(run.all.contains("en-US phoneScreenshots: upload fastlane/metadata/android/en-US/images/phoneScreenshots/1_en-US.png"), "\(run.all)")
        #expect(run.all.contains("track production: (no releases) → 42 inProgress 10% priority 3 notes de-DE,en-US"), "\(run.all)")
        #expect(play.openEdits.isEmpty && play.tracks["production"] == nil)
        #expect(play.lock.withLock { play.imageUploads.isEmpty && play.committedListings["en-US"]?["title"] == "Old Rocket" })
        // The plan as printed, line by line (the step's log; the summary note repeats it).
        let plan = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.contains(" → ") || $0.contains(": upload ") || $0.contains(": delete ") || $0.hasPrefix("would make") }
        try expectGolden(plan.joined(separator: "\n") + "\n", "play-listing-dry-run.txt")
    }

    @Test func aFailedCommitRollsBackAndNothingReachesPlay() async throws {
        let play = try await standIn()
        defer { play.stop() }
        play.lock.withLock { play.requiresChangesNotSentForReview = true }
        let repo = try repository(lane: Self.lanePromote, play: play)
        let run = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play))
        #expect(run.status != 0)
        #expect(run.all.contains("set changesNotSentForReview: true"), "\(run.all)")
        #expect(play.openEdits.isEmpty, "the edit is deleted")
        #expect(play.tracks["production"] == nil)
        #expect(play.lock.withLock { play.committedListings["en-US"]?["title"] == "Old Rocket" && play.committedImages.isEmpty })
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/stores/play-listing-com.acme.rocket.json"))
    }

    @Test func aKilledRunIsUndoneFromTheRecordAndTheRerunUploadsEachImageOnce() async throws {
        let play = try await standIn()
        defer { play.stop() }
        let repo = try repository(lane: #"try await lane.updatePlayStore(packageName: "com.acme.rocket")"#, play: play)
        let killed = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play).merging(["SHIPLANE_FAULT": "after-effect:4"]) { $1 })
        #expect(killed.status == 130, "\(killed.all)")
        #expect(play.openEdits.isEmpty, "the supervisor deleted the edit: \(play.log)")
        #expect(play.lock.withLock { play.committedListings["en-US"]?["title"] == "Old Rocket" && play.committedImages.isEmpty })
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/stores/play-listing-com.acme.rocket.json"), "forgotten")
        let rerun = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play))
        #expect(rerun.status == 0, "\(rerun.all)")
        #expect(play.lock.withLock { play.committedImages["en-US"]?["phoneScreenshots"]?.count } == 2)
    }

    @Test func aKilledRunResumedUploadsNothingTwiceAndCommitsOnce() async throws {
        let play = try await standIn()
        defer { play.stop() }
        let repo = try repository(lane: #"try await lane.updatePlayStore(packageName: "com.acme.rocket")"#, play: play)
        // Killed after the edit, both listings and the icon and first screenshot, with no supervisor to roll back.
        let killed = try await repo.shiplaneAsync(["ship"], environment: environment(repo, play).merging(
            ["SHIPLANE_FAULT": "after-effect:5", "SHIPLANE_NO_SUPERVISOR": "1"]) { $1 })
        #expect(killed.status != 0, "\(killed.all)")
        #expect(play.lock.withLock { play.imageUploads.count } == 2, "\(play.log)")
        #expect(play.openEdits.count == 1)
        let resumed = try await repo.shiplaneAsync(["resume"], environment: environment(repo, play))
        #expect(resumed.status == 0, "\(resumed.all)")
        #expect(resumed.all.contains("resuming edit edit-1"), "\(resumed.all)")
        #expect(play.lock.withLock { play.imageUploads } == ["en-US/icon", "en-US/phoneScreenshots", "en-US/phoneScreenshots"], "each image once")
        let shots = play.lock.withLock { play.committedImages["en-US"]?["phoneScreenshots"] ?? [] }
        #expect(shots.map(\.sha256) == [Self.sha("shot-1"), Self.sha("shot-2")])
        #expect(play.log.filter { $0.contains(":commit") }.count == 1)
        #expect(play.openEdits.isEmpty)
    }
}

/// Track changes without an upload, and a re-run of a run that stopped before its commit (in process).
@Suite("updatePlayStore: staged rollouts, kept version codes and resumed edits", .serialized, .offThePool)
struct PlayTrackChangeTests {
    struct Change: Lane {
        static let name = "change"
        var update = PlayStoreUpdate(packageName: "com.acme.rocket")
        init() {}
        init(_ update: PlayStoreUpdate) { self.update = update }
        enum CodingKeys: CodingKey {}
        func run(_ lane: LaneContext) async throws { _ = try await lane.run(UpdatePlayStore(update)) }
    }

    func withStandIn(_ body: (FakeGooglePlay, String, [String: String]) async throws -> Void) async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            let keyPath = try writeFile(folder, "play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            try await body(play, folder.path, ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": keyPath, "GOOGLE_PLAY_API_URL": play.baseURL])
        }
    }

    func staged(_ play: FakeGooglePlay, status: String = "inProgress", fraction: Double = 0.1) {
        play.lock.withLock {
            play.committedTracks["production"] = ["track": "production", "releases": [
                ["status": "completed", "versionCodes": ["41"]],
                ["status": status, "versionCodes": ["42"], "userFraction": fraction],
            ]]
        }
    }

    func releases(_ play: FakeGooglePlay) -> [String] {
        (play.tracks["production"]?["releases"] as? [[String: Any]] ?? []).map { release in
            ((release["versionCodes"] as? [String]) ?? []).joined(separator: "+") + " " + (release["status"] as? String ?? "")
                + ((release["userFraction"] as? Double).map { " \($0)" } ?? "")
        }
    }

    func change(_ update: PlayStoreUpdate, _ folder: String, _ environment: [String: String]) async -> LaneRunResult {
        await runStoreLane(Change(update), folder: folder, variables: environment).result
    }

    @Test func aStagedRolloutIsWidenedHaltedResumedAndCompleted() async throws {
        try await withStandIn { play, folder, environment in
            staged(play)
            let update = { (rollout: PlayRolloutChange) in PlayStoreUpdate(packageName: "com.acme.rocket", metadata: nil, track: "production", rollout: rollout) }
            #expect(await change(update(.fraction(0.5)), folder, environment).succeeded)
            #expect(releases(play) == ["41 completed", "42 inProgress 0.5"])
            #expect(await change(update(.halt), folder, environment).succeeded)
            #expect(releases(play) == ["41 completed", "42 halted 0.5"])
            let haltAgain = await change(update(.halt), folder, environment)
            #expect(allText(haltAgain.failure).contains("the staged rollout on production is halted, so it cannot be halted"))
            #expect(await change(update(.resume), folder, environment).succeeded)
            #expect(releases(play) == ["41 completed", "42 inProgress 0.5"])
            #expect(await change(update(.complete), folder, environment).succeeded)
            #expect(releases(play) == ["42 completed"])
            let none = await change(update(.fraction(0.2)), folder, environment)
            #expect(allText(none.failure).contains("track production has no staged rollout"))
            #expect(play.openEdits.isEmpty, "every edit deleted or committed")
        }
    }

    @Test func olderVersionCodesAreKeptWhenAsked() async throws {
        try await withStandIn { play, folder, environment in
            play.setTrack("beta", versionCodes: [42])
            play.setTrack("production", versionCodes: [40])
            let update = PlayStoreUpdate(packageName: "com.acme.rocket", metadata: nil, track: "production", promoteFrom: "beta", retainVersionCodes: [40])
            let result = await change(update, folder, environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(releases(play) == ["40+42 completed"])
        }
    }

    @Test func badOptionsAreRefusedBeforeAnythingIsSent() async throws {
        try await withStandIn { play, folder, environment in
            let update = PlayStoreUpdate(packageName: "com.acme.rocket", metadata: "nowhere", track: "beta", promoteFrom: "beta",
                                         rollout: .fraction(1.5), inAppUpdatePriority: 9)
            let text = allText(await change(update, folder, environment).failure)
            for expected in ["promoteFrom and track are both beta", "rollout fraction 1.5 is not between 0 and 1", "inAppUpdatePriority 9 is not between 0 and 5", "nowhere is not a folder"] {
                #expect(text.contains(expected), "\(expected): \(text)")
            }
            #expect(play.log.isEmpty)
        }
    }

    @Test func aRerunAfterAStopBeforeTheCommitResumesTheEditAndUploadsNothingTwice() async throws {
        try await withStandIn { play, folder, environment in
            let base = URL(fileURLWithPath: folder)
            _ = try writeFile(base, "fastlane/metadata/android/en-US/title.txt", "Rocket")
            for index in 1...3 { _ = try writeFile(base, "fastlane/metadata/android/en-US/images/phoneScreenshots/\(index).png", "shot-\(index)") }
            play.fail(10, method: "POST", path: ":commit", status: 503)
            let first = await runStoreLane(Change(PlayStoreUpdate(packageName: "com.acme.rocket")), folder: folder, variables: environment, rollback: false)
            #expect(!first.result.succeeded)
            #expect(play.lock.withLock { play.imageUploads.count } == 3)
            play.lock.withLock { play.faults.removeAll() }
            let second = await runStoreLane(Change(PlayStoreUpdate(packageName: "com.acme.rocket")), folder: folder, variables: environment)
            #expect(second.result.succeeded, "\(allText(second.result.failure))")
            #expect(second.messages.contains { $0.contains("resuming edit edit-1") }, "\(second.messages)")
            #expect(play.lock.withLock { play.imageUploads.count } == 3, "nothing uploaded twice")
            #expect(play.lock.withLock { play.committedImages["en-US"]?["phoneScreenshots"]?.count } == 3)
            #expect(play.lock.withLock { play.committedListings["en-US"]?["title"] } == "Rocket")
        }
    }
}

/// The one undo of a write inside an edit puts back what it replaced while the edit exists.
@Suite("PlayEditChanged: undo puts back what a write in an edit replaced", .serialized, .offThePool)
struct PlayEditChangedUndoTests {
    @Test func listingTrackAndImageWritesAreUndoneInTheEdit() async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        play.setTrack("production", versionCodes: [41])
        play.lock.withLock { play.committedListings["en-US"] = ["title": "Old Rocket"] }
        try await withTemporaryDirectory { folder in
            let keyPath = try writeFile(folder, "play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            let image = try writeFile(folder, "shot.png", "shot")
            let variables = ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": keyPath, "GOOGLE_PLAY_API_URL": play.baseURL]
            let account = try GooglePlayServiceAccount.fromEnvironment(variables, workingDirectory: folder.path)
            let client = GooglePlayClient(account: account, packageName: "com.acme.rocket", environment: variables,
                                          transport: HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(), redactor: SecretRedactor(secrets: [])))
            let context = EffectContext(workTree: folder.path, environment: LaneEnvironment(variables: variables), fileSystem: LiveFileSystem(),
                                        http: LiveHTTPClient(), retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
            let edit = try await client.insertEdit()
            let base = PlayEditChanged(api: play.baseURL, packageName: "com.acme.rocket", editID: edit, change: .listing)

            try await client.patchListing(editID: edit, language: "en-US", fields: ["title": "Rocket"])
            var listing = base
            (listing.language, listing.before) = ("en-US", #"{"title":"Old Rocket"}"#)
            try await listing.undo(in: context, status: .done)
            #expect(play.openEdits[edit]?.listings["en-US"] == ["title": "Old Rocket"])

            let before = try #require(try await client.trackJSON(editID: edit, track: "production")?["releases"] as? [[String: Any]])
            try await client.putTrack(editID: edit, track: "production", releases: [["status": "completed", "versionCodes": ["41"], "inAppUpdatePriority": 4]])
            var track = base
            (track.change, track.track, track.before) = (.track, "production", PlayStoreUpdate.json(before))
            try await track.undo(in: context, status: .done)
            #expect(PlayStoreUpdate.json(play.openEdits[edit]?.tracks["production"]?["releases"] ?? []) == PlayStoreUpdate.json(before))

            let uploaded = try await client.uploadImage(editID: edit, language: "en-US", type: "phoneScreenshots", path: image)
            var upload = base
            (upload.change, upload.language, upload.imageType, upload.imageID) = (.imageUploaded, "en-US", "phoneScreenshots", uploaded.id)
            try await upload.undo(in: context, status: .done)
            #expect(play.openEdits[edit]?.images["en-US"]?["phoneScreenshots"]?.isEmpty == true)

            // Once the edit is gone there is nothing to put back, and the undo succeeds without a write.
            try await client.deleteEdit(edit)
            let before2 = play.log.count
            try await listing.undo(in: context, status: .done)
            let sent = play.log.dropFirst(before2).filter { $0 != "POST /token" }
            #expect(sent.allSatisfy { $0.hasPrefix("GET ") } && !sent.isEmpty, "\(sent)")
        }
    }
}
