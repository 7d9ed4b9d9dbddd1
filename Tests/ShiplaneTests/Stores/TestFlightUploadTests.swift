import Foundation
import Testing
@testable import Shiplane
import Crypto
import _CryptoExtras

@Suite("Upload to TestFlight through the App Store Connect stand-in", .serialized, .offThePool)
struct StoresTestFlightUploadTests {
    func withStandIn(_ body: (FakeAppStoreConnect, String) async throws -> Void) async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        try await withTemporaryDirectory { folder in try await body(apple, folder.path) }
    }

    @Test func uploadsEveryPartAsGivenAndReadiesTheBuild() async throws {
        try await withStandIn { apple, folder in
            let ipa = try StoreFixtures.makeIPA(at: folder + "/build/Rocket.ipa", payloadBytes: 700_000)
            apple.fail(1, method: "PUT", path: "/upload/file-", status: 500)                                   // a part fails once
            apple.fail(1, method: "POST", path: "/v1/buildUploadFiles", status: 429, headers: ["Retry-After": "0"])
            let (result, messages) = await runStoreLane(
                try lane(ShipToTestFlight.self, ["--ipa", "build/Rocket.ipa", "--groups", "QA", "--whats-new", "Try the new engine", "--beta-review"]),
                folder: folder, variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            let builds = apple.allBuilds
            #expect(builds.count == 1)
            let build = try #require(builds.values.first)
            #expect(build.shortVersion == "1.4.0" && build.version == "42")
            #expect(build.processingState == "VALID")
            #expect(build.groups == ["group-qa"])
            #expect(build.whatsNew == ["en-US": "Try the new engine"])
            #expect(build.encryption == false)
            #expect(build.betaReview != nil)
            // Three parts, the failed one sent twice; none carried the token; each had its own headers.
            let parts = apple.parts
            let sent = apple.log.filter { $0.hasPrefix("PUT /upload/") }
            #expect(sent.count == 4)
            #expect(Set(sent).count == 3)
            #expect(parts.count == 3, "the failed attempt was answered before the part was looked at")
            #expect(parts.allSatisfy { $0.headers["authorization"] == nil })
            #expect(parts.allSatisfy { $0.headers["x-apple-upload-part"] != nil && $0.headers["x-apple-upload-token"] != nil })
            let log = apple.log
            let create = try #require(log.firstIndex(of: "POST /v1/buildUploads"))
            let commit = try #require(log.firstIndex { $0.hasPrefix("PATCH /v1/buildUploadFiles/") })
            let firstPart = try #require(log.firstIndex { $0.hasPrefix("PUT /upload/") })
            #expect(create < firstPart && firstPart < commit)
            #expect(messages.contains { $0.contains("in 3 parts") })
            #expect(messages.contains { $0.contains("returned com.acme.rocket 1.4.0 (42) [VALID]") })
            #expect(FileManager.default.fileExists(atPath: ipa))
        }
    }

    @Test func aRateLimitedPartWaitsAsToldAndOnlyThatPartIsSentAgain() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa", payloadBytes: 500_000)
            apple.partCount = 4
            apple.fail(1, method: "PUT", path: "/upload/file-", status: 429, headers: ["Retry-After": "1"])
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            let sent = apple.log.filter { $0.hasPrefix("PUT /upload/") }
            #expect(sent.count == 5 && Set(sent).count == 4, "\(sent)")
            #expect(messages.contains { $0.contains("429") }, "the retry is shown: \(messages)")
            #expect(messages.contains { $0.contains("part 4 of 4 sent, 100%") })
            #expect(apple.allBuilds.count == 1)
        }
    }

    @Test func dryRunOnlyReadsAndSaysWhatWouldBeUploaded() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--groups", "QA"]),
                                                 folder: folder, variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL), dryRun: true)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(apple.log.allSatisfy { $0.hasPrefix("GET ") }, "\(apple.log)")
            #expect(apple.allUploads.isEmpty && apple.parts.isEmpty)
            let note = result.steps.first { $0.name == "uploadToTestFlight" }?.note ?? ""
            #expect(note.contains("would upload com.acme.rocket 1.4.0 (42)"), "\(note)")
            #expect(note.contains("QA"))
        }
    }

    @Test func preflightReportsEveryProblemBeforeAnyRequest() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa", version: "1.4.0-beta")
            var variables = StoreFixtures.appleEnvironment(apiURL: apple.baseURL, key: StoreFixtures.googleKey?.pemRepresentation)
            variables["APP_STORE_CONNECT_KEY_ID"] = nil
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder, variables: variables)
            let text = allText(result.failure)
            #expect(text.contains("3 problems found before anything was sent"), "\(text)")
            #expect(text.contains("CFBundleShortVersionString \"1.4.0-beta\""))
            #expect(text.contains("APP_STORE_CONNECT_KEY_ID is not set"))
            #expect(text.contains("not an EC P-256 key"))
            #expect(apple.log.isEmpty)
        }
    }

    @Test func unknownAppGroupsAndLongNotesAreReportedTogether() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Other.ipa", bundleID: "com.acme.other")
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
            let other = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Other.ipa"]), folder: folder, variables: environment)
            #expect(allText(other.result.failure).contains("no app with bundle ID com.acme.other"))
            let rocket = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--groups", "Nope", "--whats-new", String(repeating: "x", count: 4001)]),
                                            folder: folder, variables: environment)
            let text = allText(rocket.result.failure)
            #expect(text.contains("no beta group named Nope") && text.contains("Friends, QA"), "\(text)")
            #expect(text.contains("4001 characters"))
            #expect(apple.allUploads.isEmpty)
        }
    }

    @Test func aRevokedKeyShowsApplesErrorAndWhatToDo() async throws {
        try await withStandIn { apple, folder in
            apple.revoked = true
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            let text = allText(result.failure)
            #expect(text.contains("HTTP 401") && text.contains("NOT_AUTHORIZED"), "\(text)")
            #expect(text.contains("expired, revoked"))
            #expect(apple.allUploads.isEmpty)
        }
    }

    @Test func processingThatFailsListsApplesErrorsAndRollbackDeletesTheUpload() async throws {
        try await withStandIn { apple, folder in
            apple.processingErrors = [("ITMS-90062", "The value for key CFBundleShortVersionString [1.4.0] must contain a higher version")]
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            let text = allText(result.failure)
            #expect(text.contains("could not process build 1.4.0 (42)"), "\(text)")
            #expect(text.contains("ITMS-90062: The value for key CFBundleShortVersionString"))
            #expect(text.contains("warning: ITMS-90725"))
            #expect(result.failure?.rollback.first?.undone == true)
            #expect(apple.allUploads.isEmpty, "the failed build upload was deleted")
        }
    }

    @Test func operationsThatDoNotCoverTheFileAreRefusedAndNothingIsLeft() async throws {
        try await withStandIn { apple, folder in
            apple.leaveGap = true
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(allText(result.failure).contains("do not cover the file"), "\(allText(result.failure))")
            #expect(apple.parts.isEmpty)
            #expect(apple.allUploads.isEmpty)
        }
    }

    @Test func expiredUploadURLsAreNotUsed() async throws {
        try await withStandIn { apple, folder in
            apple.uploadURLLifetime = -60
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(allText(result.failure).contains("expired"))
            #expect(apple.parts.isEmpty)
            #expect(apple.allUploads.isEmpty)
        }
    }

    @Test func rollbackAfterAppleAcceptedTheBuildLeavesItAndSaysSo() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--fail-after"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            let entry = try #require(result.failure?.rollback.first)
            #expect(!entry.undone)
            #expect(entry.error?.contains("a build cannot be deleted, so it stays") == true, "\(entry)")
            #expect(apple.allBuilds.count == 1)
        }
    }

    @Test func aRerunAfterAKilledUploadStartsCleanWithoutADuplicate() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
            apple.fail(10, method: "PATCH", path: "/v1/buildUploadFiles/", status: 503)
            let first = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder, variables: environment, rollback: false)
            #expect(!first.result.succeeded)
            #expect(apple.allUploads.values.map(\.state) == ["AWAITING_UPLOAD"], "as a killed run leaves it")
            apple.lock.withLock { apple.faults.removeAll() }
            let second = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--whats-new", "first notes"]), folder: folder, variables: environment)
            #expect(second.result.succeeded, "\(allText(second.result.failure))")
            #expect(second.messages.contains { $0.contains("left unfinished by an earlier run") })
            #expect(apple.allUploads.count == 1)
            #expect(apple.allBuilds.count == 1)
            // A third run finds the build and uploads nothing.
            let before = apple.log.count
            let third = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--groups", "QA", "--whats-new", "second notes"]),
                                           folder: folder, variables: environment)
            #expect(third.result.succeeded, "\(allText(third.result.failure))")
            let later = Array(apple.log[before...])
            #expect(!later.contains("POST /v1/buildUploads") && !later.contains { $0.hasPrefix("PUT /upload/") })
            #expect(later.contains { $0.hasPrefix("PATCH /v1/betaBuildLocalizations/") }, "What to Test is updated, not added twice")
            #expect(apple.allBuilds.values.first?.groups == ["group-qa"])
            #expect(apple.allBuilds.values.first?.whatsNew == ["en-US": "second notes"])
        }
    }

    @Test func aRerunWaitsForAnUploadAlreadyBeingProcessed() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let uploadID = apple.addUpload(version: "1.4.0", build: "42", state: "PROCESSING")
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains { $0.contains("build upload \(uploadID) from an earlier run is being processed") })
            #expect(!apple.log.contains("POST /v1/buildUploads"))
            #expect(apple.allBuilds.count == 1)
        }
    }

    @Test func secretsNeverShow() async throws {
        try await withStandIn { apple, folder in
            apple.revoked = true
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder, variables: environment)
            let everything = allText(result.failure) + messages.joined(separator: "\n") + result.steps.map { "\($0)" }.joined()
            let keyLines = StoreFixtures.appleKey.pemRepresentation.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
            let leaked = keyLines.filter { everything.contains($0) }
            #expect(leaked.isEmpty)
            #expect(!everything.contains("eyJ"))
        }
    }
}
