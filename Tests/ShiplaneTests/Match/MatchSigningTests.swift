import Foundation
import Testing
@testable import Shiplane

/// Runs match for `kind` in a lane, then fails when asked (to exercise rollback).
struct MatchLaneForTest: Lane {
    @Option var kind = "development"
    @Option var store = ""
    @Option var identifiers: [String] = []
    @Flag var readonly = false
    @Option var renewDays = 30
    @Option var device: [String] = []
    @Flag var failAfter = false

    func run(_ lane: LaneContext) async throws {
        var devices: [String: String] = [:]
        for item in device { let parts = item.split(separator: "="); devices[String(parts[0])] = String(parts[1]) }
        let result = try await lane.run(MatchSigning(
            kind: MatchKind(matchName: kind) ?? .development, appIdentifiers: identifiers, readonly: readonly, store: store,
            renewWithinDays: renewDays, devices: devices))
        lane.log("match result: \(result.certificateID) \(result.profiles.map(\.name))")
        if failAfter { throw StoreLaneFailure() }
    }
}

/// `lane.match` as a lane writes it (issue 43): the type a typed value, `.appStore`.
struct MatchTypedLaneForTest: Lane {
    @Option var store = ""
    @Flag var readonly = false

    func run(_ lane: LaneContext) async throws {
        let signing = try await lane.match(type: .appStore, appIdentifier: ["com.acme.rocket"], readonly: readonly, store: store)
        lane.log("signing with \(signing["match_code_sign_identity"] ?? "?") and \(signing["match_profile_com_acme_rocket"] ?? "?")")
    }
}

/// `MatchSigning` for one type and platform (the other kinds and platforms than iOS development).
struct MatchPlatformLaneForTest: Lane {
    @Option var kind = "developer_id"
    @Option var platform = "macos"
    @Option var store = ""

    func run(_ lane: LaneContext) async throws {
        let result = try await lane.run(MatchSigning(kind: MatchKind(rawValue: kind) ?? .development, platform: MatchPlatform(rawValue: platform) ?? .iOS,
                                                     appIdentifiers: ["com.acme.rocket"], store: store))
        lane.log("match result: \(result.certificateID) \(result.profiles.map(\.name))")
    }
}

@Suite("match: certificates and profiles through App Store Connect", .offThePool)
struct MatchSigningTests {
    static let password = "correct horse battery staple"

    /// A temporary folder with an empty store and a work tree.
    final class Folder: @unchecked Sendable {
        let root = NSTemporaryDirectory() + "shiplane-match-signing-\(UUID().uuidString)"
        var store: String { root + "/store" }
        var work: String { root + "/work" }
        init() throws {
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func variables(_ fake: FakeAppStoreConnect) -> [String: String] {
            StoreFixtures.appleEnvironment(apiURL: fake.baseURL).merging(["MATCH_PASSWORD": MatchSigningTests.password, "TMPDIR": root]) { $1 }
        }

        /// The store decrypted in memory, by path.
        func decrypted() throws -> [String: Data] {
            let contents = try MatchStore.contents(of: store)
            var files: [String: Data] = [:]
            for file in contents.encrypted {
                let text = try #require(FileManager.default.contents(atPath: store + "/" + file))
                guard case .success(let (data, format)) = MatchEncryption.decrypt(text, password: MatchSigningTests.password) else {
                    Issue.record("\(file) does not decrypt"); continue
                }
                #expect(format == .v2)
                files[file] = data
            }
            return files
        }
    }

    @Test("a CSR and key made natively are what openssl reads: RSA 2048, SHA-256 with RSA, the signature verifies, the key digest is the SPKI's")
    func csrVerifiesWithOpenSSL() throws {
        let folder = try Folder()
        let key = try SigningKey.generate()
        let csr = folder.root + "/request.csr"
        try Data(try key.certificateSigningRequestPEM(commonName: "Shiplane match appstore").utf8).write(to: URL(fileURLWithPath: csr))
        let verified = try runTool(["openssl", "req", "-in", csr, "-verify", "-noout", "-text"])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("verify OK") || verified.output.contains("Certificate request self-signature verify OK"))
        #expect(verified.output.contains("Public-Key: (2048 bit)"))
        #expect(verified.output.contains("sha256WithRSAEncryption"))
        #expect(verified.output.contains("CN = Shiplane match appstore") || verified.output.contains("CN=Shiplane match appstore"))
        // The key file match keeps as .p12: PKCS#1 PEM that openssl checks.
        try key.pem.write(to: URL(fileURLWithPath: folder.root + "/key.pem"))
        let checked = try runTool(["openssl", "rsa", "-in", folder.root + "/key.pem", "-check", "-noout"])
        #expect(checked.status == 0 && checked.output.contains("RSA key ok"), "\(checked.output)")
        #expect(String(decoding: key.pem, as: UTF8.self).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        // The digest is SHA-256 of the SubjectPublicKeyInfo openssl extracts.
        let spki = try runTool(["sh", "-c", "openssl req -in '\(csr)' -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum"])
        #expect(spki.output.hasPrefix(key.publicKeyDigest), "\(spki.output) vs \(key.publicKeyDigest)")
    }

