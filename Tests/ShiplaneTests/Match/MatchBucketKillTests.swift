import Foundation
import Testing
@testable import Shiplane

/// The built `shiplane match` SIGKILLed inside a bucket write: `HoldingProxy` (the OCI kill tests'
/// proxy) sits in front of the real peer — moto's S3, or the Cloud Storage emulator from PyPI —
/// lets the upload of the new certificate's object through and holds the answer, so the bucket
/// stored it and the run never heard. The same command from a fresh checkout, straight to the
/// bucket, must finish once: Apple's certificate adopted by the key kept in the bucket (no second
/// one), and one consistent set in match's layout, decrypted by fastlane's encryption (Ruby).
@Suite("match: shiplane SIGKILLed inside a bucket upload (S3 PUT, Cloud Storage upload), a fresh checkout's re-run finishes once", .serialized, .offThePool, .tags(.slow))
struct MatchBucketKillTests {
    static let password = "correct horse battery staple"
    static let team = "TEAM123456"
    static let arguments = ["match", "development", "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]

    func environment(_ work: TemporaryRepository, _ storage: [String: String], _ fake: FakeAppStoreConnect) -> [String: String] {
        var extra = storage.merging(["MATCH_PASSWORD": Self.password, "FASTLANE_TEAM_ID": Self.team]) { $1 }
        extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 }
        return isolatedEnvironment(home: work.home, extra: extra)
    }

