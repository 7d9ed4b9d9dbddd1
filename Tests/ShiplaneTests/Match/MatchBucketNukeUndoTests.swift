import Foundation
import Testing
@testable import Shiplane

/// `match nuke` (confirmed) on a bucket store, then another machine writes one of the deleted
/// objects anew, then the lane fails.
struct MatchNukeLaneForTest: Lane {
    @Option var kind = "development"
    @Option var store = ""
    /// The bucket key another machine writes after the nuke.
    @Option var replace = ""

    static let theirs = Data("written by another machine after the nuke".utf8)

    func run(_ lane: LaneContext) async throws {
        _ = try await lane.run(MatchNuke(kind: MatchKind(matchName: kind) ?? .development, store: store, confirmed: true))
        guard let (scheme, bucket, _) = MatchBucketStore.parse(store) else { throw TestFailure("\(store) names no bucket") }
        // Another machine, with a client of its own.
        let variables = lane.environment.variables
        let transport = HTTPTransport(sender: LiveHTTPClient())
        let other: any MatchBucketClient = scheme == "s3://"
            ? MatchS3Bucket(client: try MatchS3Bucket.client(target: MatchS3Bucket.target(bucket: bucket, variables: variables), variables: variables,
                                                            transport: { _ in transport }, now: { Date() }))
            : MatchGCSBucket(client: try MatchGCSBucket.client(bucket: bucket, variables: variables, workingDirectory: lane.workingDirectory,
                                                              transport: transport, onToken: { _ in }))
        guard try await other.put(replace, bytes: Self.theirs, ifVersion: nil) != nil else { throw TestFailure("\(replace) was not deleted by the nuke") }
        throw StoreLaneFailure()
    }
}

/// The undo of a bucket `nuke`: a lane that nukes a type and then fails rolls back, putting each
/// deleted object back with the bytes it had — only where nothing took its place (S3's
/// `If-None-Match: *` on moto, Cloud Storage's `ifGenerationMatch=0` on `FakeGCS`, which holds to
/// it where the emulator does not): an object another machine wrote meanwhile keeps its bytes.
/// The revocation stays (Apple cannot take it back).
@Suite("match nuke on a bucket, rolled back after a later failure: the deleted objects come back only where nothing took their place (S3 on moto, Cloud Storage on its stand-in)", .serialized, .offThePool, .tags(.slow))
struct MatchBucketNukeUndoTests {
    static let password = "correct horse battery staple"
    static let team = "TEAM123456"

