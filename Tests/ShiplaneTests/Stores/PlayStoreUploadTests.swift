import Foundation
import Testing
@testable import Shiplane

@Suite("Upload to Google Play through the Android Publisher stand-in", .serialized, .offThePool)
struct StoresPlayStoreUploadTests {
    func withStandIn(_ body: (FakeGooglePlay, String, [String: String]) async throws -> Void) async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            let keyPath = folder.path + "/secrets/play.json"
            try writeFile(folder, "secrets/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            try await body(play, folder.path, ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": keyPath, "GOOGLE_PLAY_API_URL": play.baseURL])
        }
    }

    @Test func uploadsSetsTheTrackAndCommits() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            let (result, messages) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--fraction", "0.1", "--track", "beta"]),
                                                        folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            let release = try #require((play.tracks["beta"]?["releases"] as? [[String: Any]])?.first)
            #expect(release["versionCodes"] as? [String] == ["42"])
            #expect(release["status"] as? String == "inProgress")
            #expect(release["userFraction"] as? Double == 0.1)
            let notes = (release["releaseNotes"] as? [[String: String]]) ?? []
            #expect(notes == [["language": "de-DE", "text": "Schnellere Raketen"], ["language": "en-US", "text": "Faster rockets"]])
            #expect(play.openEdits.isEmpty, "committed")
            #expect(play.log.contains("POST /upload/androidpublisher/v3/applications/com.acme.rocket/edits/edit-2/bundles?uploadType=media"))
            #expect(messages.contains("version code 42"))
        }
    }

    @Test func aLargeBundleGoesUpResumablyAndSurvivesAFailedChunk() async throws {
        try await withStandIn { play, folder, environment in
            let path = try StoreFixtures.makeAAB(at: folder + "/app.aab", payloadBytes: 3 << 20)
            play.fail(1, method: "PUT", path: "/upload/session/", status: 503)
            let request = PlayStoreRequest(bundle: path, track: "internal", resumableThreshold: 1 << 20, chunkSize: 1 << 20)
            let (result, messages) = await runStoreLane(PlayAction(request: request), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains { $0.contains("as a resumable upload") })
            #expect(messages.contains { $0.hasSuffix("sent, 33%") || $0.hasSuffix("sent, 32%") }, "progress is shown: \(messages)")
            let puts = play.log.filter { $0.hasPrefix("PUT /upload/session/") }
            #expect(puts.count == 5, "four chunks, one of them twice: \(puts)")
            #expect(play.log.contains { $0.hasSuffix("bundles?uploadType=resumable") })
            // The session URL is on the API's own host, so the token may go along; Google got every byte.
            let sha = try FileDigest.sha256(of: path)
            #expect(play.usedVersionCodes == [42])
            #expect(play.lock.withLock { play.committedTracks["internal"] } != nil)
            #expect(sha.count == 64)
        }
    }

    @Test func preflightReportsEveryProblemAtOnce() async throws {
        try await withStandIn { play, folder, _ in
            try writeFile(URL(fileURLWithPath: folder), "app.aab", "not a zip")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--fraction", "1.5"]), folder: folder,
                                                 variables: ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": "{\"type\": \"service_account\", ", "GOOGLE_PLAY_API_URL": play.baseURL])
            let text = allText(result.failure)
            #expect(text.contains("3 problems found before anything was sent"), "\(text)")
            #expect(text.contains("rolloutFraction 1.5 is not between 0 and 1"))
            #expect(text.contains("app.aab: is not a zip archive"))
            #expect(text.contains("not valid JSON"))
            #expect(play.log.isEmpty)
        }
    }

    @Test func aBundleForAnotherPackageIsRefused() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab", package: "com.acme.other")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--package-name", "com.acme.rocket"]),
                                                 folder: folder, variables: environment)
            #expect(allText(result.failure).contains("is for com.acme.other, not com.acme.rocket"))
            #expect(play.openEdits.isEmpty)
        }
    }

    @Test func anAppThisAccountCannotSeeIsNamedWithWhatToDo() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab", package: "com.acme.unknown")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            let text = allText(result.failure)
            #expect(text.contains("Package not found: com.acme.unknown."), "\(text)")
            #expect(text.contains("Play Console has no app com.acme.unknown"))
            #expect(play.openEdits.isEmpty)
        }
    }

    @Test func aRefusedKeyShowsGooglesReason() async throws {
        try await withStandIn { play, folder, environment in
            play.publicKey = nil
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            let text = allText(result.failure)
            #expect(text.contains("invalid_grant: Invalid JWT Signature."), "\(text)")
            #expect(!play.log.contains { $0.contains("/edits") })
        }
    }

    @Test func aFailureBeforeCommitDeletesTheEdit() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            play.fail(1, method: "PUT", path: "/tracks/", status: 400, body: #"{"error": {"code": 400, "message": "Track not found", "status": "INVALID_ARGUMENT"}}"#)
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(allText(result.failure).contains("Track not found"))
            #expect(result.failure?.rollback.first?.undone == true)
            #expect(play.openEdits.isEmpty)
            #expect(play.tracks.isEmpty)
        }
    }

    @Test func aRerunResumesTheEditAndDoesNotUploadTwice() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            play.fail(10, method: "POST", path: ":commit", status: 503)
            let first = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment, rollback: false)
            #expect(!first.result.succeeded)
            #expect(play.openEdits.count == 1)
            play.lock.withLock { play.faults.removeAll() }
            let second = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(second.result.succeeded, "\(allText(second.result.failure))")
            #expect(second.messages.contains { $0.contains("resuming edit edit-2") })
            #expect(second.messages.contains { $0.contains("not uploading it again") })
            #expect(play.log.filter { $0.contains("bundles?uploadType") }.count == 1)
            #expect(play.openEdits.isEmpty && play.tracks["internal"] != nil)
        }
    }

    @Test func rollbackAfterTheCommitLeavesTheReleaseAndSaysSo() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--fail-after"]), folder: folder, variables: environment)
            let entry = try #require(result.failure?.rollback.first)
            #expect(!entry.undone)
            #expect(entry.error?.contains("was committed: the release on internal stays") == true, "\(entry)")
            #expect(play.tracks["internal"] != nil)
        }
    }

    @Test func aVersionCodeAlreadyReleasedIsCaughtInPreflight() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            #expect(await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment).result.succeeded)
            // Another bundle with the same version code (the very bundle is reported unchanged: StoreUploadRequestsTests).
            try StoreFixtures.makeAAB(at: folder + "/rebuilt.aab", payloadBytes: 4096)
            let again = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "rebuilt.aab"]), folder: folder, variables: environment)
            #expect(allText(again.result.failure).contains("version code 42 is already in a release"))
            #expect(play.openEdits.isEmpty, "the preflight's edit was deleted")
        }
    }

    @Test func dryRunCommitsNothing() async throws {
        try await withStandIn { play, folder, environment in
            try StoreFixtures.makeAAB(at: folder + "/app.aab")
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment, dryRun: true)
            #expect(result.succeeded, "\(allText(result.failure))")
            let note = result.steps.first { $0.name == "uploadToPlayStore" }?.note ?? ""
            #expect(note.contains("would upload com.acme.rocket version code 42"), "\(note)")
            #expect(!play.log.contains { $0.contains("uploadType") || $0.contains(":commit") || $0.contains("/tracks/") })
            #expect(play.openEdits.isEmpty && play.tracks.isEmpty)
        }
    }
}

/// Runs one `UploadToPlayStore` with a request built by the test.
struct PlayAction: Lane {
    static let name = "play-action"
    var request = PlayStoreRequest(bundle: "")
    init() {}
    init(request: PlayStoreRequest) { self.request = request }
    enum CodingKeys: CodingKey {}
    func run(_ lane: LaneContext) async throws { _ = try await lane.run(UploadToPlayStore(request)) }
}