    /// Kills the run once `proxy` holds the answer to the certificate's upload, checks what the
    /// bucket holds then (`read`: the bucket's keys), re-runs from a fresh checkout with
    /// `direct`, and checks the store that run leaves (`download`: the bucket into a folder, by
    /// key; `root`: where the store's files sit under that folder).
    func killInsideTheUploadThenFinish(
        store: String, proxy: HoldingProxy, throughProxy: [String: String], direct: [String: String], fake: FakeAppStoreConnect,
        read: () throws -> [String], download: (String) throws -> [String], root: String
    ) async throws {
        let first = try TemporaryRepository()
        let run = try SupervisedRun(Self.arguments + ["--store", store], in: first.path, environment: environment(first, throughProxy, fake))
        run.wait { proxy.holding }
        #expect(proxy.holding, "the bucket took the certificate's object; its answer is held")
        try run.killEverything()
        let atKill = try read()
        #expect(atKill.count == 2, "the kept key and the certificate, nothing more: \(atKill)")
        #expect(atKill.contains { $0.hasSuffix(".cer") } && atKill.contains { $0.contains(".shiplane-match-keys/") }, "\(atKill)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })

        let fresh = try TemporaryRepository()
        let again = try await runProgramAsync(shiplaneBinary, Self.arguments + ["--store", store], in: fresh.path, environment: environment(fresh, direct, fake))
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("adopted certificate \(id)"), "\(again.all)")
        #expect(!again.all.contains(Self.password))
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1, "one certificate: \(fake.log)")
        #expect(fake.log.filter { $0 == "POST /v1/profiles" }.count == 1, "one profile: \(fake.log)")
        #expect(fake.lock.withLock { fake.signing.certificates.count == 1 && fake.signing.revoked.isEmpty })

        // One consistent set in match's layout, the kept key gone.
        let folder = fresh.root + "/bucket"
        let keys = try download(folder)
        let team = root + Self.team + "/"
        #expect(Set(keys) == [root + "match_version.txt", root + "README.md", team + "certs/development/\(id).cer", team + "certs/development/\(id).p12",
                              team + "profiles/development/Development_com.acme.rocket.mobileprovision"])
        var variables = fresh.environment
        variables["MATCH_PASSWORD"] = Self.password
        let ruby = try runProgram("/usr/bin/env", ["ruby", packageRoot + "/Tests/ShiplaneTests/Fixtures/Match/match_oracle.rb", "decrypt-files", folder + "/" + team],
                                  in: fresh.root, environment: variables)
        #expect(ruby.status == 0, "fastlane's encryption decrypts the set: \(ruby.all)")
        let state = fake.lock.withLock { fake.signing }
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).cer") == state.certificates[id]?.der)
        let key = try #require(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).p12"))
        let certificate = try #require(state.certificates[id].flatMap { SigningCertificate(der: $0.der) })
        #expect(try SigningKey(pem: String(decoding: key, as: UTF8.self)).publicKeyDigest == certificate.publicKeyDigest, "the key is the certificate's")
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "profiles/development/Development_com.acme.rocket.mobileprovision")
                == state.profiles.values.first?.content)

        // Finished: a further run from another checkout writes nothing and asks Apple to make nothing.
        let third = try TemporaryRepository()
        let settled = try await runProgramAsync(shiplaneBinary, Self.arguments + ["--store", store], in: third.path, environment: environment(third, direct, fake))
        #expect(settled.status == 0, "\(settled.all)")
        let record = runRecordText(third.path) ?? ""
        #expect(!record.contains(MatchS3ObjectWritten.kind) && !record.contains(MatchGCSObjectWritten.kind), "nothing written again")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" || $0 == "POST /v1/profiles" }.count == 2)
    }

    @Test("S3 (moto): SIGKILLed inside the PUT of the certificate's object (moto stored it, HoldingProxy held the answer); a fresh checkout adopts Apple's certificate and ends with one set that fastlane's encryption decrypts")
    func killedInsideAnS3Put() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        // Path-style: PUT /releases/signing/TEAM123456/certs/development/ID.cer; the kept key's PUT does not match.
        let proxy = try HoldingProxy(to: server.port, holding: "PUT", pathContaining: "/\(Self.team)/certs/")
        defer { proxy.stop() }
        let throughProxy = server.environment.merging(["AWS_ENDPOINT_URL_S3": "http://" + proxy.host]) { $1 }
        try await killInsideTheUploadThenFinish(
            store: "s3://\(server.bucket)/signing", proxy: proxy, throughProxy: throughProxy, direct: server.environment, fake: fake,
            read: { try server.contents().objects.keys.sorted() },
            download: { folder in try MatchS3StoreTests().download(server, into: folder).keys.sorted() }, root: "signing/")
        #expect(!(try server.contents().objects.keys.contains { $0.contains(".shiplane-match-keys/") }))
    }

    @Test("Cloud Storage (the emulator): SIGKILLed inside the upload of the certificate's object (the emulator stored it, HoldingProxy held the answer); a fresh checkout adopts Apple's certificate and ends with one set that fastlane's encryption decrypts")
    func killedInsideACloudStorageUpload() async throws {
        let emulator = try RealGCSEmulator()
        defer { emulator.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        // POST /upload/storage/v1/b/BUCKET/o?uploadType=media&name=TEAM123456%2Fcerts%2F…; the kept key's upload does not match.
        let proxy = try HoldingProxy(to: emulator.port, holding: "POST", pathContaining: "name=\(Self.team)%2Fcerts%2F")
        defer { proxy.stop() }
        let direct = ["STORAGE_EMULATOR_HOST": emulator.endpoint, "MATCH_GOOGLE_CLOUD_BUCKET_NAME": emulator.bucket]
        let throughProxy = direct.merging(["STORAGE_EMULATOR_HOST": "http://" + proxy.host]) { $1 }
        let scratch = NSTemporaryDirectory() + "shiplane-gcs-kill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await killInsideTheUploadThenFinish(
            store: "gs://\(emulator.bucket)", proxy: proxy, throughProxy: throughProxy, direct: direct, fake: fake,
            read: { try emulator.download(into: scratch + "/\(UUID().uuidString)").keys.sorted() },
            download: { folder in try emulator.download(into: folder).keys.sorted() }, root: "")
    }
    @Test("Cloud Storage (stand-in), shiplane rollback: SIGKILLed inside the upload of the certificate's object (the stand-in stored it, HoldingProxy held the answer, so the run never learnt its generation); shiplane rollback revokes the certificate and deletes that object and the kept key, leaving the bucket as it was")
    func killedInsideACloudStorageUploadThenShiplaneRollback() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, direct) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        let port = try #require(gcs.server?.port)
        let proxy = try HoldingProxy(to: port, holding: "POST", pathContaining: "name=\(Self.team)%2Fcerts%2F")
        defer { proxy.stop() }
        let throughProxy = direct.merging(["STORAGE_EMULATOR_HOST": "http://" + proxy.host]) { $1 }
        let store = "gs://\(gcs.bucket)"
        let run = try SupervisedRun(Self.arguments + ["--store", store], in: work.path, environment: environment(work, throughProxy, fake))
        run.wait { proxy.holding }
        #expect(proxy.holding, "the stand-in took the certificate's object; its answer is held")
        try run.killEverything()
        let atKill = gcs.lock.withLock { Array(gcs.objects.keys) }
        #expect(atKill.count == 2 && atKill.contains { $0.hasSuffix(".cer") } && atKill.contains { $0.contains(".shiplane-match-keys/") }, "\(atKill)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: work.path, environment: environment(work, direct, fake))
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains(Self.password))
        #expect(!gcs.lock.withLock { gcs.issuedTokens }.contains { rollback.all.contains($0) }, "no access token printed")
        #expect(gcs.lock.withLock { gcs.objects.isEmpty }, "the .cer and the kept key deleted: \(gcs.lock.withLock { gcs.objects.keys.sorted() }) \(rollback.all)")
        #expect(fake.lock.withLock { fake.signing.revoked == [id] && fake.signing.certificates.isEmpty }, "the certificate revoked")
    }
}
