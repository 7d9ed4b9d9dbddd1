import Foundation
import Testing
@testable import Shiplane

/// `shiplane match` with the store in an S3 bucket, laid out as fastlane match's S3 storage lays
/// it out (`PREFIX` + `TEAM/certs/…`, `PREFIX` + `match_version.txt`): against moto's S3 server
/// with every request's SigV4 signature checked, read back with boto3 and fastlane's encryption
/// (the Ruby oracle).
@Suite("match store in an S3 bucket (moto, signatures checked): match's layout, read back from a fresh checkout, a re-run sends nothing, a wrong password changes nothing, a rollback puts the bucket back", .serialized, .offThePool, .tags(.slow))
struct MatchS3StoreTests {
    static let password = "correct horse battery staple"
    static let team = "TEAM123456"
    static let store = "s3://releases/signing"

    func environment(_ work: TemporaryRepository, _ server: RealS3Server, _ fake: FakeAppStoreConnect, password: String = Self.password) -> [String: String] {
        var extra = server.environment.merging(["MATCH_PASSWORD": password, "FASTLANE_TEAM_ID": Self.team]) { $1 }
        extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 }
        return isolatedEnvironment(home: work.home, extra: extra)
    }

    /// The bucket downloaded through boto3 into `folder`: by key, its SHA-256 and LastModified.
    func download(_ server: RealS3Server, into folder: String) throws -> [String: [String: Any]] {
        let read = try runTool([packageRoot + "/.venv/bin/python", packageRoot + "/Tests/ShiplaneTests/Fixtures/S3/s3_download.py",
                                server.endpoint, server.accessKeyID, server.secretAccessKey, server.bucket, folder])
        guard read.status == 0, let json = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: [String: Any]] else {
            throw TestFailure("could not download the bucket: \(read.output)")
        }
        return json
    }

    /// Each key's SHA-256 and LastModified, to compare two readings.
    func fingerprint(_ listed: [String: [String: Any]]) -> [String: String] {
        listed.mapValues { "\($0["sha256"] ?? "") \($0["modified"] ?? "")" }
    }

    @Test("shiplane match writes match's S3 layout under the prefix and team folder, fastlane's encryption reads it; a fresh checkout reads it back (readonly, no request to Apple) and a re-run there sends nothing; a wrong password is a clear error that changes nothing")
    func writesMatchsLayoutAndReadsItBack() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let arguments = ["match", "development", "--store", Self.store, "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]

        let first = try TemporaryRepository()
        let made = try await runProgramAsync(shiplaneBinary, arguments, in: first.path, environment: environment(first, server, fake))
        #expect(made.status == 0, "\(made.all)")
        #expect(!made.all.contains(Self.password) && !made.all.contains(server.secretAccessKey))
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let folder = first.root + "/bucket"
        let listed = try download(server, into: folder)
        let team = "signing/\(Self.team)/"
        #expect(Set(listed.keys) == ["signing/match_version.txt", "signing/README.md", team + "certs/development/\(id).cer",
                                     team + "certs/development/\(id).p12", team + "profiles/development/Development_com.acme.rocket.mobileprovision"])
        // fastlane's encryption (Ruby) decrypts the team folder as match's S3 storage downloads it.
        var variables = first.environment
        variables["MATCH_PASSWORD"] = Self.password
        let ruby = try runProgram("/usr/bin/env", ["ruby", packageRoot + "/Tests/ShiplaneTests/Fixtures/Match/match_oracle.rb", "decrypt-files", folder + "/signing/" + Self.team],
                                  in: first.root, environment: variables)
        #expect(ruby.status == 0, "\(ruby.all)")
        let state = fake.lock.withLock { fake.signing }
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).cer") == state.certificates[id]?.der)
        let key = try #require(FileManager.default.contents(atPath: folder + "/" + team + "certs/development/\(id).p12"))
        let certificate = try #require(state.certificates[id].flatMap { SigningCertificate(der: $0.der) })
        #expect(try SigningKey(pem: String(decoding: key, as: UTF8.self)).publicKeyDigest == certificate.publicKeyDigest)
        #expect(FileManager.default.contents(atPath: folder + "/" + team + "profiles/development/Development_com.acme.rocket.mobileprovision")
                == state.profiles.values.first?.content)
        #expect(FileManager.default.contents(atPath: folder + "/signing/match_version.txt") == Data("2.237.0".utf8))
        let sent = fake.log.count

        // A fresh checkout: readonly reads the bucket alone; then a full run finds everything valid and puts nothing.
        let fresh = try TemporaryRepository()
        let readonly = try await runProgramAsync(shiplaneBinary, arguments + ["--readonly"], in: fresh.path, environment: environment(fresh, server, fake))
        #expect(readonly.status == 0, "\(readonly.all)")
        #expect(readonly.all.contains(id), "\(readonly.all)")
        #expect(fake.log.count == sent, "readonly asks nothing of Apple")
        let again = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, server, fake))
        #expect(again.status == 0, "\(again.all)")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" || $0 == "POST /v1/profiles" }.count == 2)
        #expect(!(runRecordText(fresh.path) ?? "").contains(MatchS3ObjectWritten.kind), "the re-run recorded no PUT")
        let unchanged = try download(server, into: fresh.root + "/bucket")
        #expect(fingerprint(unchanged) == fingerprint(listed), "no object was put again")

        // The wrong password: named as such, nothing asked of Apple to make, nothing put.
        let changing = { fake.log.filter { $0.hasPrefix("POST") || $0.hasPrefix("DELETE") || $0.hasPrefix("PATCH") }.count }
        let changesBefore = changing()
        let wrong = try TemporaryRepository()
        let refused = try await runProgramAsync(shiplaneBinary, arguments, in: wrong.path, environment: environment(wrong, server, fake, password: "not the password"))
        #expect(refused.status != 0)
        #expect(refused.all.contains("certs/development/\(id)") && refused.all.contains("the password does not decrypt it"), "\(refused.all)")
        #expect(refused.all.contains("set MATCH_PASSWORD"), "\(refused.all)")
        #expect(!refused.all.contains("not the password"))
        #expect(changing() == changesBefore, "nothing made or changed at Apple")
        #expect(fingerprint(try download(server, into: wrong.root + "/bucket")) == fingerprint(listed))
    }

    @Test("shiplane SIGKILLed while Apple makes the certificate: its key was put in the bucket first, so the same command from a fresh checkout adopts that certificate; one POST, the kept key deleted once the store holds it")
    func killedBeforeTheStoreHeldItAdoptsFromAFreshCheckout() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        fake.answerLate(1, method: "POST", path: "/v1/certificates$", seconds: 30)
        let arguments = ["match", "appstore", "--store", Self.store, "--app-identifier", "com.acme.rocket"]
        let first = try TemporaryRepository()
        let run = try SupervisedRun(arguments, in: first.path, environment: environment(first, server, fake))
        run.wait { fake.lock.withLock { !fake.signing.certificates.isEmpty } }
        try run.killEverything()
        let kept = try server.contents().objects.keys.sorted()
        #expect(kept.count == 1 && kept.first?.hasPrefix("signing/.shiplane-match-keys/DISTRIBUTION-") == true, "\(kept)")

        let fresh = try TemporaryRepository()
        let again = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, server, fake))
        #expect(again.status == 0, "\(again.all)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        #expect(again.all.contains("adopted certificate \(id)"), "\(again.all)")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1)
        let team = "signing/\(Self.team)/"
        #expect(Set(try server.contents().objects.keys) == ["signing/match_version.txt", "signing/README.md", team + "certs/distribution/\(id).cer",
                                                            team + "certs/distribution/\(id).p12", team + "profiles/appstore/AppStore_com.acme.rocket.mobileprovision"])
    }

    @Test("a lane failing after match rolls the bucket back: the objects it put are deleted and the certificate revoked")
    func rollbackDeletesWhatItPut() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let work = try TemporaryRepository()
        let lane = try MatchLaneForTest.parse(["--kind", "appstore", "--store", Self.store, "--identifiers", "com.acme.rocket", "--fail-after"])
        let (result, messages) = await runStoreLane(lane, folder: work.path, variables: environment(work, server, fake))
        #expect(result.failure != nil)
        let told = allText(result.failure) + messages.joined(separator: "\n")
        #expect(told.contains("wrote 5 files in \(Self.store)/ (team \(Self.team))"), "\(told)")
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.revoked.count == 1 })
        #expect(try server.contents().objects.isEmpty, "\(told)")
    }

    @Test("nuke on an S3 store: without --yes nothing changes; with it the certificate is revoked and the type's objects deleted (If-Match), match_version.txt and the README kept")
    func nukeEmptiesTheTypeInTheBucket() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let work = try TemporaryRepository()
        let made = try await runProgramAsync(shiplaneBinary, ["match", "development", "--store", Self.store, "--app-identifier", "com.acme.rocket",
                                                              "--device", "Ada=00008110-000000000002"], in: work.path, environment: environment(work, server, fake))
        #expect(made.status == 0, "\(made.all)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let refused = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", Self.store], in: work.path, environment: environment(work, server, fake))
        #expect(refused.status == 2, "\(refused.all)")
        #expect(try server.contents().objects.count == 5)
        let nuked = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", Self.store, "--yes"], in: work.path, environment: environment(work, server, fake))
        #expect(nuked.status == 0, "\(nuked.all)")
        #expect(Set(try server.contents().objects.keys) == ["signing/match_version.txt", "signing/README.md"])
        #expect(fake.lock.withLock { fake.signing.revoked.contains(id) })
        #expect(!nuked.all.contains(server.secretAccessKey))
    }

    @Test("ListObjectsV2 page after page through continuation tokens, GetObject of a missing key is nil, the conditional PUT (If-Match, If-None-Match: *) refused with 412 when the object changed, and the listing's XML entities are read")
    func listsEveryPageAndGetsObjects() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let target = S3Target(endpoint: server.endpoint, region: "us-east-1", bucket: server.bucket, pathStyle: true)
        let client = S3Client(target: target, signer: SignatureV4(credentials: .init(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey,
                                                                                     sessionToken: nil), region: "us-east-1"),
                              transport: HTTPTransport(sender: LiveHTTPClient()), now: { Date() })
        let keys = (1...5).map { "p/T & Co/file \($0).txt" } + ["q/other.txt"]
        for key in keys { _ = try await client.put(key, bytes: Array(key.utf8)) }
        let listed = try await client.list(prefix: "p/", maxKeys: 2)
        #expect(listed.map(\.key) == Array(keys.prefix(5)))
        #expect(listed.allSatisfy { $0.etag.hasPrefix("\"") && $0.size > 0 })
        let got = try await client.get("p/T & Co/file 3.txt")
        #expect(got.map { String(decoding: $0.bytes, as: UTF8.self) } == "p/T & Co/file 3.txt")
        #expect(try await client.get("p/none") == nil)

        // The conditional PUT the store writes with: moto (5.2.5) answers 412 as S3 does, and changes nothing then.
        let first = try await client.put("c/object", bytes: Array("one".utf8))
        #expect(try await client.put("c/object", bytes: Array("two".utf8), ifUnchangedFrom: nil) == nil, "If-None-Match: * on an existing object")
        #expect(try await client.put("c/object", bytes: Array("two".utf8), ifUnchangedFrom: "\"0123456789abcdef0123456789abcdef\"") == nil, "If-Match a stale ETag")
        #expect(try await client.get("c/object").map { String(decoding: $0.bytes, as: UTF8.self) } == "one")
        let second = try #require(try await client.put("c/object", bytes: Array("two".utf8), ifUnchangedFrom: first))
        #expect(second != first)
        #expect(try await client.put("c/new", bytes: Array("new".utf8), ifUnchangedFrom: nil) != nil, "If-None-Match: * creates a new object")

        let page = S3Client.listPage("""
            <ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a &amp; b</Key><ETag>&quot;x&quot;</ETag><Size>3</Size></Contents>\
            <NextContinuationToken>1/abc=</NextContinuationToken></ListBucketResult>
            """)
        #expect(page.objects == [.init(key: "a & b", etag: "\"x\"", size: 3)])
        #expect(page.truncated && page.next == "1/abc=")
    }
}
