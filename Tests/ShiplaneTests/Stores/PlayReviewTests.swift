import Foundation
import Testing
@testable import Shiplane

@Suite("Google Play commits: review handled as Google describes it, and the state file after a rollback", .serialized, .offThePool)
struct PlayReviewTests {
    func withStandIn(_ body: (FakeGooglePlay, String, [String: String]) async throws -> Void) async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            let keyPath = folder.path + "/secrets/play.json"
            try writeFile(folder, "secrets/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            try StoreFixtures.makeAAB(at: folder.path + "/app.aab")
            try await body(play, folder.path, ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": keyPath, "GOOGLE_PLAY_API_URL": play.baseURL])
        }
    }

    @Test func aReviewInProgressIsNeverCancelledUnlessAsked() async throws {
        try await withStandIn { play, folder, environment in
            play.lock.withLock { play.changesInReview = true }
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            let text = allText(result.failure)
            #expect(!result.succeeded)
            #expect(text.contains("changes already in review on Google Play were left alone"), "\(text)")
            #expect(text.contains("cancelChangesInReview: true"))
            #expect(play.lock.withLock { play.cancelledReviews } == 0)
            #expect(play.openEdits.isEmpty, "rolled back: the edit is deleted")
            #expect(play.tracks.isEmpty)
        }
    }

    @Test func cancellingAReviewIsAnOption() async throws {
        try await withStandIn { play, folder, environment in
            play.lock.withLock { play.changesInReview = true }
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--cancel-review"]), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(play.lock.withLock { play.cancelledReviews } == 1)
            #expect(play.lock.withLock { play.commitQueries } == [["changesInReviewBehavior": "CANCEL_IN_REVIEW_AND_SUBMIT"]])
        }
    }

    @Test func theCommitSaysNeverCancelAndLeavesChangesNotSentForReviewUnsetByDefault() async throws {
        try await withStandIn { play, folder, environment in
            let (result, _) = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(play.lock.withLock { play.commitQueries } == [["changesInReviewBehavior": "ERROR_IF_IN_REVIEW"]])
        }
    }

    @Test func whenGoogleWillNotSendForReviewTheErrorSaysWhatToSet() async throws {
        try await withStandIn { play, folder, environment in
            play.lock.withLock { play.requiresChangesNotSentForReview = true }
            let first = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            let text = allText(first.result.failure)
            #expect(text.contains("Changes cannot be sent for review automatically"), "\(text)")
            #expect(text.contains("set changesNotSentForReview: true"), "\(text)")
            #expect(play.openEdits.isEmpty && play.tracks.isEmpty)
            let second = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab", "--not-for-review"]), folder: folder, variables: environment)
            #expect(second.result.succeeded, "\(allText(second.result.failure))")
            #expect(play.lock.withLock { play.commitQueries }.last?["changesNotSentForReview"] == "true")
            #expect(second.result.steps.first { $0.name == "uploadToPlayStore" }?.options.contains { $0.name == "changesNotSentForReview" } == true)
        }
    }

    @Test func aRolledBackResumedRunDeletesTheEditAndForgetsIt() async throws {
        try await withStandIn { play, folder, environment in
            play.fail(10, method: "POST", path: ":commit", status: 503)
            let first = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment, rollback: false)
            #expect(!first.result.succeeded)
            let stateFile = folder + "/.shiplane/stores/play-com.acme.rocket.json"
            #expect(FileManager.default.fileExists(atPath: stateFile))
            let second = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", "app.aab"]), folder: folder, variables: environment)
            #expect(!second.result.succeeded)
            #expect(second.messages.contains { $0.contains("resuming edit edit-") })
            #expect(play.openEdits.isEmpty, "the resumed edit is deleted by the rollback")
            #expect(!FileManager.default.fileExists(atPath: stateFile), "the state file no longer names the deleted edit")
        }
    }
}
