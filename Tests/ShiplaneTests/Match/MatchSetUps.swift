import Foundation
import Testing

/// What the match suites' Cloud Storage stand-in tests begin with: `FakeGCS` and
/// `FakeAppStoreConnect` started, a checkout, and the environment that points Shiplane at the
/// stand-in with the test service account's keys file in the checkout's folder.
///
/// A test defers `stop()` right after `start()`, as it deferred each server's stop before.
struct GCSMatchSetUp: Sendable {
    let gcs: FakeGCS
    let fake: FakeAppStoreConnect
    let work: TemporaryRepository
    /// `gcs.environment(keysFile:)` with the keys file at `work.root + "/gc_keys.json"`.
    let storage: [String: String]

    /// Starts both servers and makes the checkout; a server already started is stopped when a
    /// later step throws.
    static func start() async throws -> GCSMatchSetUp {
        let gcs = FakeGCS()
        try await gcs.start()
        do {
            let fake = try FakeAppStoreConnect()
            try await fake.start()
            do {
                let work = try TemporaryRepository()
                let storage = try gcs.environment(keysFile: work.root + "/gc_keys.json")
                return GCSMatchSetUp(gcs: gcs, fake: fake, work: work, storage: storage)
            } catch {
                fake.stop()
                throw error
            }
        } catch {
            gcs.stop()
            throw error
        }
    }

    /// Runs the built `shiplane match development` for com.acme.rocket and one device into the
    /// stand-in's bucket from `work` with `environment` (the suite's, for `work`), expects it to
    /// finish, and returns the certificate Apple's stand-in made.
    func fillDevelopment(environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let made = try await runProgramAsync(shiplaneBinary, ["match", "development", "--store", "gs://\(gcs.bucket)", "--app-identifier", "com.acme.rocket",
                                                              "--device", "Ada=00008110-000000000002"], in: work.path, environment: environment)
        #expect(made.status == 0, "\(made.all)", sourceLocation: sourceLocation)
        return try #require(fake.lock.withLock { fake.signing.certificates.keys.first }, sourceLocation: sourceLocation)
    }

    /// Stops App Store Connect's stand-in (its violations recorded at the caller's line), then
    /// the Cloud Storage stand-in.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) {
        fake.stop(sourceLocation: sourceLocation)
        gcs.stop()
    }
}

/// What `MatchGitStoreTests`' store tests begin with: the served match repository and
/// `FakeAppStoreConnect`, both started.
///
/// A test defers `stop()` right after `start()`, as it deferred each server's stop before.
struct GitMatchSetUp: Sendable {
    let served: MatchGitStoreTests.Served
    let fake: FakeAppStoreConnect

    /// Starts both; the repository's server is stopped when App Store Connect's cannot start.
    static func start() async throws -> GitMatchSetUp {
        let served = try await MatchGitStoreTests.Served()
        do {
            let fake = try FakeAppStoreConnect()
            try await fake.start()
            return GitMatchSetUp(served: served, fake: fake)
        } catch {
            served.stop()
            throw error
        }
    }

    /// Stops App Store Connect's stand-in (its violations recorded at the caller's line), then
    /// the repository's server.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) {
        fake.stop(sourceLocation: sourceLocation)
        served.stop()
    }
}
