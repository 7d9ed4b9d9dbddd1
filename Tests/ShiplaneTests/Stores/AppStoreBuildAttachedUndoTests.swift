import Foundation
import Testing
@testable import Shiplane

/// The undo of a build this run attached to an App Store version is a compare-and-swap (the
/// journal's rule): the previous build goes back only while the version still has the run's.
@Suite("App Store: the attached build's undo leaves a build attached since", .offThePool)
struct AppStoreBuildAttachedUndoTests {
    @Test func theUndoPutsThePreviousBuildBackOnlyOverTheRunsOwn() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        let old = apple.addBuild(version: "1.4.0", build: "41")
        let runs = apple.addBuild(version: "1.4.0", build: "42")
        let other = apple.addBuild(version: "1.4.0", build: "43")
        let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL)),
                                    fileSystem: LiveFileSystem(), http: LiveHTTPClient(), retryPolicy: RetryPolicy(baseDelay: 0.01),
                                    savedCopies: MemorySavedCopies(), gitFolder: nil)
        let effect = AppStoreBuildAttached(api: apple.baseURL, versionID: version, version: "1.4.0 (IOS)", buildID: runs, previousBuildID: old)

        // Someone attached another build since: it stays, and the undo says so.
        apple.lock.withLock { apple.review.attachedBuild[version] = other }
        var thrown: (any Error)?
        do { try await effect.undo(in: context, status: .done) } catch { thrown = error }
        #expect(apple.reviewState.attachedBuild[version] == other)
        #expect(allText(thrown).contains("left as it is") && allText(thrown).contains(other), "\(allText(thrown))")
        #expect(!apple.log.contains { $0.hasPrefix("PATCH ") }, "\(apple.log)")

        // The run's build still attached: the previous one goes back.
        apple.lock.withLock { apple.review.attachedBuild[version] = runs }
        try await effect.undo(in: context, status: .done)
        #expect(apple.reviewState.attachedBuild[version] == old)
    }
}
