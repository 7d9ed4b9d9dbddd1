import Foundation
import Testing
import Crypto

/// A store upload written down as data: the lane program killed right after App Store Connect
/// made the build upload, or Google Play the edit, and the supervisor (another process) deletes
/// it from the run's record through the API, with the credentials of the environment.
@Suite("Store uploads undone from the run's record, by another process", .serialized, .offThePool)
struct StoreDurableTests {
    private func repository(lane body: String) throws -> TemporaryRepository {
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
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        return repo
    }

    @Test func aBuildUploadLeftByAKilledLaneProgramIsDeletedFromTheRecord() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let repo = try repository(lane: #"try await lane.uploadToTestFlight(ipa: "build/Rocket.ipa", processingTimeout: 5, pollInterval: 0.001)"#)
        try StoreFixtures.makeIPA(at: repo.path + "/build/Rocket.ipa")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL).merging(["SHIPLANE_FAULT": "after-effect:1"]) { $1 }
        let killed = try await repo.shiplaneAsync(["ship"], environment: environment)
        #expect(killed.status == 130, "\(killed.all)")
        #expect(killed.all.contains("SIGKILL"), "\(killed.all)")
        #expect(apple.log.contains { $0.hasPrefix("DELETE /v1/buildUploads/") }, "\(apple.log)")
        #expect(apple.allUploads.isEmpty, "the build upload was deleted from the record: \(apple.allUploads)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(killed.all)")
        #expect(!killed.all.contains(StoreFixtures.appleKey.pemRepresentation.split(separator: "\n")[1]))
    }

    /// The build upload is written down before the create call: killed while App Store Connect's
    /// answer was on its way (the upload exists, its id never arrived), the supervisor finds the
    /// upload by its app, version and build number and deletes it.
    @Test func aBuildUploadWhoseAnswerNeverCameIsFoundByItsVersionAndDeleted() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        apple.answerLate(method: "POST", path: "/v1/buildUploads", seconds: 60)
        let repo = try repository(lane: #"try await lane.uploadToTestFlight(ipa: "build/Rocket.ipa", processingTimeout: 5, pollInterval: 0.001)"#)
        try StoreFixtures.makeIPA(at: repo.path + "/build/Rocket.ipa")
        let environment = repo.environment.merging(StoreFixtures.appleEnvironment(apiURL: apple.baseURL)) { $1 }
        let run = try SupervisedRun(["ship"], in: repo.path, environment: environment)
        // Wait (at most 60 s) for the upload to exist on the server, then kill the lane program.
        run.wait { !apple.allUploads.isEmpty }
        #expect(apple.allUploads.map(\.value.state) == ["AWAITING_UPLOAD"], "the create call landed: \(apple.log)")
        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        #expect(apple.allUploads.isEmpty, "found by its version and deleted: \(apple.allUploads)")
        #expect(apple.log.filter { $0 == "GET /v1/apps/app-1/buildUploads" }.count == 2, "preflight's look and the undo's: \(apple.log)")
        #expect(apple.log.contains { $0.hasPrefix("DELETE /v1/buildUploads/") }, "\(apple.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(all)")
    }

    /// Killed once the upload is written down but before the create call went out: the rollback
    /// looks, finds no unfinished upload of this version, and deletes nothing (an unfinished
    /// upload of another build is not this run's).
    @Test func killedBeforeTheCreateCallTheRollbackDeletesNothing() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let other = apple.addUpload(version: "1.3.0", build: "41", state: "AWAITING_UPLOAD")
        let repo = try repository(lane: #"try await lane.uploadToTestFlight(ipa: "build/Rocket.ipa", processingTimeout: 5, pollInterval: 0.001)"#)
        try StoreFixtures.makeIPA(at: repo.path + "/build/Rocket.ipa")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL).merging(["SHIPLANE_FAULT": "before-effect:1"]) { $1 }
        let killed = try await repo.shiplaneAsync(["ship"], environment: environment)
        #expect(killed.status == 130, "\(killed.all)")
        #expect(!apple.log.contains("POST /v1/buildUploads"), "killed before the call: \(apple.log)")
        #expect(apple.log.filter { $0 == "GET /v1/apps/app-1/buildUploads" }.count == 2, "preflight's look and the rollback's: \(apple.log)")
        #expect(!apple.log.contains { $0.hasPrefix("DELETE ") }, "\(apple.log)")
        #expect(Array(apple.allUploads.keys) == [other], "\(apple.allUploads)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(killed.all)")
    }

    @Test func aPlayEditLeftByAKilledLaneProgramIsDeletedFromTheRecord() async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        let repo = try repository(lane: #"try await lane.uploadToPlayStore(bundle: "build/app.aab", track: "internal")"#)
        try StoreFixtures.makeAAB(at: repo.path + "/build/app.aab")
        try repo.write("build/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
        let killed = try await repo.shiplaneAsync(["ship"], environment: [
            "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": repo.path + "/build/play.json", "GOOGLE_PLAY_API_URL": play.baseURL,
            "SHIPLANE_FAULT": "after-effect:1",
        ])
        #expect(killed.status == 130, "\(killed.all)")
        #expect(play.log.contains { $0.hasPrefix("DELETE ") && $0.contains("/edits/") }, "\(play.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(killed.all)")
    }

    /// Without the key in the supervisor's environment the upload cannot be deleted: it is
    /// reported as staying, with what to set, and the record is kept for `shiplane rollback`.
    @Test func withoutTheKeyTheUploadIsReportedAndTheRecordKept() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let repo = try repository(lane: #"try await lane.uploadToTestFlight(ipa: "build/Rocket.ipa", processingTimeout: 5, pollInterval: 0.001)"#)
        try StoreFixtures.makeIPA(at: repo.path + "/build/Rocket.ipa")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL).merging(["SHIPLANE_FAULT": "after-effect:1"]) { $1 }
        _ = try await repo.shiplaneAsync(["ship"], environment: environment)
        // The supervisor had the key and deleted it; now a record whose undo lacks the key:
        // make one more upload and kill again, then roll back without the key.
        let second = try await repo.shiplaneAsync(["ship"], environment: environment.merging(["SHIPLANE_NO_SUPERVISOR": "1"]) { $1 })
        #expect(second.status != 0, "\(second.all)")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "exec'd and killed: the record stays")
        let rollback = try await repo.shiplaneAsync(["rollback"], environment: ["APP_STORE_CONNECT_API_URL": apple.baseURL])
        #expect(rollback.all.contains("APP_STORE_CONNECT_KEY_ID"), "\(rollback.all)")
        #expect(apple.allUploads.count == 1, "left as it is: \(apple.allUploads)")
        let withKey = try await repo.shiplaneAsync(["rollback"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(withKey.status == 0, "\(withKey.all)")
        #expect(apple.allUploads.isEmpty, "deleted once the key is there: \(apple.allUploads)")
    }
}