    @Test("a certificate's expiry, subject and key are read from its DER as openssl reads them")
    func certificateIsRead() throws {
        let folder = try Folder()
        let base = folder.root + "/c"
        let made = try runTool(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".pem",
                                "-days", "40", "-subj", "/UID=TEAM123456/CN=Apple Distribution: Acme Inc (TEAM123456)/OU=TEAM123456/O=Acme Inc/C=US"])
        #expect(made.status == 0, "\(made.output)")
        _ = try runTool(["openssl", "x509", "-in", base + ".pem", "-outform", "DER", "-out", base + ".der"])
        let der = try #require(FileManager.default.contents(atPath: base + ".der"))
        let certificate = try #require(SigningCertificate(der: der))
        #expect(certificate.commonName == "Apple Distribution: Acme Inc (TEAM123456)")
        #expect(certificate.organizationalUnit == "TEAM123456")
        let end = try runTool(["openssl", "x509", "-in", base + ".pem", "-noout", "-enddate"]).output
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let text = end.replacingOccurrences(of: "notAfter=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "  ", with: " ")
        #expect(formatter.date(from: text) == certificate.expires, "\(text)")
        let key = try SigningKey(pem: try String(contentsOfFile: base + ".key", encoding: .utf8))
        #expect(key.publicKeyDigest == certificate.publicKeyDigest)
        #expect(SigningCertificate(der: Data(der.prefix(40))) == nil)
    }

