import Foundation
import Testing
@testable import Shiplane

/// `shiplane match appstore|…|nuke` run as the built binary, against the App Store Connect stand-in.
@Suite("match commands end to end: the built shiplane against the App Store Connect stand-in", .offThePool, .tags(.slow))
struct MatchCommandTests {
    static let password = "correct horse battery staple"

    func environment(_ repository: TemporaryRepository, _ fake: FakeAppStoreConnect?) -> [String: String] {
        var extra = ["MATCH_PASSWORD": Self.password]
        if let fake { extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 } }
        return isolatedEnvironment(home: repository.home, extra: extra)
    }

    func shiplane(_ arguments: [String], _ repository: TemporaryRepository, _ fake: FakeAppStoreConnect?) async throws -> CommandOutput {
        try await runProgramAsync(shiplaneBinary, arguments, in: repository.path, environment: environment(repository, fake))
    }

    @Test("match appstore makes the certificate and profile; --readonly then reads the store with no key and no request; nuke lists and refuses without --yes, and with it revokes, deletes and empties the type's folders")
    func syncReadonlyAndNuke() async throws {
        let repository = try TemporaryRepository()
        let store = repository.root + "/store"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }

        let made = try await shiplane(["match", "appstore", "--store", store, "--app-identifier", "com.acme.rocket"], repository, fake)
        #expect(made.status == 0, "\(made.all)")
        #expect(made.all.contains("certificate CERT-"))
        #expect(made.all.contains("profile match AppStore com.acme.rocket for com.acme.rocket"))
        #expect(!made.all.contains(Self.password))
        let certificateID = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        #expect(FileManager.default.fileExists(atPath: store + "/certs/distribution/\(certificateID).p12"))
        #expect(FileManager.default.fileExists(atPath: store + "/profiles/appstore/AppStore_com.acme.rocket.mobileprovision"))

        let sent = fake.log.count
        let readonly = try await shiplane(["match", "appstore", "--readonly", "--store", store, "--app-identifier", "com.acme.rocket"], repository, nil)
        #expect(readonly.status == 0, "\(readonly.all)")
        #expect(readonly.all.contains("certificate \(certificateID)"))
        #expect(fake.log.count == sent)
        // No decrypted file is left anywhere in the temporary folder.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: repository.home)) ?? []).filter { $0.hasPrefix("shiplane-match") }.isEmpty)

        let refused = try await shiplane(["match", "nuke", "appstore", "--store", store], repository, fake)
        #expect(refused.status != 0)
        #expect(refused.all.contains("revoke certificate \(certificateID)"))
        #expect(refused.all.contains("--yes"))
        #expect(fake.lock.withLock { fake.signing.certificates.count } == 1)
        #expect(FileManager.default.fileExists(atPath: store + "/certs/distribution/\(certificateID).p12"))

        let nuked = try await shiplane(["match", "nuke", "appstore", "--store", store, "--yes"], repository, fake)
        #expect(nuked.status == 0, "\(nuked.all)")
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.isEmpty && state.revoked == [certificateID])
        #expect(state.profiles.isEmpty && state.deletedProfiles.count == 1)
        #expect(try MatchStore.contents(of: store).encrypted.isEmpty)
    }

    @Test("shiplane killed (SIGKILL) while Apple makes the certificate: the same command again finishes with that certificate, never a second one")
    func killedRunFinishesWithOneCertificate() async throws {
        let repository = try TemporaryRepository()
        let store = repository.root + "/store"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        // Apple makes the certificate, but the answer never reaches the killed process.
        fake.answerLate(1, method: "POST", path: "/v1/certificates$", seconds: 30)
        let arguments = ["match", "development", "--store", store, "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]
        let run = try SupervisedRun(arguments, in: repository.path, environment: environment(repository, fake))
        run.wait { fake.lock.withLock { !fake.signing.certificates.isEmpty } }
        #expect(fake.lock.withLock { fake.signing.certificates.count } == 1)
        try run.killEverything()
        #expect(try MatchStore.contents(of: store).encrypted.isEmpty)
        // What the killed run left on disk (its record, the key kept for Apple's answer) holds no secret in the clear.
        let left = FileManager.default.subpaths(atPath: repository.path + "/.git/shiplane") ?? []
        #expect(left.contains { $0.contains("match-key-DEVELOPMENT-") })
        for file in left {
            let text = String(decoding: FileManager.default.contents(atPath: repository.path + "/.git/shiplane/" + file) ?? Data(), as: UTF8.self)
            #expect(!text.contains(Self.password) && !text.contains("PRIVATE KEY"), "\(file)")
        }

        let again = try await shiplane(arguments, repository, fake)
        #expect(again.status == 0, "\(again.all)")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1)
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.count == 1)
        let certificateID = try #require(state.certificates.keys.first)
        #expect(again.all.contains("adopted certificate \(certificateID)"))
        #expect(FileManager.default.fileExists(atPath: store + "/certs/development/\(certificateID).cer"))
        #expect(state.profiles.values.first?.certificates == [certificateID])
        #expect(!again.all.contains(Self.password))
        // The key kept for the answer is gone once the store holds it.
        let pending = (try? FileManager.default.contentsOfDirectory(atPath: repository.path + "/.git/shiplane/stores")) ?? []
        #expect(pending.filter { $0.hasPrefix("match-key") }.isEmpty)
    }
}
