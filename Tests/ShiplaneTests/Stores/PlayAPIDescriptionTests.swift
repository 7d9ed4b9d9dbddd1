import Foundation
import Testing
@testable import Shiplane

/// The checker the Play stand-in runs every request and answer through, against Google's description.
@Suite("Google Play stand-in checked against the Android Publisher discovery document", .serialized, .offThePool)
struct PlayAPIDescriptionTests {
    let api = PlayAPIDescription.shared
    let edits = "/androidpublisher/v3/applications/com.acme.rocket/edits"

    func check(_ method: String, _ path: String, query: [String: String] = [:], json: String? = nil,
               headers: [String: String] = [:]) -> [String] {
        var all = headers
        if json != nil { all["content-type"] = "application/json" }
        return api.problems(method: method, path: path, query: query, body: json.map { Array($0.utf8) }) { all[$0] }.problems
    }

    @Test func methodsAreFoundByHTTPMethodAndFlatPath() {
        #expect(api.methods.count > 100, "every method of the description is read")
        #expect(api.match(method: "POST", path: edits + "/e1:commit")?.method.id == "androidpublisher.edits.commit")
        #expect(api.match(method: "POST", path: edits + "/e1:validate")?.method.id == "androidpublisher.edits.validate")
        #expect(api.match(method: "GET", path: edits + "/e1")?.parameters == ["packageName": "com.acme.rocket", "editId": "e1"])
        #expect(api.match(method: "PUT", path: edits + "/e1/tracks/beta")?.method.id == "androidpublisher.edits.tracks.update")
        #expect(api.match(method: "DELETE", path: edits + "/e1/listings/en-US/phoneScreenshots/abc")?.method.id == "androidpublisher.edits.images.delete")
        #expect(api.match(method: "PATCH", path: edits + "/e1/bundles") == nil)
        #expect(check("GET", "/androidpublisher/v3/applications/com.acme.rocket/nothing").first?.contains("is not a method") == true)
    }

