import Foundation
import Testing

/// A lane that changes both stores: the App Store listing (a version and a locale created, fields
/// replaced) and a Google Play edit (listing, images, a promotion), whose commit never lands.
private let storeEffectsLane = #"""
import Shiplane
struct Stores: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0")
        try await lane.updatePlayStore(packageName: "com.acme.rocket", track: "production", promoteFrom: "beta", rollout: .fraction(0.1))
    }
}
"""#

/// Everything the lane can change in the two stand-ins, as text.
private struct StoresWorld: Equatable, CustomStringConvertible {
    var appleVersions: [String]
    var appleListing: [String]
    var playListings: [String]
    var playTracks: [String]
    var playImages: [String]
    var playOpenEdits: Int
    var record: Bool

    init(_ repo: TemporaryRepository, _ apple: FakeAppStoreConnect, _ play: FakeGooglePlay) {
        (appleVersions, appleListing) = apple.lock.withLock {
            (apple.storeVersions.map { "\($0.key) \($0.value.version) \($0.value.platform) \($0.value.state)" }.sorted(),
             apple.listing.flatMap { resource, items in
                 items.map { "\(resource) \($0.key) \($0.value.parentID) \($0.value.locale) \($0.value.attributes.sorted { $0.key < $1.key })" }
             }.sorted())
        }
        (playListings, playTracks, playImages, playOpenEdits) = play.lock.withLock {
            (play.committedListings.map { "\($0.key) \($0.value.sorted { $0.key < $1.key })" }.sorted(),
             play.committedTracks.map { name, track in
                 let json = (try? JSONSerialization.data(withJSONObject: track, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                 return "\(name) \(json)"
             }.sorted(),
             play.committedImages.flatMap { language, types in types.map { "\(language) \($0.key) \($0.value.count)" } }.sorted(),
             play.edits.count)
        }
        record = FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json")
    }

    var description: String {
        "apple versions: \(appleVersions)\napple listing:\n\(appleListing.joined(separator: "\n"))\nplay listings: \(playListings)\n"
            + "play tracks: \(playTracks)\nplay images: \(playImages)\nplay open edits: \(playOpenEdits)\nrecord: \(record)"
    }
}

/// One undo per effect, for the store effects too: the App Store listing's created versions and
/// locales and replaced fields, and a Play edit with its listing, image and track changes, undone
/// in the run, by the supervisor after the lane program is killed, and by `shiplane rollback` in
/// another process, leave both stores as they were.
@Suite("One undo per store effect: in the run, after a kill, and from shiplane rollback", .serialized, .offThePool)
struct StoreEffectUndoDifferentialTests {
    enum Path: String, CaseIterable, CustomStringConvertible {
        case inTheRun, afterAKill, shiplaneRollback
        var description: String { rawValue }
    }

    func repository(_ play: FakeGooglePlay) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "build/\n")
        try repo.write("Lanes/Stores.swift", storeEffectsLane)
        try repo.write("fastlane/metadata/en-US/description.txt", "Fly higher.\n")
        try repo.write("fastlane/metadata/en-US/name.txt", "Rocket\n")
        try repo.write("fastlane/metadata/en-US/subtitle.txt", "To the moon\n")
        try repo.write("fastlane/metadata/de-DE/description.txt", "Höher fliegen.\n")
        let android = "fastlane/metadata/android/"
        try repo.write(android + "en-US/title.txt", "Rocket\n")
        try repo.write(android + "en-US/full_description.txt", "The fastest rockets.\n")
        try repo.write(android + "en-US/images/icon.png", "icon-bytes")
        try repo.write(android + "de-DE/title.txt", "Rakete\n")
        try repo.write("build/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes and listings")
        return repo
    }

    @Test(arguments: Path.allCases)
    func everyStoreEffectIsUndoneToTheSameStores(_ path: Path) async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        // The App Store already has the app info's English locale; the version does not exist yet.
        _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket", "subtitle": "Old subtitle"])
        play.setTrack("beta", versionCodes: [42])
        play.lock.withLock { play.committedListings["en-US"] = ["title": "Old Rocket", "shortDescription": "Fast", "fullDescription": "Old text"] }
        let repo = try repository(play)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL).merging([
            "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": repo.path + "/build/play.json", "GOOGLE_PLAY_API_URL": play.baseURL,
            "SHIPLANE_HTTP_RETRY_DELAY": "0.01",
        ]) { $1 }
        let start = StoresWorld(repo, apple, play)
        func changedBoth() -> Bool {
            apple.log.contains("POST /v1/appStoreVersions") && play.log.contains { $0.hasPrefix("PUT ") || $0.hasPrefix("PATCH ") }
        }

        switch path {
        case .inTheRun:
            // Google refuses the commit (400 is not retried): the lane fails before either store's change is live.
            play.fail(1, method: "POST", path: ":commit", status: 400, body: #"{"error":{"code":400,"message":"Refused","status":"INVALID_ARGUMENT"}}"#)
            let failed = try await repo.shiplaneAsync(["stores"], environment: environment)
            #expect(failed.status == 1, "\(failed.all)")
        case .afterAKill:
            // The commit hangs; the lane program is killed while it waits, and its supervisor settles the run.
            play.hang(1, method: "POST", path: ":commit", seconds: 60)
            let run = try SupervisedRun(["stores"], in: repo.path, environment: repo.environment.merging(environment) { $1 })
            run.wait { play.log.contains { $0.hasSuffix(":commit") } }
            #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
            let (status, all) = run.finish()
            #expect(status == 130, "\(all)")
        case .shiplaneRollback:
            play.fail(1, method: "POST", path: ":commit", status: 400, body: #"{"error":{"code":400,"message":"Refused","status":"INVALID_ARGUMENT"}}"#)
            let failed = try await repo.shiplaneAsync(["stores", "--no-rollback"], environment: environment)
            #expect(failed.status == 1, "\(failed.all)")
            #expect(StoresWorld(repo, apple, play) != start, "--no-rollback kept the changes")
            let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment)
            #expect(rollback.status == 0, "\(rollback.all)")
        }
        #expect(changedBoth(), "the lane changed both stores before it failed: \(apple.log) \(play.log)")
        let end = StoresWorld(repo, apple, play)
        #expect(end == start, "\(path): \(end)\n--- started as ---\n\(start)")
    }
}
