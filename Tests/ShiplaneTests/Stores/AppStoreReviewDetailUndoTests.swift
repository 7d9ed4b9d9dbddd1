import Foundation
import Testing
@testable import Shiplane

/// The undo of review details this run changed is a compare-and-swap per attribute (the
/// journal's rule): an attribute goes back only while it still holds the run's value; one
/// someone changed in App Store Connect since is left as it is, and the error names it.
@Suite("App Store: the review details' undo leaves details changed since", .offThePool)
struct AppStoreReviewDetailUndoTests {
    private func context(_ apple: FakeAppStoreConnect) -> EffectContext {
        EffectContext(workTree: "/", environment: LaneEnvironment(variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL)),
                      fileSystem: LiveFileSystem(), http: LiveHTTPClient(), retryPolicy: RetryPolicy(baseDelay: 0.01),
                      savedCopies: MemorySavedCopies(), gitFolder: nil)
    }

    @Test func eachDetailGoesBackOnlyWhileItHoldsTheRunsValue() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        // As the run left them: both changed, notes still the run's, the e-mail changed since.
        apple.lock.withLock {
            apple.review.details["ard-1"] = (version, ["contactEmail": "someone@example.com", "notes": "run's notes", "contactPhone": "+1 555 0100"])
        }
        let effect = AppStoreReviewDetailChanged(
            api: apple.baseURL, versionID: version, version: "1.4.0 (IOS)", id: "ard-1", created: false,
            previous: ["contactEmail": "old@example.com", "notes": "old notes", "contactPhone": "+1 555 0100"],
            passwordChanged: false, passwordWasSet: false,
            setTo: ["contactEmail": "run@example.com", "notes": "run's notes", "contactPhone": "+1 555 0199"])
        var thrown: (any Error)?
        do { try await effect.undo(in: context(apple), status: .done) } catch { thrown = error }
        let details = apple.reviewState.details["ard-1"]?.attributes ?? [:]
        #expect(details["notes"] as? String == "old notes")
        #expect(details["contactEmail"] as? String == "someone@example.com")
        #expect(details["contactPhone"] as? String == "+1 555 0100")
        #expect(allText(thrown).contains("contactEmail") && allText(thrown).contains("left as they are"), "\(allText(thrown))")
        #expect(!allText(thrown).contains("contactPhone") && !allText(thrown).contains("notes"), "\(allText(thrown))")
        // Only notes was written: the phone was already back, the e-mail someone's.
        let patches = apple.log.filter { $0.hasPrefix("PATCH ") }
        #expect(patches.count == 1, "\(apple.log)")

        // Nothing changed since: every detail goes back, and the undo succeeds.
        apple.lock.withLock {
            apple.review.details["ard-1"] = (version, ["contactEmail": "run@example.com", "notes": "run's notes", "contactPhone": "+1 555 0199"])
        }
        try await effect.undo(in: context(apple), status: .done)
        let back = apple.reviewState.details["ard-1"]?.attributes ?? [:]
        #expect(back["contactEmail"] as? String == "old@example.com")
        #expect(back["notes"] as? String == "old notes")
        #expect(back["contactPhone"] as? String == "+1 555 0100")
    }

    /// A record written before the run's values were kept (no `setTo`) puts the details back as
    /// it always did.
    @Test func anOlderRecordPutsTheDetailsBack() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        apple.lock.withLock { apple.review.details["ard-1"] = (version, ["notes": "someone's notes"]) }
        let json = #"{"api":"\#(apple.baseURL)","versionID":"\#(version)","version":"1.4.0 (IOS)","id":"ard-1","created":false,"previous":{"notes":"old notes"},"passwordChanged":false,"passwordWasSet":false}"#
        let effect = try JSONDecoder().decode(AppStoreReviewDetailChanged.self, from: Data(json.utf8))
        #expect(effect.setTo == nil)
        try await effect.undo(in: context(apple), status: .done)
        #expect(apple.reviewState.details["ard-1"]?.attributes["notes"] as? String == "old notes")
    }
}

/// The undo of a phased release this run turned on deletes it only while it is the run's.
@Suite("App Store: the phased release's undo leaves one made since", .offThePool)
struct AppStorePhasedReleaseUndoTests {
    @Test func onlyTheRunsPhasedReleaseIsDeleted() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL)),
                                    fileSystem: LiveFileSystem(), http: LiveHTTPClient(), retryPolicy: RetryPolicy(baseDelay: 0.01),
                                    savedCopies: MemorySavedCopies(), gitFolder: nil)
        let effect = AppStorePhasedReleaseChanged(api: apple.baseURL, versionID: version, version: "1.4.0 (IOS)", created: true, id: "apr-run")

        // Someone turned it off and on again in App Store Connect: another phased release, left.
        apple.lock.withLock { apple.review.phased["apr-other"] = (version, "INACTIVE") }
        var thrown: (any Error)?
        do { try await effect.undo(in: context, status: .done) } catch { thrown = error }
        #expect(apple.reviewState.phased["apr-other"] != nil)
        #expect(allText(thrown).contains("left as it is") && allText(thrown).contains("apr-other"), "\(allText(thrown))")
        #expect(!apple.log.contains { $0.hasPrefix("DELETE ") }, "\(apple.log)")

        // The run's own: deleted.
        apple.lock.withLock { apple.review.phased = ["apr-run": (version, "INACTIVE")] }
        try await effect.undo(in: context, status: .done)
        #expect(apple.reviewState.phased.isEmpty)
    }
}
