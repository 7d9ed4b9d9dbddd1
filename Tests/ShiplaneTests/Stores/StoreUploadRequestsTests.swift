import Foundation
import Testing
@testable import Shiplane

/// What an upload asks each store, counted at the stand-ins: the earlier-upload lookup and the
/// preflight read the app (App Store Connect) and the tracks (Google Play) once between them, and
/// a bundle Google Play already serves is reported unchanged without a second upload.
@Suite("Store uploads: each read once, the very bundle held not sent again", .serialized, .offThePool)
struct StoreUploadRequestsTests {
    func withPlay(_ body: (FakeGooglePlay, String, [String: String]) async throws -> Void) async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            try writeFile(folder, "secrets/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            try await body(play, folder.path, ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": folder.path + "/secrets/play.json", "GOOGLE_PLAY_API_URL": play.baseURL])
        }
    }

    /// TestFlight looks the app up by bundle ID once per upload: the earlier-upload lookup's
    /// answer serves the preflight too.
    @Test func aTestFlightUploadLooksTheAppUpOnce() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        try await withTemporaryDirectory { folder in
            try StoreFixtures.makeIPA(at: folder.path + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder.path,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(apple.log.filter { $0 == "GET /v1/apps" }.count == 1, "\(apple.log)")
            #expect(apple.allBuilds.count == 1)
        }
    }

    /// A Play upload reads the tracks once: the earlier-upload lookup's private edit reads them,
    /// and the preflight of the upload's new edit (which sees the same committed tracks) takes that.
    @Test func aPlayUploadReadsTheTracksOnce() async throws {
        try await withPlay { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            play.setTrack("production", versionCodes: [41])
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(play.log.filter { $0.hasPrefix("GET ") && $0.hasSuffix("/tracks") }.count == 1, "\(play.log)")
            #expect(play.log.filter { $0.hasSuffix("bundles?uploadType=media") }.count == 1)
            // The version code check still holds: another bundle with a version code on a track is refused in preflight.
            play.setTrack("production", versionCodes: [41, 42])
            try StoreFixtures.makeAAB(at: folder + "/other.aab", payloadBytes: 4096)
            let (refused, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "other.aab"]), folder: folder, variables: environment)
            #expect(!refused.succeeded)
            #expect(allText(refused.failure).contains("version code 42 is already in a release on Google Play"), "\(allText(refused.failure))")
            #expect(play.log.filter { $0.hasSuffix("bundles?uploadType=media") }.count == 1)
        }
    }

    /// Google lists an app's bundles in every edit (edits.bundles.list: "all current Android App
    /// Bundles of the app and edit"), so a re-run finds the very bundle (its SHA-256) on a track:
    /// reported unchanged, not uploaded again, nothing committed.
    @Test func theVeryBundleOnATrackIsReportedUnchangedAndNotSentAgain() async throws {
        try await withPlay { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            let (first, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(first.succeeded, "\(allText(first.failure))")
            let commits = play.lock.withLock { play.commitQueries.count }
            let (second, messages) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(second.succeeded, "\(allText(second.failure))")
            #expect(messages.contains("version code 42"), "\(messages)")
            #expect(play.log.filter { $0.hasSuffix("bundles?uploadType=media") }.count == 1, "\(play.log)")
            #expect(play.lock.withLock { play.commitQueries.count } == commits, "nothing committed again")
            #expect(play.openEdits.isEmpty, "the lookup's private edit is deleted again")
            let notes = second.steps.compactMap(\.note)
            #expect(notes.contains { $0.contains("version code 42 of com.acme.rocket is in a release on Google Play: not uploading it again") }, "\(notes)")
        }
    }
}