    @Test func uploadsGoByTheMediaUploadProtocols() {
        let bundles = "/upload" + edits + "/e1/bundles"
        #expect(api.match(method: "POST", path: bundles)?.method.id == "androidpublisher.edits.bundles.upload")
        #expect(check("POST", bundles, query: ["uploadType": "media"], headers: ["content-type": "application/octet-stream", "content-length": "10"]).isEmpty)
        #expect(check("POST", bundles, query: ["uploadType": "resumable"],
                      headers: ["x-upload-content-type": "application/octet-stream", "x-upload-content-length": "10"]).isEmpty)
        #expect(check("POST", bundles, query: ["uploadType": "chunked"], headers: ["content-type": "application/octet-stream"])
            .contains { $0.contains("uploadType \"chunked\" is not one of media, multipart, resumable") })
        let image = "/upload" + edits + "/e1/listings/en-US/icon"
        #expect(check("POST", image, query: ["uploadType": "media"], headers: ["content-type": "image/png", "content-length": "10"]).isEmpty)
        #expect(check("POST", image, query: ["uploadType": "media"], headers: ["content-type": "application/pdf", "content-length": "10"])
            .contains { $0.contains("media type application/pdf is not one it accepts (image/*)") })
        #expect(check("POST", image, query: ["uploadType": "media"], headers: ["content-type": "image/png", "content-length": "15728641"])
            .contains { $0.contains("more than its maxSize 15728640") })
        #expect(check("POST", "/upload" + edits + "/e1/listings/en-US/poster", query: ["uploadType": "media"], headers: ["content-type": "image/png"])
            .contains { $0.contains("path parameter imageType \"poster\" is not one of") })
    }

    @Test func queryParametersMustBeDeclaredAndTyped() {
        #expect(check("POST", edits + "/e1:commit", query: ["changesNotSentForReview": "true", "changesInReviewBehavior": "ERROR_IF_IN_REVIEW"]).isEmpty)
        #expect(check("POST", edits + "/e1:commit", query: ["changesNotSentForReview": "yes"]) == ["androidpublisher.edits.commit: query parameter changesNotSentForReview \"yes\" is not a boolean"])
        #expect(check("POST", edits + "/e1:commit", query: ["changesInReviewBehavior": "WAIT"]).first?.contains("is not one of CHANGES_IN_REVIEW_BEHAVIOR_TYPE_UNSPECIFIED") == true)
        #expect(check("GET", edits + "/e1/tracks", query: ["limit": "10"]) == ["androidpublisher.edits.tracks.list: query parameter limit is not declared"])
        #expect(check("GET", edits + "/e1/tracks", query: ["prettyPrint": "false"]).isEmpty, "the API's global parameters are declared for every method")
    }

    @Test func requestBodiesAreCheckedStrictly() {
        let track = #"{"track": "beta", "releases": [{"versionCodes": ["42"], "status": "inProgress", "userFraction": 0.1, "inAppUpdatePriority": 5, "releaseNotes": [{"language": "en-US", "text": "x"}]}]}"#
        #expect(check("PUT", edits + "/e1/tracks/beta", json: track).isEmpty, "inAppUpdatePriority is a member of TrackRelease")
        #expect(check("PUT", edits + "/e1/tracks/beta", json: #"{"track": "beta", "releases": [{"versionCodes": ["42"], "priority": 5}]}"#)
            .contains { $0.contains("unknown member \"priority\"") })
        #expect(check("PUT", edits + "/e1/tracks/beta", json: #"{"releases": [{"status": "live"}]}"#)
            .contains { $0.contains("\"live\" is not one of statusUnspecified, draft, inProgress, halted, completed") })
        #expect(check("PUT", edits + "/e1/tracks/beta", json: #"{"releases": [{"userFraction": "half"}]}"#)
            .contains { $0.contains("\"half\" is not a number") })
        #expect(check("PUT", edits + "/e1/tracks/beta", json: #"{"releases": [{"versionCodes": [true]}]}"#)
            .contains { $0.contains("is not an int64") })
        #expect(check("PATCH", edits + "/e1/listings/en-US", json: #"{"title": "Rocket", "shortDescription": "Fast"}"#).isEmpty)
        #expect(check("PATCH", edits + "/e1/listings/en-US", json: #"{"title": "Rocket", "subtitle": "Fast"}"#)
            .contains { $0.contains("unknown member \"subtitle\"") })
        #expect(check("DELETE", edits + "/e1", json: "{}").contains { $0.contains("takes no request body") })
    }

    @Test func answersAreCheckedAgainstTheResponseSchema() throws {
        let bundles = try #require(api.method("androidpublisher.edits.bundles.list"))
        #expect(api.problems(answer: ["kind": "androidpublisher#bundlesListResponse", "bundles": [["versionCode": 42, "sha256": "ab"]]], for: bundles).isEmpty)
        #expect(api.problems(answer: ["bundles": [["versionCode": "42", "size": 1]]], for: bundles).count == 2, "a string for an int32, an unknown member")
        let tracks = try #require(api.method("androidpublisher.edits.tracks.get"))
        #expect(api.problems(answer: ["track": "beta", "releases": [["versionCodes": [42]]]], for: tracks)
            .contains { $0.contains("is not an int64 (a string of digits)") }, "Google writes int64s as strings")
        let delete = try #require(api.method("androidpublisher.edits.delete"))
        #expect(api.problems(answer: nil, for: delete).isEmpty)
        #expect(!api.problems(answer: ["id": "e1"], for: delete).isEmpty)
    }

    @Test func theStandInRefusesWhatTheDescriptionRefusesAndRecordsIt() async throws {
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            let keyPath = try writeFile(folder, "play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            let variables = ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": keyPath, "GOOGLE_PLAY_API_URL": play.baseURL]
            let account = try GooglePlayServiceAccount.fromEnvironment(variables, workingDirectory: folder.path)
            let client = GooglePlayClient(account: account, packageName: "com.acme.rocket", environment: variables,
                                          transport: HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy(), redactor: SecretRedactor(secrets: [])))
            let edit = try await client.insertEdit()
            let refused = try await client.request(.put, client.apiBaseURL + client.editsPath + "/\(edit)/tracks/beta",
                                                   json: ["track": "beta", "releases": [["versionCodes": ["1"], "rolloutPercent": 10]]],
                                                   operation: "update", accepting: [400])
            #expect(refused.status == 400)
            let violations = play.takeViolations()
            #expect(violations.count == 1 && violations[0].contains("unknown member \"rolloutPercent\""), "\(violations)")
            try await client.deleteEdit(edit)
            #expect(play.takeViolations().isEmpty)
        }
    }
}