    @Test("lane.match(type: .appStore, …): the typed type makes App Store signing (DISTRIBUTION, IOS_APP_STORE, match's AppStore path) and returns the values xcodebuild takes; readonly then reads them back; MatchKind's raw values are match's words")
    func laneMatchTakesATypedType() async throws {
        #expect(MatchKind.allCases.map(\.rawValue) == ["appstore", "adhoc", "development", "enterprise", "developer_id"])
        #expect(MatchKind(rawValue: "appstore") == .appStore && MatchKind(rawValue: "developer_id") == .developerID)
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let lane = try MatchTypedLaneForTest.parse(["--store", folder.store])
        let (result, messages) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(result.failure == nil, "\(allText(result.failure))")
        let state = fake.lock.withLock { fake.signing }
        let id = try #require(state.certificates.keys.first)
        #expect(state.certificates[id]?.type == "DISTRIBUTION")
        #expect(state.profiles.values.map(\.type) == ["IOS_APP_STORE"])
        #expect(Set(try folder.decrypted().keys) == ["certs/distribution/\(id).cer", "certs/distribution/\(id).p12", "profiles/appstore/AppStore_com.acme.rocket.mobileprovision"])
        let outputs = Dictionary(result.outputs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(outputs["match_certificate_id"] == id)
        #expect(outputs["match_profile_com_acme_rocket"] == "match AppStore com.acme.rocket")
        #expect(messages.contains { $0.contains("and match AppStore com.acme.rocket") }, "\(messages)")
        let sent = fake.log.count
        let (readonly, _) = await runStoreLane(try MatchTypedLaneForTest.parse(["--store", folder.store, "--readonly"]), folder: folder.work, variables: folder.variables(fake))
        #expect(readonly.failure == nil, "\(allText(readonly.failure))")
        #expect(readonly.outputs.contains { $0.name == "match_certificate_id" && $0.value == id })
        #expect(fake.log.count == sent, "readonly asks nothing of Apple")
    }

    @Test("Developer ID on macOS, ad hoc on tvOS, App Store on macOS: the certificate type each creates, the profile type at Apple, match's store path and profile name; a second run changes nothing", arguments: [
        ("developer_id", "macos", "DEVELOPER_ID_APPLICATION_G2", "MAC_APP_DIRECT", "profiles/developer_id/Direct_com.acme.rocket_macos.provisionprofile", "match Direct com.acme.rocket macos"),
        ("adhoc", "tvos", "DISTRIBUTION", "TVOS_APP_ADHOC", "profiles/adhoc/AdHoc_com.acme.rocket_tvos.mobileprovision", "match AdHoc com.acme.rocket tvos"),
        ("appstore", "macos", "DISTRIBUTION", "MAC_APP_STORE", "profiles/appstore/AppStore_com.acme.rocket_macos.provisionprofile", "match AppStore com.acme.rocket macos"),
    ])
    func otherTypesAndPlatforms(_ kind: String, _ platform: String, _ certificateType: String, _ profileType: String, _ path: String, _ name: String) async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        // An ad hoc profile lists devices: an Apple TV for tvOS (the others list none).
        fake.lock.withLock { fake.signing.devices["DEVICE-TV"] = .init(name: "Lounge", udid: "00008110-00000000000A", platform: "IOS", deviceClass: "APPLE_TV") }
        let lane = try MatchPlatformLaneForTest.parse(["--kind", kind, "--platform", platform, "--store", folder.store])
        let (result, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(result.failure == nil, "\(allText(result.failure))")
        let state = fake.lock.withLock { fake.signing }
        let id = try #require(state.certificates.keys.first)
        #expect(state.certificates.values.map(\.type) == [certificateType])
        #expect(state.profiles.values.map(\.type) == [profileType])
        #expect(state.profiles.values.map(\.name) == [name])
        #expect(state.profiles.values.map(\.devices) == [kind == "adhoc" ? ["DEVICE-TV"] : []])
        let folderName = MatchKind(rawValue: kind)?.certificateFolder ?? "?"
        #expect(Set(try folder.decrypted().keys) == ["certs/\(folderName)/\(id).cer", "certs/\(folderName)/\(id).p12", path])
        let sent = fake.log.filter { !$0.hasPrefix("GET ") }.count
        let (again, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(again.failure == nil, "\(allText(again.failure))")
        #expect(fake.log.filter { !$0.hasPrefix("GET ") }.count == sent, "the second run only reads")
    }

    @Test("development for two bundle IDs: one certificate from a new key, both bundle IDs registered, a device registered, one profile each with the certificate and every device; the store holds them encrypted; a second run changes nothing")
    func createsWhatIsMissingThenNothing() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        fake.lock.withLock { fake.signing.devices["DEVICE-OLD"] = .init(name: "Old iPad", udid: "00008020-000000000001", platform: "IOS", deviceClass: "IPAD") }
        let lane = try MatchLaneForTest.parse(["--kind", "development", "--store", folder.store, "--identifiers", "com.acme.rocket",
                                               "--identifiers", "com.acme.rocket.widget", "--device", "Ada's iPhone=00008110-000000000002"])
        let (result, messages) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(result.failure == nil, "\(allText(result.failure))")
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.count == 1)
        #expect(state.certificates.values.first?.type == "DEVELOPMENT")
        #expect(Set(state.bundleIDs.values.map(\.identifier)) == ["com.acme.rocket", "com.acme.rocket.widget"])
        #expect(state.devices.count == 2)
        #expect(state.profiles.count == 2)
        let certificateID = try #require(state.certificates.keys.first)
        for profile in state.profiles.values {
            #expect(profile.certificates == [certificateID])
            #expect(Set(profile.devices) == Set(state.devices.keys))
            #expect(profile.type == "IOS_APP_DEVELOPMENT")
        }
        #expect(Set(state.profiles.values.map(\.name)) == ["match Development com.acme.rocket", "match Development com.acme.rocket.widget"])
        let files = try folder.decrypted()
        #expect(Set(files.keys) == [
            "certs/development/\(certificateID).cer", "certs/development/\(certificateID).p12",
            "profiles/development/Development_com.acme.rocket.mobileprovision", "profiles/development/Development_com.acme.rocket.widget.mobileprovision",
        ])
        let der = try #require(files["certs/development/\(certificateID).cer"])
        let key = try SigningKey(pem: String(decoding: try #require(files["certs/development/\(certificateID).p12"]), as: UTF8.self))
        #expect(SigningCertificate(der: der)?.publicKeyDigest == key.publicKeyDigest)
        #expect(ProvisioningProfileInfo(try #require(files["profiles/development/Development_com.acme.rocket.mobileprovision"]))?.devices.count == 2)
        // Secrets: neither the password nor any line of the key is in anything the run showed or recorded.
        let shown = messages.joined(separator: "\n") + allText(result.failure) + result.steps.map { "\($0)" }.joined()
        #expect(!shown.contains(Self.password))
        for line in String(decoding: key.pem, as: UTF8.self).split(separator: "\n") where line.count > 20 { #expect(!shown.contains(line)) }
        // The key waiting for Apple's answer is gone, and so is the decrypted folder.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.root)) ?? []).filter { $0.hasPrefix(MatchScratch.prefix) }.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.work + "/.shiplane/stores")) ?? []).filter { $0.hasPrefix("match-key") }.isEmpty)
        // Again: only reads.
        let before = fake.log.count
        let (again, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(again.failure == nil, "\(allText(again.failure))")
        let sent = fake.log.dropFirst(before)
        #expect(sent.allSatisfy { $0.hasPrefix("GET ") }, "\(sent)")
        #expect(try folder.decrypted() == files)
    }

    @Test("a dry run reads the store and App Store Connect, says what it would make, and sends no change and writes nothing")
    func dryRunChangesNothing() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let lane = try MatchLaneForTest.parse(["--kind", "adhoc", "--store", folder.store, "--identifiers", "com.acme.rocket",
                                               "--device", "Ada's iPhone=00008110-000000000002"])
        let (result, messages) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake), dryRun: true)
        #expect(result.failure == nil, "\(allText(result.failure))")
        #expect(!fake.log.isEmpty && fake.log.allSatisfy { $0.hasPrefix("GET ") }, "\(fake.log)")
        #expect(messages.contains { $0.contains("would create a DISTRIBUTION certificate") })
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.devices.isEmpty })
        #expect(try MatchStore.contents(of: folder.store).encrypted.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.work)) ?? []).isEmpty)
    }

    @Test("a lane that fails after match: the certificate is revoked, the profiles and bundle IDs deleted, the store's files removed; devices stay")
    func rollbackTakesBackWhatTheRunMade() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let lane = try MatchLaneForTest.parse(["--kind", "adhoc", "--store", folder.store, "--identifiers", "com.acme.rocket",
                                               "--device", "Ada's iPhone=00008110-000000000002", "--fail-after"])
        let (result, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(result.failure != nil)
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.isEmpty)
        #expect(state.revoked.count == 1)
        #expect(state.profiles.isEmpty && state.deletedProfiles.count == 1)
        #expect(state.bundleIDs.isEmpty)
        #expect(state.devices.count == 1)
        #expect(try MatchStore.contents(of: folder.store).encrypted.isEmpty)
        let rollback = result.failure?.rollback ?? []
        #expect(rollback.contains { "\($0)".contains("stays") })
    }

    @Test("readonly with an empty store names the certificate and every profile at once, sends nothing and writes nothing; after a sync it reads the store alone")
    func readonlyReadsTheStoreOnly() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        let readonly = try MatchLaneForTest.parse(["--kind", "appstore", "--store", folder.store, "--identifiers", "com.acme.rocket",
                                                   "--identifiers", "com.acme.rocket.widget", "--readonly"])
        let (refused, _) = await runStoreLane(readonly, folder: folder.work, variables: folder.variables(fake))
        let text = allText(refused.failure)
        #expect(text.contains("no valid appstore certificate"))
        #expect(text.contains("AppStore_com.acme.rocket.mobileprovision") && text.contains("AppStore_com.acme.rocket.widget.mobileprovision"))
        #expect(fake.log.isEmpty)
        #expect(try MatchStore.contents(of: folder.store).encrypted.isEmpty)

        let sync = try MatchLaneForTest.parse(["--kind", "appstore", "--store", folder.store, "--identifiers", "com.acme.rocket",
                                               "--identifiers", "com.acme.rocket.widget"])
        let (made, _) = await runStoreLane(sync, folder: folder.work, variables: folder.variables(fake))
        #expect(made.failure == nil, "\(allText(made.failure))")
        let sent = fake.log.count
        // Readonly needs no App Store Connect key at all.
        let (read, messages) = await runStoreLane(readonly, folder: folder.work, variables: ["MATCH_PASSWORD": Self.password, "TMPDIR": folder.root])
        #expect(read.failure == nil, "\(allText(read.failure))")
        #expect(fake.log.count == sent)
        #expect(messages.contains { $0.contains("match result: CERT-") })
        #expect(read.outputs.contains { $0.name == "match_team_id" && $0.value == "TEAM123456" })
        #expect(read.outputs.contains { $0.name == "match_code_sign_identity" && $0.value == "Apple Distribution: Acme Inc (TEAM123456)" })
        #expect(read.outputs.contains { $0.name == "match_profile_com_acme_rocket" && $0.value == "match AppStore com.acme.rocket" })
    }

    @Test("what expires within the renewal window is made again: a certificate valid 10 more days and its profile, with renewDays 30")
    func renewsWhatExpiresSoon() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        fake.lock.withLock { fake.signing.certificateDays = 10 }
        let lane = try MatchLaneForTest.parse(["--kind", "appstore", "--store", folder.store, "--identifiers", "com.acme.rocket"])
        let (first, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(first.failure == nil, "\(allText(first.failure))")
        fake.lock.withLock { fake.signing.certificateDays = 365 }
        let (second, _) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(second.failure == nil, "\(allText(second.failure))")
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.count == 2)
        #expect(state.profiles.count == 1 && state.deletedProfiles.count == 1)
        let newest = try #require(state.certificates.max { $0.value.expires < $1.value.expires })
        #expect(state.profiles.values.first?.certificates == [newest.key])
        let files = try folder.decrypted()
        #expect(files["certs/distribution/\(newest.key).cer"] != nil)
        // Within 5 days nothing is due: a third run only reads.
        let sent = fake.log.count
        let keep = try MatchLaneForTest.parse(["--kind", "appstore", "--store", folder.store, "--identifiers", "com.acme.rocket", "--renew-days", "5"])
        let (third, _) = await runStoreLane(keep, folder: folder.work, variables: folder.variables(fake))
        #expect(third.failure == nil)
        #expect(fake.log.dropFirst(sent).allSatisfy { $0.hasPrefix("GET ") })
    }

    @Test("a run stopped after Apple made the certificate but before the store held it: the next run adopts that certificate instead of asking for a second")
    func adoptsTheCertificateAKilledRunAskedFor() async throws {
        let folder = try Folder()
        let fake = try FakeAppStoreConnect()
        try await fake.start()
        defer { fake.stop() }
        // What the killed run left: its key, saved encrypted, and Apple's certificate for it.
        let key = try SigningKey.generate()
        let context = LaneContext(.init(workingDirectory: folder.work, environment: LaneEnvironment(variables: [:]), reporter: RecordingReporter()))
        try await PendingSigningKeys(lane: context, password: Self.password).save(key, type: "DISTRIBUTION")
        let client = AppStoreConnectClient(
            credentials: try AppStoreConnectCredentials.fromEnvironment(folder.variables(fake), workingDirectory: folder.work),
            environment: folder.variables(fake), transport: HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy()))
        let made = try await client.createCertificate(type: "DISTRIBUTION", csrPEM: try key.certificateSigningRequestPEM(commonName: "killed"))
        let lane = try MatchLaneForTest.parse(["--kind", "appstore", "--store", folder.store, "--identifiers", "com.acme.rocket"])
        let (result, messages) = await runStoreLane(lane, folder: folder.work, variables: folder.variables(fake))
        #expect(result.failure == nil, "\(allText(result.failure))")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1)
        #expect(fake.lock.withLock { fake.signing.certificates.count } == 1)
        #expect(messages.contains { $0.contains("adopted certificate \(made.id)") })
        let files = try folder.decrypted()
        #expect(files["certs/distribution/\(made.id).p12"] == key.pem)
    }

    @Test("the macOS keychain import plan: a temporary keychain made, unlocked and searched first, certificate and key imported for codesign, the partition list set, profiles copied by UUID")
    func keychainPlan() {
        let plan = KeychainImportPlan(
            keychain: "/tmp/ci.keychain-db", keychainPassword: "kp", create: true,
            searchList: KeychainImportPlan.searchList(from: "    \"/Users/ci/Library/Keychains/login.keychain-db\"\n"),
            certificate: "/tmp/s/C.cer", privateKey: "/tmp/s/C.p12", profiles: [("/tmp/s/p.mobileprovision", "UUID-1", false)], home: "/Users/ci")
        let allowed = ["-T", "/usr/bin/codesign", "-T", "/usr/bin/security", "-T", "/usr/bin/productbuild", "-T", "/usr/bin/productsign"]
        #expect(plan.commands.map(\.arguments) == [
            ["create-keychain", "-p", "kp", "/tmp/ci.keychain-db"],
            ["set-keychain-settings", "-lut", "21600", "/tmp/ci.keychain-db"],
            ["unlock-keychain", "-p", "kp", "/tmp/ci.keychain-db"],
            ["list-keychains", "-d", "user", "-s", "/tmp/ci.keychain-db", "/Users/ci/Library/Keychains/login.keychain-db"],
            ["import", "/tmp/s/C.cer", "-k", "/tmp/ci.keychain-db"] + allowed,
            ["import", "/tmp/s/C.p12", "-k", "/tmp/ci.keychain-db", "-f", "openssl", "-t", "priv"] + allowed,
            ["set-key-partition-list", "-S", "apple-tool:,apple:,codesign:", "-s", "-k", "kp", "/tmp/ci.keychain-db"],
        ])
        #expect(plan.commands.allSatisfy { $0.executable == "/usr/bin/security" })
        #expect(plan.profileCopies.map(\.to) == [
            "/Users/ci/Library/Developer/Xcode/UserData/Provisioning Profiles/UUID-1.mobileprovision",
            "/Users/ci/Library/MobileDevice/Provisioning Profiles/UUID-1.mobileprovision",
        ])
        // An existing keychain already searched: only unlocked, no list change.
        let again = KeychainImportPlan(keychain: "/k", keychainPassword: "kp", create: false, searchList: ["/k"], certificate: "/c", privateKey: "/p", profiles: [], home: "/h")
        #expect(again.commands.map { $0.arguments.first ?? "" } == ["unlock-keychain", "import", "import", "set-key-partition-list"])
    }

    @Test("decrypted files are 0600 in a 0700 folder named with the process; a folder a dead process left is removed, one of a live process kept")
    func scratchFolders() throws {
        let folder = try Folder()
        let scratch = try MatchScratch.make(base: folder.root)
        let file = try scratch.write(Data("secret".utf8), as: "k.p12")
        let fileMode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        let folderMode = try #require(FileManager.default.attributesOfItem(atPath: scratch.path)[.posixPermissions] as? Int)
        #expect(fileMode == 0o600 && folderMode == 0o700)
        // A process that ended: a child that exited.
        let child = try runTool(["sh", "-c", "echo $$"])
        let dead = folder.root + "/" + MatchScratch.prefix + child.output.trimmingCharacters(in: .whitespacesAndNewlines) + "-abcdef"
        try FileManager.default.createDirectory(atPath: dead, withIntermediateDirectories: true)
        let removed = MatchScratch.removeLeftovers(base: folder.root)
        #expect(removed == [dead])
        #expect(FileManager.default.fileExists(atPath: scratch.path))
        scratch.remove()
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }

    @Test("App Store Connect's names: certificate and profile types per match type and platform, store paths and profile names as match writes them")
    func namesAsMatchWritesThem() {
        #expect(MatchKind.appStore.profilePath(bundleID: "com.a", platform: .iOS) == "profiles/appstore/AppStore_com.a.mobileprovision")
        #expect(MatchKind.appStore.profilePath(bundleID: "com.a", platform: .tvOS) == "profiles/appstore/AppStore_com.a_tvos.mobileprovision")
        #expect(MatchKind.developerID.profilePath(bundleID: "com.a", platform: .macOS) == "profiles/developer_id/Direct_com.a_macos.provisionprofile")
        #expect(MatchKind.enterprise.profileName(bundleID: "com.a", platform: .iOS) == "match InHouse com.a")
        #expect(MatchKind.adHoc.profileType(for: .tvOS) == "TVOS_APP_ADHOC")
        #expect(MatchKind.developerID.profileType(for: .iOS) == nil)
        #expect(MatchKind.development.certificateTypes(for: .macOS) == ["DEVELOPMENT", "MAC_APP_DEVELOPMENT"])
        #expect(MatchKind(matchName: "developer-id") == .developerID && MatchKind(matchName: "AppStore") == .appStore)
    }
}
