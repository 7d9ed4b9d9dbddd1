import Foundation
import Testing
@testable import Shiplane

/// How the TestFlight upload reads App Store Connect's answers, by Apple's published description:
/// a 409 is not "already submitted" unless the build says so, builds are looked up per platform,
/// lists are read with their filters and every page, export compliance is set only when empty,
/// and what stays after a rollback is said.
@Suite("TestFlight: App Store Connect's answers read as Apple describes them", .serialized, .offThePool)
struct TestFlightAnswersTests {
    func withStandIn(_ body: (FakeAppStoreConnect, String) async throws -> Void) async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        try await withTemporaryDirectory { folder in try await body(apple, folder.path) }
    }

    @Test func a409FromBetaReviewThatIsNotAnEarlierSubmissionFailsTheLane() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            apple.lock.withLock { apple.betaReviewRefusal = ("ENTITY_ERROR.ATTRIBUTE.REQUIRED", "Beta App Review information is missing: contact email") }
            let (result, _) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--beta-review"]), folder: folder,
                                                 variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL), rollback: false)
            #expect(!result.succeeded)
            #expect(allText(result.failure).contains("Beta App Review information is missing: contact email"), "\(allText(result.failure))")
            #expect(apple.log.contains { $0.hasSuffix("/betaAppReviewSubmission") }, "the build's submission was read: \(apple.log)")
        }
    }

    @Test func a409ForABuildAlreadyInBetaReviewCountsAsSubmitted() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            _ = apple.addBuild(version: "1.4.0", build: "42", betaReviewState: "IN_REVIEW")
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--beta-review"]), folder: folder,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains("already submitted for beta app review (IN_REVIEW)"), "\(messages)")
        }
    }

    @Test func aTVOSBuildWithTheSameNumbersIsNotTheIOSBuild() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let tvOS = apple.addBuild(version: "1.4.0", build: "42", platform: "TV_OS")
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa", "--groups", "QA", "--whats-new", "New engine"]),
                                                        folder: folder, variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(!messages.contains { $0.contains("already on App Store Connect") }, "\(messages)")
            #expect(apple.log.contains("POST /v1/buildUploads"))
            let builds = apple.allBuilds
            let untouched = try #require(builds[tvOS])
            #expect(untouched.encryption == nil && untouched.groups.isEmpty && untouched.whatsNew.isEmpty, "the tvOS build was changed: \(untouched)")
            let iOS = try #require(builds.first { $0.key != tvOS }?.value)
            #expect(iOS.platform == "IOS" && iOS.groups == ["group-qa"] && iOS.whatsNew == ["en-US": "New engine"])
        }
    }

    /// The upload being processed is on the second page: the re-run follows `links.next` to it
    /// instead of making a duplicate Apple refuses.
    @Test func aRerunFindsAnUploadOnALaterPage() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            apple.lock.withLock { apple.buildUploadPageSize = 1 }
            let processing = apple.addUpload(version: "1.4.0", build: "42", state: "PROCESSING")
            _ = apple.addUpload(version: "1.4.0", build: "42", state: "FAILED")
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains("build upload \(processing) from an earlier run is being processed: waiting for it"), "\(messages)")
            #expect(apple.allUploads.count == 2 && !apple.log.contains("POST /v1/buildUploads"))
        }
    }

    @Test func exportComplianceIsSetOnlyWhenTheBuildHasNoAnswer() async throws {
        try await withStandIn { apple, folder in
            try StoreFixtures.makeIPA(at: folder + "/Rocket.ipa")
            let build = apple.addBuild(version: "1.4.0", build: "42", encryption: true)
            let (result, messages) = await runStoreLane(try lane(ShipToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(!apple.log.contains("PATCH /v1/builds/\(build)"), "\(apple.log)")
            #expect(apple.allBuilds[build]?.encryption == true)
            #expect(messages.contains("export compliance already answered for this build (usesNonExemptEncryption = true): left as it is"), "\(messages)")
        }
    }

    /// A body streamed from disk is detail, not a warning: an ordinary upload shows no warning marker.
    @Test func aStreamedBodyIsDetailAndARetryAWarning() {
        #expect(StepContext.level(of: .streamingUpload(path: "/tmp/Rocket.aab", bytes: 5_000_000)) == .debug)
        #expect(StepContext.level(of: .retrying(method: "PUT", url: "https://x", attempt: 2, maxAttempts: 4, reason: "503", delay: 1)) == .warning)
    }

    /// The create call's answer was lost (no id in the record): the undo lists the uploads of that
    /// version with the declared filters, page after page, and deletes the one awaiting its file.
    @Test func theUndoWithoutAnIDFollowsEveryPage() async throws {
        try await withStandIn { apple, _ in
            apple.lock.withLock { apple.buildUploadPageSize = 1 }
            let unfinished = apple.addUpload(version: "1.4.0", build: "42", state: "AWAITING_UPLOAD")
            _ = apple.addUpload(version: "1.4.0", build: "42", state: "FAILED")
            let tvOS = apple.addUpload(version: "1.4.0", build: "42", state: "AWAITING_UPLOAD", platform: "TV_OS")
            let effect = BuildUploadCreated(api: apple.baseURL, uploadID: nil, label: "1.4.0 (42)", appID: "app-1", version: "1.4.0",
                                            buildNumber: "42", platform: "IOS")
            try await effect.undo(in: context(apple), status: .intended)
            #expect(apple.allUploads[unfinished] == nil, "\(apple.allUploads)")
            #expect(apple.allUploads[tvOS] != nil, "another platform's upload is not this run's")
            #expect(apple.log.contains { $0 == "DELETE /v1/buildUploads/\(unfinished)" })
        }
    }

    /// Without an id, an upload of that version Apple is processing or has accepted is this run's
    /// (preflight found none): it cannot be deleted, and the undo says it stays, not "undone".
    @Test func theUndoWithoutAnIDSaysAnAcceptedBuildStays() async throws {
        try await withStandIn { apple, _ in
            let accepted = apple.addUpload(version: "1.4.0", build: "42", state: "COMPLETE")
            let effect = BuildUploadCreated(api: apple.baseURL, uploadID: nil, label: "1.4.0 (42)", appID: "app-1", version: "1.4.0",
                                            buildNumber: "42", platform: "IOS")
            await #expect { try await effect.undo(in: context(apple), status: .intended) } throws: { error in
                (error as? EffectStays)?.message.contains("build upload \(accepted) for 1.4.0 (42)") == true
            }
            #expect(apple.allUploads[accepted] != nil)
            #expect(!apple.log.contains { $0.hasPrefix("DELETE ") })
        }
    }

    func context(_ apple: FakeAppStoreConnect) -> EffectContext {
        var environment = LaneEnvironment(variables: [:])
        for (name, value) in StoreFixtures.appleEnvironment(apiURL: apple.baseURL) { environment.set(name, value) }
        return EffectContext(workTree: "/", environment: environment, fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                             retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
    }
}
