import Foundation
import Testing
@testable import Shiplane
import _CryptoExtras

/// `shiplane match` with the store in a Google Cloud Storage bucket, laid out as fastlane match's
/// Google Cloud storage lays it out (`TEAM/certs/…`, `match_version.txt` at the bucket's root):
/// against the emulator from PyPI (gcp-storage-emulator) for the layout, and against `FakeGCS`
/// (written from Google's JSON API description, with the OAuth service-account flow) for what the
/// emulator ignores — generation preconditions and pagination.
@Suite("match store in a Google Cloud Storage bucket: match's layout read by fastlane's encryption, a re-run writes nothing, a concurrent write refused by the generation precondition, a rollback that keeps what others wrote", .serialized, .offThePool, .tags(.slow))
struct MatchGCSStoreTests {
    static let password = "correct horse battery staple"
    static let team = "TEAM123456"

    func environment(_ work: TemporaryRepository, _ storage: [String: String], _ fake: FakeAppStoreConnect, password: String = Self.password) -> [String: String] {
        var extra = storage.merging(["MATCH_PASSWORD": password, "FASTLANE_TEAM_ID": Self.team]) { $1 }
        extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 }
        return isolatedEnvironment(home: work.home, extra: extra)
    }

    /// The PEM body lines of the test service account's key: none may be printed or recorded.
    var keyLines: [String] {
        (StoreFixtures.googleKey?.pemRepresentation ?? "").split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
    }

    func expectNoSecrets(_ text: String, tokens: Set<String> = []) {
        #expect(!text.contains(Self.password))
        #expect(!keyLines.contains { text.contains($0) }, "a line of the service account's private key was printed")
        #expect(!tokens.contains { text.contains($0) }, "an access token was printed")
    }

    @Test("against the Cloud Storage emulator (MATCH_GOOGLE_CLOUD_BUCKET_NAME): match's layout at the bucket's root and team folder, decrypted by fastlane's encryption (Ruby); a fresh checkout reads it (readonly, nothing asked of Apple) and a re-run writes nothing")
    func writesMatchsLayoutOnTheEmulator() async throws {
        let emulator = try RealGCSEmulator()
        defer { emulator.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let storage = ["STORAGE_EMULATOR_HOST": emulator.endpoint, "MATCH_GOOGLE_CLOUD_BUCKET_NAME": emulator.bucket]
        let arguments = ["match", "development", "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]

        let first = try TemporaryRepository()
        let made = try await runProgramAsync(shiplaneBinary, arguments, in: first.path, environment: environment(first, storage, fake))
        #expect(made.status == 0, "\(made.all)")
        expectNoSecrets(made.all)
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let folder = first.root + "/bucket"
        let listed = try emulator.download(into: folder)
        let team = Self.team + "/"
        #expect(Set(listed.keys) == ["match_version.txt", "README.md", team + "certs/development/\(id).cer", team + "certs/development/\(id).p12",
                                     team + "profiles/development/Development_com.acme.rocket.mobileprovision"])
        var variables = first.environment
        variables["MATCH_PASSWORD"] = Self.password
        let ruby = try runProgram("/usr/bin/env", ["ruby", packageRoot + "/Tests/ShiplaneTests/Fixtures/Match/match_oracle.rb", "decrypt-files", folder + "/" + Self.team],
                                  in: first.root, environment: variables)
        #expect(ruby.status == 0, "\(ruby.all)")
        let state = fake.lock.withLock { fake.signing }
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).cer") == state.certificates[id]?.der)
        let key = try #require(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).p12"))
        let certificate = try #require(state.certificates[id].flatMap { SigningCertificate(der: $0.der) })
        #expect(try SigningKey(pem: String(decoding: key, as: UTF8.self)).publicKeyDigest == certificate.publicKeyDigest)
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "profiles/development/Development_com.acme.rocket.mobileprovision")
                == state.profiles.values.first?.content)
        let sent = fake.log.count

        let fresh = try TemporaryRepository()
        let readonly = try await runProgramAsync(shiplaneBinary, arguments + ["--readonly"], in: fresh.path, environment: environment(fresh, storage, fake))
        #expect(readonly.status == 0 && readonly.all.contains(id), "\(readonly.all)")
        #expect(fake.log.count == sent, "readonly asks nothing of Apple")
        let again = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, storage, fake))
        #expect(again.status == 0, "\(again.all)")
        #expect(!(runRecordText(fresh.path) ?? "").contains(MatchGCSObjectWritten.kind), "the re-run recorded no write")
        let unchanged = try emulator.download(into: fresh.root + "/bucket")
        #expect(unchanged.mapValues { "\($0["sha256"] ?? "") \($0["generation"] ?? "")" } == listed.mapValues { "\($0["sha256"] ?? "") \($0["generation"] ?? "")" },
                "no object was written again")
    }

    @Test("against the stand-in with a service-account key (RS256 assertion, bearer token): a write another machine made meanwhile fails the generation precondition (412); the run stops naming the object and its rollback deletes only what still has the generation it left, revoking the certificate")
    func aConcurrentWriteIsRefusedAndKeptByTheRollback() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, storage) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        let theirs = Data("match 2.237.0 from another machine".utf8)
        let profile = Self.team + "/profiles/appstore/AppStore_com.acme.rocket.mobileprovision"
        // Just before match_version.txt (the last file written), another machine writes it and the profile.
        gcs.lock.withLock {
            gcs.interference["match_version.txt"] = {
                gcs.write("match_version.txt", theirs)
                gcs.write(profile, theirs)
            }
        }
        let arguments = ["match", "appstore", "--store", "gs://\(gcs.bucket)", "--app-identifier", "com.acme.rocket"]
        let run = try await runProgramAsync(shiplaneBinary, arguments, in: work.path, environment: environment(work, storage, fake))
        #expect(run.status != 0)
        #expect(run.all.contains("gs://\(gcs.bucket)/match_version.txt changed since this run read it"), "\(run.all)")
        #expect(run.all.contains("run match again"), "\(run.all)")
        let tokens = gcs.lock.withLock { gcs.issuedTokens }
        #expect(!tokens.isEmpty, "the key was exchanged for a token")
        expectNoSecrets(run.all + (runRecordText(work.path) ?? ""), tokens: tokens)
        // The rollback deleted the certificate's two files (still as this run left them) and kept the other machine's.
        let left = gcs.lock.withLock { gcs.objects }
        #expect(Set(left.keys) == ["match_version.txt", profile], "\(left.keys.sorted())")
        #expect(left["match_version.txt"]?.bytes == theirs && left[profile]?.bytes == theirs)
        #expect(run.all.contains("changed since this run wrote it"), "the profile's undo says it was kept: \(run.all)")
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.revoked.count == 1 })
        #expect(gcs.log.contains { $0.hasPrefix("POST /token") })
    }

    @Test("a lane failing after match rolls the bucket back: every object it wrote is deleted (conditional on its generation), the kept key too, and the certificate revoked")
    func rollbackDeletesWhatItWrote() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, storage) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        let lane = try MatchLaneForTest.parse(["--kind", "appstore", "--store", "gs://\(gcs.bucket)/ios", "--identifiers", "com.acme.rocket", "--fail-after"])
        let (result, messages) = await runStoreLane(lane, folder: work.path, variables: environment(work, storage, fake))
        #expect(result.failure != nil)
        let told = allText(result.failure) + messages.joined(separator: "\n")
        #expect(told.contains("wrote 5 files in gs://\(gcs.bucket)/ios/ (team \(Self.team))"), "\(told)")
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.revoked.count == 1 })
        #expect(gcs.lock.withLock { gcs.objects.isEmpty }, "\(told)")
        #expect(gcs.log.filter { $0.hasPrefix("DELETE ") }.count == 6, "5 store files and the kept key: \(gcs.log)")
    }

    @Test("nuke on a Google Cloud Storage store: without --yes it lists the bucket's files of the type and changes nothing; with it, it revokes the certificate and deletes the type's objects (conditional on their generations), keeping match_version.txt and the README")
    func nukeEmptiesTheTypeInTheBucket() async throws {
        let setUp = try await GCSMatchSetUp.start()
        defer { setUp.stop() }
        let (gcs, fake, work, storage) = (setUp.gcs, setUp.fake, setUp.work, setUp.storage)
        let store = "gs://\(gcs.bucket)"
        let id = try await setUp.fillDevelopment(environment: environment(work, storage, fake))
        let before = gcs.lock.withLock { gcs.objects.mapValues(\.generation) }
        #expect(before.count == 5, "\(before.keys.sorted())")

        let refused = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", store], in: work.path, environment: environment(work, storage, fake))
        #expect(refused.status == 2, "\(refused.all)")
        #expect(refused.all.contains("remove certs/development/\(id).cer from the store"), "\(refused.all)")
        #expect(gcs.lock.withLock { gcs.objects.mapValues(\.generation) } == before, "nothing deleted without --yes")

        let nuked = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", store, "--yes"], in: work.path, environment: environment(work, storage, fake))
        #expect(nuked.status == 0, "\(nuked.all)")
        #expect(Set(gcs.lock.withLock { gcs.objects.keys }) == ["match_version.txt", "README.md"])
        #expect(fake.lock.withLock { fake.signing.revoked.contains(id) })
        #expect(nuked.all.contains("removed 3 files"), "\(nuked.all)")
        expectNoSecrets(nuked.all, tokens: gcs.lock.withLock { gcs.issuedTokens })
    }

    @Test("the metadata server's token (GCE_METADATA_HOST, no keys file): the built shiplane asks the metadata server stand-in with Metadata-Flavor: Google, writes match's layout with that bearer token and prints or records none of it; a server answering without Metadata-Flavor: Google gives no token and nothing is written")
    func metadataServerCredentials() async throws {
        let gcs = FakeGCS()
        try await gcs.start()
        defer { gcs.stop() }
        let metadata = FakeMetadataServer(issue: { gcs.issueToken() })
        try await metadata.start()
        defer { metadata.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let arguments = ["match", "development", "--store", "gs://\(gcs.bucket)", "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]
        // No keys file, no GOOGLE_OAUTH_ACCESS_TOKEN: the metadata server is the only way in.
        let storage = ["STORAGE_EMULATOR_HOST": gcs.baseURL, "GCE_METADATA_HOST": metadata.host]

        let work = try TemporaryRepository()
        let made = try await runProgramAsync(shiplaneBinary, arguments, in: work.path, environment: environment(work, storage, fake))
        #expect(made.status == 0, "\(made.all)")
        let tokens = Set(metadata.tokens)
        #expect(!tokens.isEmpty, "the metadata server handed out a token: \(metadata.log)")
        #expect(metadata.log.allSatisfy { $0 == "GET \(FakeMetadataServer.tokenPath) Metadata-Flavor=Google" }, "\(metadata.log)")
        #expect(!gcs.log.contains { $0.hasPrefix("POST /token") }, "no service-account exchange")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let team = Self.team + "/"
        #expect(Set(gcs.lock.withLock { gcs.objects.keys }) == ["match_version.txt", "README.md", team + "certs/development/\(id).cer",
                                                                 team + "certs/development/\(id).p12", team + "profiles/development/Development_com.acme.rocket.mobileprovision"])
        expectNoSecrets(made.all + (runRecordText(work.path) ?? ""), tokens: tokens)

        // A server that is not Google's metadata server (no Metadata-Flavor: Google on its answer).
        let impostor = FakeMetadataServer(marksAnswers: false, issue: { gcs.issueToken() })
        try await impostor.start()
        defer { impostor.stop() }
        let before = gcs.lock.withLock { gcs.objects.mapValues(\.generation) }
        let other = try TemporaryRepository()
        let refused = try await runProgramAsync(shiplaneBinary, arguments + ["--force"], in: other.path,
                                                environment: environment(other, storage.merging(["GCE_METADATA_HOST": impostor.host]) { $1 }, fake))
        #expect(refused.status != 0, "\(refused.all)")
        #expect(refused.all.contains("is not Google's metadata server"), "\(refused.all)")
        #expect(gcs.lock.withLock { gcs.objects.mapValues(\.generation) } == before, "nothing written")
        #expect(!impostor.tokens.contains { refused.all.contains($0) })
    }

    @Test("the client: objects.list page after page (maxResults, pageToken), names with spaces and slashes percent-encoded, a create with ifGenerationMatch=0 refused once the object exists, a delete with a stale generation refused")
    func listsPagesAndHoldsToGenerations() async throws {
        let gcs = FakeGCS()
        try await gcs.start()
        defer { gcs.stop() }
        let folder = NSTemporaryDirectory() + "shiplane-gcs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let variables = try gcs.environment(keysFile: folder + "/gc_keys.json")
        let client = try MatchGCSBucket.client(bucket: gcs.bucket, variables: variables, workingDirectory: folder,
                                              transport: HTTPTransport(sender: LiveHTTPClient()), onToken: { _ in })
        try await client.checkBucket()
        let names = (1...5).map { "p/T & Co/file \($0).txt" } + ["q/other.txt"]
        var generations: [String: Int64] = [:]
        for name in names {
            let generation = try #require(try await client.put(name, bytes: Data(name.utf8), ifGeneration: 0))
            generations[name] = generation
        }
        let listed = try await client.list(prefix: "p/", maxResults: 2)
        #expect(listed.map(\.name) == Array(names.prefix(5)))
        #expect(listed.map(\.generation) == names.prefix(5).map { generations[$0] ?? 0 })
        #expect(gcs.log.filter { $0.contains("/o pageToken=") }.count == 2, "three pages: \(gcs.log)")
        let got = try #require(try await client.get("p/T & Co/file 3.txt"))
        #expect(String(decoding: got.bytes, as: UTF8.self) == "p/T & Co/file 3.txt" && got.generation == generations["p/T & Co/file 3.txt"])
        #expect(try await client.get("p/none") == nil)
        #expect(try await client.put("q/other.txt", bytes: Data("again".utf8), ifGeneration: 0) == nil, "the object exists: 412")
        let first = try #require(generations["q/other.txt"])
        let second = try #require(try await client.put("q/other.txt", bytes: Data("again".utf8), ifGeneration: first))
        #expect(try await client.delete("q/other.txt", ifGeneration: first) == false, "a stale generation: 412")
        #expect(try await client.delete("q/other.txt", ifGeneration: second))
        #expect(gcs.lock.withLock { gcs.objects["q/other.txt"] } == nil)
    }
}
