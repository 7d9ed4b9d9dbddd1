import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The undo of a Google Play edit this run opened is a compare-and-swap (the journal's rule): it
/// deletes the edit only while Google holds it with the id and expiry the run recorded; an edit
/// gone since leaves nothing to do; any other is left, and the error says so.
@Suite("Play edit undo: only the edit the run left", .offThePool)
struct PlayEditUndoTests {
    static let api = "https://play.example/api"
    static let tokenURL = "https://play.example/token"
    static let edit = api + "/androidpublisher/v3/applications/com.acme.rocket/edits/edit-7"
    static let recordedExpiry = "1900000000"

    /// `found`: Google holds the run's edit (`same`), an edit under that id with another expiry
    /// (`other`), or none (`gone`).
    @Test(arguments: ["same", "other", "gone"])
    func theUndoDeletesOnlyTheEditTheRunLeft(found: String) async throws {
        try await withTemporaryDirectory { folder in
            let stateFolder = folder.path + "/stores"
            let state = StoreResumeState(folder: stateFolder)
            try state.write(PlayStorePublisher.EditRecord(editID: "edit-7", packageName: "com.acme.rocket"), name: "play-com.acme.rocket")
            let http = RecordingHTTPClient()
            http.respond(.post, Self.tokenURL, json: #"{"access_token": "ya29.undo-token", "expires_in": 3600}"#)
            switch found {
            case "same": http.respond(.get, Self.edit, json: #"{"id": "edit-7", "expiryTimeSeconds": "\#(Self.recordedExpiry)"}"#)
            case "other": http.respond(.get, Self.edit, json: #"{"id": "edit-7", "expiryTimeSeconds": "1900604800"}"#)
            default: http.respond(.get, Self.edit, status: 404, json: #"{"error": {"code": 404, "message": "This Edit has been deleted.", "status": "NOT_FOUND"}}"#)
            }
            http.respond(.delete, Self.edit, status: 204, json: "")
            let context = EffectContext(
                workTree: folder.path,
                environment: LaneEnvironment(variables: [
                    "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": StoreFixtures.serviceAccountJSON(tokenURL: Self.tokenURL),
                ]),
                fileSystem: LiveFileSystem(), http: http, retryPolicy: RetryPolicy(baseDelay: 0.01), savedCopies: MemorySavedCopies(), gitFolder: nil)
            let effect = PlayEditOpened(api: Self.api, packageName: "com.acme.rocket", editID: "edit-7", expiryTimeSeconds: Self.recordedExpiry,
                                        stateFolder: stateFolder)
            var thrown: (any Error)?
            do { try await effect.undo(in: context, status: .done) } catch { thrown = error }
            let deletes = http.requests.filter { $0.method == "DELETE" }.count
            let reads = http.requests.filter { $0.method == "GET" && $0.url == Self.edit }.count
            let record = state.read(PlayStorePublisher.EditRecord.self, name: "play-com.acme.rocket")
            #expect(reads == 1, "the undo first reads the edit")
            switch found {
            case "same":
                #expect(thrown == nil, "\(allText(thrown))")
                #expect(deletes == 1)
                #expect(record == nil, "the resume record of a deleted edit is forgotten")
            case "other":
                let error = try #require(thrown as? ShiplaneError, "\(String(describing: thrown))")
                #expect(error.message.contains("edit-7") && error.message.contains("left as it is"), "\(error.message)")
                #expect(error.message.contains("1900604800") && error.message.contains(Self.recordedExpiry), "\(error.message)")
                #expect(deletes == 0, "an edit that is not the run's is never deleted")
                #expect(record != nil)
            default:
                #expect(thrown == nil, "\(allText(thrown))")
                #expect(deletes == 0, "a gone edit is not deleted again")
                #expect(record == nil)
            }
            #expect(http.unscriptedRequests.isEmpty)
        }
    }

    /// A record written before the expiry was kept compares the id alone: the edit is deleted.
    @Test func aRecordWithoutTheExpiryComparesTheIdAlone() async throws {
        let http = RecordingHTTPClient()
        http.respond(.post, Self.tokenURL, json: #"{"access_token": "ya29.undo-token", "expires_in": 3600}"#)
        http.respond(.get, Self.edit, json: #"{"id": "edit-7", "expiryTimeSeconds": "1900604800"}"#)
        http.respond(.delete, Self.edit, status: 204, json: "")
        let context = EffectContext(
            workTree: "/", environment: LaneEnvironment(variables: [
                "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": StoreFixtures.serviceAccountJSON(tokenURL: Self.tokenURL),
            ]),
            fileSystem: LiveFileSystem(), http: http, retryPolicy: RetryPolicy(baseDelay: 0.01), savedCopies: MemorySavedCopies(), gitFolder: nil)
        try await PlayEditOpened(api: Self.api, packageName: "com.acme.rocket", editID: "edit-7").undo(in: context, status: .done)
        #expect(http.requests.filter { $0.method == "DELETE" }.count == 1)
        #expect(http.unscriptedRequests.isEmpty)
    }
}
