import Foundation
import Testing
@testable import Shiplane

/// `lane.submitToAppStore` run by the built `shiplane` against the App Store Connect stand-in
/// checked against Apple's published description: build, review details, release type, phased
/// release and the review submission — the store's point of no return.
@Suite("App Store review submission through the CLI", .serialized, .offThePool)
struct AppStoreSubmissionTests {
    static let password = "demo-Pa55word-xyz"

    private func repository(submit: Bool = true, extra: String = "", call: String? = nil) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        let submitCall = call ?? """
        try await lane.submitToAppStore(bundleID: "com.acme.rocket", version: "1.4.0", build: "42", releaseType: "AFTER_APPROVAL",
                                                phasedRelease: true, submit: \(submit))
        """
        try repo.write("Lanes/Review.swift", """
        import Shiplane
        struct Review: Lane {
            func run(_ lane: LaneContext) async throws {
                \(submitCall)
                \(extra)
            }
        }
        """)
        try repo.write("fastlane/metadata/review_information/first_name.txt", "Ada\n")
        try repo.write("fastlane/metadata/review_information/last_name.txt", "Lovelace\n")
        try repo.write("fastlane/metadata/review_information/email_address.txt", "ada@acme.test\n")
        try repo.write("fastlane/metadata/review_information/phone_number.txt", "+44 20 7946 0000\n")
        try repo.write("fastlane/metadata/review_information/demo_user.txt", "reviewer@acme.test\n")
        try repo.write("fastlane/metadata/review_information/demo_password.txt", Self.password + "\n")
        try repo.write("fastlane/metadata/review_information/notes.txt", "Tap the rocket.\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes and review information")
        return repo
    }

    /// A stand-in with app-1's version 1.4.0 being prepared, its build 42 processed, another
    /// build attached, and review details with an older contact.
    private func apple() async throws -> (FakeAppStoreConnect, version: String, build: String, oldBuild: String) {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        let version = apple.addStoreVersion("1.4.0")
        let build = apple.addBuild(version: "1.4.0", build: "42")
        _ = apple.addBuild(version: "1.4.0", build: "42", platform: "TV_OS")
        let oldBuild = apple.addBuild(version: "1.4.0", build: "41")
        apple.lock.withLock {
            apple.review.attachedBuild[version] = oldBuild
            apple.review.releaseType[version] = "MANUAL"
            apple.review.details["ard-0"] = (version, ["contactFirstName": "Old", "contactEmail": "ada@acme.test", "demoAccountRequired": false])
        }
        return (apple, version, build, oldBuild)
    }

    private func everythingPrinted(_ repo: TemporaryRepository) -> String {
        let shiplane = repo.path + "/.git/shiplane"
        var text = ""
        if let files = FileManager.default.enumerator(atPath: shiplane) {
            for case let file as String in files { text += (try? String(contentsOfFile: shiplane + "/" + file, encoding: .utf8)) ?? "" }
        }
        return text
    }

    @Test func dryRunPrintsThePlanThenARunSubmitsOnceAndARerunSendsNothing() async throws {
        let (apple, version, build, _) = try await apple()
        defer { apple.stop() }
        let repo = try repository()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        func writes() -> [String] { apple.log.filter { !$0.hasPrefix("GET ") } }

        let dry = try await repo.shiplaneAsync(["review", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(writes().isEmpty, "\(apple.log)")
        #expect(!dry.all.contains(Self.password), "the demo password is never printed")
        let plan = dry.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.contains(" → ") || $0.contains("would submit") || $0.contains("would not submit") }
        try expectGolden(plan.joined(separator: "\n") + "\n", "app-store-submission-dry-run.txt")

        let run = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(!run.all.contains(Self.password) && !everythingPrinted(repo).contains(Self.password), "\(run.all)")
        let state = apple.reviewState
        #expect(state.attachedBuild[version] == build, "the iOS build 42, not the tvOS one")
        #expect(state.releaseType[version] == "AFTER_APPROVAL")
        #expect(state.phased.values.map(\.versionID) == [version])
        let details = state.details["ard-0"]?.attributes ?? [:]
        #expect(details["contactFirstName"] as? String == "Ada" && details["demoAccountPassword"] as? String == Self.password)
        #expect(details["demoAccountRequired"] as? Bool == true, "deliver's rule: demo user and password given")
        #expect(state.submissions.values.map(\.state) == ["WAITING_FOR_REVIEW"], "\(apple.log)")
        #expect(apple.versionState(version) == "WAITING_FOR_REVIEW")

        let before = writes().count
        let again = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already WAITING_FOR_REVIEW"), "\(again.all)")
        #expect(writes().count == before, "no second submission, nothing sent: \(writes())")
        #expect(apple.reviewState.submissions.count == 1)
    }

    @Test func withoutSubmitNothingIsSentForReviewAndAFailedRunPutsEverythingBack() async throws {
        let (apple, version, _, oldBuild) = try await apple()
        defer { apple.stop() }
        let repo = try repository(submit: false, extra: #"try await lane.sh("false")"#)
        let failed = try await repo.shiplaneAsync(["review"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.log.contains("PATCH /v1/appStoreVersions/\(version)/relationships/build"), "\(apple.log)")
        #expect(!apple.log.contains { $0.contains("reviewSubmission") && !$0.hasPrefix("GET") }, "never submitted: \(apple.log)")
        let state = apple.reviewState
        #expect(state.attachedBuild[version] == oldBuild, "the previous build is attached again: \(failed.all)")
        #expect(state.releaseType[version] == "MANUAL")
        #expect(state.phased.isEmpty, "the phased release this run turned on is deleted")
        let details = state.details["ard-0"]?.attributes ?? [:]
        #expect(details["contactFirstName"] as? String == "Old" && details["contactLastName"] == nil && details["demoAccountPassword"] == nil,
                "the old details are back, the password this run set is removed: \(details)")
        #expect(details["demoAccountRequired"] as? Bool == false)
        #expect(!failed.all.contains(Self.password))
        #expect(apple.versionState(version) == "PREPARE_FOR_SUBMISSION")
    }

    /// Without submit, the settings are made and nothing is sent for review; run again, nothing differs and nothing is sent.
    @Test func withoutSubmitARerunWithNothingChangedSendsNoWrite() async throws {
        let (apple, version, build, _) = try await apple()
        defer { apple.stop() }
        let repo = try repository(submit: false)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        func writes() -> [String] { apple.log.filter { !$0.hasPrefix("GET ") } }
        let run = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.all.contains("not submitted for review (submit: false)"), "\(run.all)")
        #expect(apple.reviewState.attachedBuild[version] == build && apple.reviewState.submissions.isEmpty)
        #expect(apple.versionState(version) == "PREPARE_FOR_SUBMISSION")
        let before = writes()
        let again = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(writes() == before, "nothing differs, nothing is sent: \(writes())")
        #expect(!again.all.contains(" → "), "no change is listed: \(again.all)")
    }

    /// Past the submission, a failure rolls nothing back: what was submitted stays, and the report says so.
    @Test func aFailureAfterTheSubmissionLeavesItSubmitted() async throws {
        let (apple, version, build, _) = try await apple()
        defer { apple.stop() }
        let repo = try repository(extra: #"try await lane.sh("false")"#)
        let failed = try await repo.shiplaneAsync(["review"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(failed.status != 0, "\(failed.all)")
        #expect(failed.all.contains("submitted for review"), "\(failed.all)")
        #expect(apple.versionState(version) == "WAITING_FOR_REVIEW")
        #expect(apple.reviewState.attachedBuild[version] == build, "nothing before the point of no return is undone")
        #expect(apple.reviewState.submissions.values.map(\.state) == ["WAITING_FOR_REVIEW"])
    }

    /// The lane program SIGKILLed while Apple's answer to the submission is on its way: the
    /// submission happened, the run is past its point of no return and not rolled back; run again,
    /// it sees the version waiting for review and submits nothing a second time.
    @Test func killedDuringTheSubmissionARerunSubmitsExactlyOnce() async throws {
        let (apple, version, _, _) = try await apple()
        defer { apple.stop() }
        apple.answerLate(method: "PATCH", path: "/v1/reviewSubmissions/", seconds: 60)
        let repo = try repository()
        let environment = repo.environment.merging(StoreFixtures.appleEnvironment(apiURL: apple.baseURL)) { $1 }
        let run = try SupervisedRun(["review"], in: repo.path, environment: environment)
        run.wait { apple.versionState(version) == "WAITING_FOR_REVIEW" }
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status != 0, "\(all)")
        #expect(!all.contains(Self.password))
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "the run is left resumable: \(all)")
        #expect(!everythingPrinted(repo).contains(Self.password), "the record holds no demo password")
        #expect(apple.reviewState.submissions.values.map(\.state) == ["WAITING_FOR_REVIEW"], "not rolled back: \(all)")
        #expect(apple.reviewState.phased.count == 1, "nothing before the point of no return is undone: \(all)")
        let again = try await repo.shiplaneAsync(["review"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(again.status == 0 && again.all.contains("already WAITING_FOR_REVIEW"), "\(again.all)")
        #expect(apple.log.filter { $0.hasPrefix("PATCH /v1/reviewSubmissions/") }.count == 1, "submitted once: \(apple.log)")
        #expect(apple.reviewState.submissions.count == 1)
    }

    /// `shiplane` itself SIGKILLed (supervisor and lane program) before the submission, while
    /// the version was being added to the review submission: `shiplane rollback` removes what the
    /// run made from the record; a re-run then submits exactly once.
    @Test func killedBeforeTheSubmissionRollbackCancelsItAndARerunSubmitsOnce() async throws {
        let (apple, version, build, oldBuild) = try await apple()
        defer { apple.stop() }
        apple.answerLate(method: "POST", path: "/v1/reviewSubmissionItems", seconds: 60)
        let repo = try repository()
        let environment = repo.environment.merging(StoreFixtures.appleEnvironment(apiURL: apple.baseURL)) { $1 }
        let run = try SupervisedRun(["review"], in: repo.path, environment: environment)
        run.wait { !apple.reviewState.items.isEmpty }
        try run.killEverything()
        #expect(apple.versionState(version) == "READY_FOR_REVIEW", "the item was added, nothing submitted")
        let rollback = try await repo.shiplaneAsync(["rollback"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains(Self.password))
        let state = apple.reviewState
        #expect(state.items.isEmpty && state.submissions.isEmpty, "the item found by its version and removed, the submission cancelled: \(rollback.all) \(apple.log)")
        #expect(state.attachedBuild[version] == oldBuild && state.phased.isEmpty && state.releaseType[version] == "MANUAL", "\(rollback.all)")
        #expect(apple.versionState(version) == "PREPARE_FOR_SUBMISSION")
        let again = try await repo.shiplaneAsync(["review"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(again.status == 0, "\(again.all)")
        #expect(apple.reviewState.submissions.values.map(\.state) == ["WAITING_FOR_REVIEW"], "\(apple.log)")
        #expect(apple.reviewState.attachedBuild[version] == build)
        #expect(apple.log.filter { $0.hasPrefix("PATCH /v1/reviewSubmissions/") && true }.count == 2, "the rollback's cancel and one submission: \(apple.log)")
    }

    /// `shiplane` SIGKILLed while the version was being added to the review submission, then the
    /// same command run again straight away: the version ends submitted exactly once, in one
    /// review submission with one item.
    @Test func killedBeforeTheSubmissionARerunSubmitsExactlyOnce() async throws {
        let (apple, version, _, _) = try await apple()
        defer { apple.stop() }
        apple.answerLate(method: "POST", path: "/v1/reviewSubmissionItems", seconds: 60)
        let repo = try repository()
        let environment = repo.environment.merging(StoreFixtures.appleEnvironment(apiURL: apple.baseURL)) { $1 }
        let run = try SupervisedRun(["review"], in: repo.path, environment: environment)
        run.wait { !apple.reviewState.items.isEmpty }
        try run.killEverything()
        let again = try await repo.shiplaneAsync(["review"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(again.status == 0, "\(again.all)")
        #expect(!again.all.contains(Self.password))
        let state = apple.reviewState
        #expect(state.submissions.values.map(\.state) == ["WAITING_FOR_REVIEW"], "\(again.all) \(apple.log)")
        #expect(state.items.count == 1, "\(apple.log)")
        #expect(apple.versionState(version) == "WAITING_FOR_REVIEW")
        #expect(apple.log.filter { $0.hasPrefix("PATCH /v1/reviewSubmissions/") }.count <= 2, "at most a cancel and one submission: \(apple.log)")
    }

    /// With `processingTimeout`, a build still processing is waited for (read until App Store
    /// Connect says VALID) and then attached; a build that stays processing past the timeout
    /// stops the run before anything is written, saying what to do.
    @Test func aProcessingBuildIsWaitedForWithProcessingTimeout() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        let build = apple.addBuild(version: "1.4.0", build: "42", state: "PROCESSING")
        apple.lock.withLock { apple.buildProcessingPolls = 2 }
        let repo = try repository(call: """
        try await lane.submitToAppStore(bundleID: "com.acme.rocket", version: "1.4.0", build: "42", processingTimeout: 600)
        """)
        var environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        environment["SHIPLANE_POLL_INTERVAL"] = "0"

        let dry = try await repo.shiplaneAsync(["review", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("the run would wait for it (at most 600 s)"), "\(dry.all)")
        #expect(apple.log.allSatisfy { $0.hasPrefix("GET ") } && !apple.log.contains("GET /v1/builds/\(build)"), "a dry run neither writes nor waits: \(apple.log)")

        let run = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.all.contains("waiting for it (at most 600 s)") && run.all.contains("is VALID"), "\(run.all)")
        #expect(apple.log.filter { $0 == "GET /v1/builds/\(build)" }.count >= 3, "read until processed: \(apple.log)")
        #expect(apple.reviewState.attachedBuild[version] == build, "\(run.all)")

        let stuck = apple.addBuild(version: "1.4.0", build: "43", state: "PROCESSING")
        apple.lock.withLock { apple.buildProcessingPolls = 1_000_000 }
        try repo.write("Lanes/Review.swift", """
        import Shiplane
        struct Review: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.submitToAppStore(bundleID: "com.acme.rocket", version: "1.4.0", build: "43", processingTimeout: 0.2, pollInterval: 0.05)
            }
        }
        """)
        environment["SHIPLANE_POLL_INTERVAL"] = nil
        let writesBefore = apple.log.filter { !$0.hasPrefix("GET ") }.count
        let timedOut = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(timedOut.status != 0, "\(timedOut.all)")
        #expect(timedOut.all.contains("build 1.4.0 (43) is still processing on App Store Connect after 0.2 s") && timedOut.all.contains("raise processingTimeout"),
                "\(timedOut.all)")
        #expect(apple.log.filter { !$0.hasPrefix("GET ") }.count == writesBefore && apple.reviewState.attachedBuild[version] == build,
                "nothing written: \(apple.log)")
        #expect(apple.log.contains("GET /v1/builds/\(stuck)"), "\(apple.log)")

        let bad = SubmitToAppStore(bundleID: "b", version: "1", platform: "IOS", build: "1", metadataPath: "m", releaseType: nil,
                                   earliestReleaseDate: nil, phasedRelease: nil, submit: false, processingTimeout: -1, pollInterval: 0).optionProblems().map(allText)
        #expect(bad.count == 2 && bad.contains { $0.contains("processingTimeout is -1.0") } && bad.contains { $0.contains("pollInterval is 0.0") }, "\(bad)")
    }

    @Test func aMissingVersionAProcessingBuildAndBadOptionsAreReportedBeforeAnythingIsSent() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let repo = try repository()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let missing = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.all.contains("no App Store version 1.4.0 for IOS") && missing.all.contains("updateAppStoreMetadata"), "\(missing.all)")
        _ = apple.addStoreVersion("1.4.0")
        _ = apple.addBuild(version: "1.4.0", build: "42", state: "PROCESSING")
        let processing = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(processing.status != 0)
        #expect(processing.all.contains("still processing"), "\(processing.all)")
        #expect(apple.log.allSatisfy { $0.hasPrefix("GET ") }, "nothing written: \(apple.log)")

        let action = SubmitToAppStore(bundleID: "b", version: "1", platform: "ANDROID", build: "", metadataPath: "m", releaseType: "SCHEDULED",
                                      earliestReleaseDate: "tomorrow", phasedRelease: nil, submit: true)
        let problems = action.optionProblems().map(allText)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.contains("platform ANDROID") } && problems.contains { $0.contains("tomorrow") } && problems.contains { $0.contains("build is empty") })
        let dated = SubmitToAppStore(bundleID: "b", version: "1", platform: "IOS", build: nil, metadataPath: "m", releaseType: "MANUAL",
                                     earliestReleaseDate: "2026-12-01T08:00:00Z", phasedRelease: nil, submit: false).optionProblems().map(allText)
        #expect(dated.count == 1 && dated[0].contains("earliestReleaseDate is only for releaseType SCHEDULED"), "\(dated)")
    }

    /// A scheduled release with the phased release turned off and no review_information folder
    /// (the review details are left alone); a failure puts the release type and the phased release back.
    @Test func aScheduledReleaseWithoutPhasesIsSetAndPutBack() async throws {
        let (apple, version, _, oldBuild) = try await apple()
        defer { apple.stop() }
        apple.lock.withLock { apple.review.phased["phased-0"] = (version, "INACTIVE") }
        let repo = try repository(extra: #"try await lane.sh("false")"#, call: """
        try await lane.submitToAppStore(bundleID: "com.acme.rocket", version: "1.4.0", metadataPath: "elsewhere", releaseType: "SCHEDULED",
                                                earliestReleaseDate: "2026-12-01T08:00:00Z", phasedRelease: false)
        """)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let dry = try await repo.shiplaneAsync(["review", "--dry-run"], environment: environment)
        #expect(dry.all.contains("releaseType: MANUAL → SCHEDULED 2026-12-01T08:00:00Z") && dry.all.contains("phasedRelease: on → off"), "\(dry.all)")
        #expect(dry.all.contains("would not submit for review (submit: false)"), "\(dry.all)")
        let failed = try await repo.shiplaneAsync(["review"], environment: environment)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.log.contains("PATCH /v1/appStoreVersions/\(version)") && apple.log.contains("DELETE /v1/appStoreVersionPhasedReleases/phased-0"), "\(apple.log)")
        #expect(!apple.log.contains { $0.contains("appStoreReviewDetail") || $0.contains("relationships/build") }, "no review folder, no build: left alone \(apple.log)")
        let state = apple.reviewState
        #expect(state.releaseType[version] == "MANUAL" && state.earliestReleaseDate[version] == nil, "\(failed.all)")
        #expect(state.phased.values.map(\.versionID) == [version], "the phased release is turned on again: \(failed.all)")
        #expect(state.attachedBuild[version] == oldBuild)
    }

    /// What App Store Connect cannot take back is reported as staying, not as an undo that failed.
    @Test func undosThatCannotPutEverythingBackSayWhatStays() async throws {
        let (apple, version, build, _) = try await apple()
        defer { apple.stop() }
        var environment = LaneEnvironment(variables: [:])
        for (name, value) in StoreFixtures.appleEnvironment(apiURL: apple.baseURL) { environment.set(name, value) }
        let context = EffectContext(workTree: "/", environment: environment, fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                                    retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
        apple.lock.withLock { apple.review.details["ard-0"]?.attributes = ["contactFirstName": "Ada", "demoAccountPassword": "new-secret"] }
        let detail = AppStoreReviewDetailChanged(api: apple.baseURL, versionID: version, version: "1.4.0", id: "ard-0", created: false,
                                                 previous: ["contactFirstName": "Old"], passwordChanged: true, passwordWasSet: true)
        await #expect(throws: EffectStays.self) { try await detail.undo(in: context, status: .done) }
        let details = apple.reviewState.details["ard-0"]?.attributes ?? [:]
        #expect(details["contactFirstName"] as? String == "Old", "the rest is put back: \(details)")
        #expect(details["demoAccountPassword"] as? String == "new-secret")
        let attached = AppStoreBuildAttached(api: apple.baseURL, versionID: version, version: "1.4.0", buildID: build, previousBuildID: nil)
        await #expect { try await attached.undo(in: context, status: .done) } throws: { ($0 as? EffectStays)?.message.contains("no way to detach") == true }
        await #expect(throws: EffectStays.self) { try await AppStoreSubmittedForReview(submissionID: "rs-1", version: "1.4.0").undo(in: context, status: .done) }
        // A review submission already submitted stays; one not found (never created) is nothing to undo.
        apple.lock.withLock { apple.review.submissions["rs-9"] = ("app-1", "IOS", "WAITING_FOR_REVIEW", nil) }
        await #expect(throws: EffectStays.self) {
            try await AppStoreReviewSubmissionCreated(api: apple.baseURL, appID: "app-1", platform: "IOS", id: "rs-9").undo(in: context, status: .done)
        }
        try await AppStoreReviewSubmissionCreated(api: apple.baseURL, appID: "app-1", platform: "MAC_OS", id: nil).undo(in: context, status: .intended)
    }

    @Test func reviewInformationReadsDeliversFolder() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.path + "/review_information"
            #expect(try AppStoreReviewInformation.read(folder: path) == nil, "no folder: details left as they are")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            #expect { try AppStoreReviewInformation.read(folder: path) } throws: { allText($0).contains("holds none of deliver's files") }
            try "  Ada \n".write(toFile: path + "/first_name.txt", atomically: true, encoding: .utf8)
            try "\n".write(toFile: path + "/demo_password.txt", atomically: true, encoding: .utf8)
            try "user\n".write(toFile: path + "/demo_user.txt", atomically: true, encoding: .utf8)
            let info = try AppStoreReviewInformation.read(folder: path)
            #expect(info?.values == ["contactFirstName": "Ada", "demoAccountName": "user"], "stripped; an empty file counts as absent")
            #expect(info?.demoAccountRequired == false, "a demo account needs both user and password")
        }
    }
}