    func environment(_ work: TemporaryRepository, _ storage: [String: String], _ fake: FakeAppStoreConnect) -> [String: String] {
        var extra = storage.merging(["MATCH_PASSWORD": Self.password, "FASTLANE_TEAM_ID": Self.team]) { $1 }
        extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 }
        return isolatedEnvironment(home: work.home, extra: extra)
    }

    /// Fills the store (development, one profile), nukes it in a lane that fails after another
    /// machine wrote the certificate's object, and checks the bucket (`objects`: key → SHA-256 of
    /// its bytes) after the rollback.
    func nukeThenFail(store: String, storage: [String: String], fake: FakeAppStoreConnect, work: TemporaryRepository,
                      root: String, objects: () throws -> [String: String]) async throws {
        let variables = environment(work, storage, fake)
        let fill = try MatchLaneForTest.parse(["--kind", "development", "--store", store, "--identifiers", "com.acme.rocket", "--device", "Ada=00008110-000000000002"])
        let filled = await runStoreLane(fill, folder: work.path, variables: variables)
        #expect(filled.result.failure == nil, "\(allText(filled.result.failure))")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let before = try objects()
        let team = root + Self.team + "/"
        let certificate = team + "certs/development/\(id).cer"
        #expect(before.count == 5 && before[certificate] != nil, "\(before.keys.sorted())")

        let nuke = try MatchNukeLaneForTest.parse(["--store", store, "--replace", certificate])
        let (result, messages) = await runStoreLane(nuke, folder: work.path, variables: variables)
        let told = allText(result.failure) + messages.joined(separator: "\n")
        #expect(result.failure != nil, "\(told)")
        #expect(fake.lock.withLock { fake.signing.revoked == [id] }, "the revocation stays: \(told)")
        let after = try objects()
        #expect(Set(after.keys) == Set(before.keys), "every deleted object is back: \(after.keys.sorted())")
        #expect(after[certificate] == SHA256.hex(of: MatchNukeLaneForTest.theirs), "the object another machine wrote keeps its bytes")
        for (key, digest) in before where key != certificate {
            #expect(after[key] == digest, "\(key) is back with the bytes it had")
        }
        #expect(!told.contains(Self.password))
    }

    @Test("S3 (moto): the rollback puts the .p12 and the profile back (If-None-Match: *) and keeps the certificate's object another machine wrote")
    func s3NukeRolledBack() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let work = try TemporaryRepository()
        try await nukeThenFail(store: "s3://\(server.bucket)/signing", storage: server.environment, fake: fake, work: work, root: "signing/",
                               objects: { try server.contents().objects.compactMapValues { $0["sha256"] as? String } })
        #expect(!(try server.contents().objects.keys.contains { $0.contains(".shiplane-match-keys/") }))
    }

    @Test("Cloud Storage (stand-in): the rollback puts the .p12 and the profile back (ifGenerationMatch=0) and keeps the certificate's object another machine wrote")
    func cloudStorageNukeRolledBack() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, storage) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        try await nukeThenFail(store: "gs://\(gcs.bucket)", storage: storage, fake: fake, work: work, root: "",
                               objects: { gcs.lock.withLock { gcs.objects.mapValues { SHA256.hex(of: $0.bytes) } } })
    }

    @Test("S3 (moto), shiplane rollback: the built shiplane SIGKILLed inside nuke's DELETE of the profile (HoldingProxy holds moto's answer); another machine then creates the .p12 anew; shiplane rollback puts the .cer and the profile back and keeps the other machine's .p12")
    func s3NukeKilledThenShiplaneRollback() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let work = try TemporaryRepository()
        let store = "s3://\(server.bucket)/signing"
        let made = try await runProgramAsync(shiplaneBinary, ["match", "development", "--store", store, "--app-identifier", "com.acme.rocket",
                                                              "--device", "Ada=00008110-000000000002"], in: work.path, environment: environment(work, server.environment, fake))
        #expect(made.status == 0, "\(made.all)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let objects = { try server.contents().objects.compactMapValues { $0["sha256"] as? String } }
        let before = try objects()
        let team = "signing/\(Self.team)/"
        let key = team + "certs/development/\(id).p12"
        #expect(before.count == 5 && before[key] != nil, "\(before.keys.sorted())")

        // nuke deletes certs/ first, then profiles/: the profile's DELETE lands, its answer is held.
        let proxy = try HoldingProxy(to: server.port, holding: "DELETE", pathContaining: "/\(Self.team)/profiles/")
        defer { proxy.stop() }
        let throughProxy = server.environment.merging(["AWS_ENDPOINT_URL_S3": "http://" + proxy.host]) { $1 }
        let run = try SupervisedRun(["match", "nuke", "development", "--store", store, "--yes"], in: work.path, environment: environment(work, throughProxy, fake))
        run.wait { proxy.holding }
        #expect(proxy.holding, "moto deleted the profile; its answer is held")
        try run.killEverything()
        #expect(Set(try objects().keys) == [ "signing/match_version.txt", "signing/README.md"], "the type's three objects deleted")
        #expect(fake.lock.withLock { fake.signing.revoked == [id] })

        let variables = server.environment
        let other = MatchS3Bucket(client: try MatchS3Bucket.client(target: MatchS3Bucket.target(bucket: server.bucket, variables: variables), variables: variables,
                                                                   transport: { _ in HTTPTransport(sender: LiveHTTPClient()) }, now: { Date() }))
        #expect(try await other.put(key, bytes: MatchNukeLaneForTest.theirs, ifVersion: nil) != nil, "another machine writes the .p12")

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: work.path, environment: environment(work, server.environment, fake))
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains(Self.password) && !rollback.all.contains(server.secretAccessKey))
        let after = try objects()
        #expect(Set(after.keys) == Set(before.keys), "\(after.keys.sorted()) \(rollback.all)")
        #expect(after[key] == SHA256.hex(of: MatchNukeLaneForTest.theirs), "the other machine's .p12 is kept")
        for (name, digest) in before where name != key {
            #expect(after[name] == digest, "\(name) is back with the bytes it had")
        }
        #expect(fake.lock.withLock { fake.signing.revoked == [id] }, "the revocation stays")
    }
    @Test("Cloud Storage (stand-in), shiplane rollback: the built shiplane SIGKILLed inside nuke's DELETE of the profile (HoldingProxy holds the stand-in's answer); another machine then creates the .p12 anew; shiplane rollback puts the .cer and the profile back (ifGenerationMatch=0) and keeps the other machine's .p12")
    func cloudStorageNukeKilledThenShiplaneRollback() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, storage) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        let store = "gs://\(gcs.bucket)"
        let id = try await setUp.fillDevelopment(environment: environment(work, storage, fake))
        let objects = { gcs.lock.withLock { gcs.objects.mapValues { SHA256.hex(of: $0.bytes) } } }
        let before = objects()
        let key = "\(Self.team)/certs/development/\(id).p12"
        #expect(before.count == 5 && before[key] != nil, "\(before.keys.sorted())")

        // nuke deletes certs/ first, then profiles/: the profile's DELETE is done, its answer held.
        let port = try #require(gcs.server?.port)
        let proxy = try HoldingProxy(to: port, holding: "DELETE", pathContaining: "/\(Self.team)%2Fprofiles%2F")
        defer { proxy.stop() }
        let throughProxy = storage.merging(["STORAGE_EMULATOR_HOST": "http://" + proxy.host]) { $1 }
        let run = try SupervisedRun(["match", "nuke", "development", "--store", store, "--yes"], in: work.path, environment: environment(work, throughProxy, fake))
        run.wait { proxy.holding }
        #expect(proxy.holding, "the stand-in deleted the profile; its answer is held")
        try run.killEverything()
        #expect(Set(objects().keys) == ["match_version.txt", "README.md"], "the type's three objects deleted")
        #expect(fake.lock.withLock { fake.signing.revoked == [id] })

        // Another machine creates the .p12 anew (a new generation the rollback must not replace).
        gcs.write(key, MatchNukeLaneForTest.theirs)

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: work.path, environment: environment(work, storage, fake))
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains(Self.password))
        #expect(!gcs.lock.withLock { gcs.issuedTokens }.contains { rollback.all.contains($0) }, "no access token printed")
        let after = objects()
        #expect(Set(after.keys) == Set(before.keys), "\(after.keys.sorted()) \(rollback.all)")
        #expect(after[key] == SHA256.hex(of: MatchNukeLaneForTest.theirs), "the other machine's .p12 is kept")
        for (name, digest) in before where name != key {
            #expect(after[name] == digest, "\(name) is back with the bytes it had")
        }
        #expect(fake.lock.withLock { fake.signing.revoked == [id] }, "the revocation stays")
        #expect(gcs.log.contains { $0.hasPrefix("POST /upload/storage/v1/b/\(gcs.bucket)/o") }, "put back by uploads")
    }
}
