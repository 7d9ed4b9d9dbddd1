import Foundation
import Testing

/// match's storage format both ways, against fastlane's encryption run by Debian's `ruby`
/// (`Fixtures/Match/match_oracle.rb`: fastlane's `encryption.rb` written again with Ruby's standard
/// library): what Ruby encrypted the built `shiplane` decrypts, what `shiplane` encrypted Ruby
/// decrypts, in each format; the password change both ways; a wrong password writes nothing.
@Suite("match storage: compatible both ways with fastlane's encryption (Ruby)", .offThePool)
struct MatchRubyCompatibilityTests {
    static let password = "correct horse ♞ battery"
    static let newPassword = "staple-2026-new"

    /// (oracle's version and hash, the format's first base64 characters)
    static let rubyFormats: [(arguments: [String], head: String)] = [
        (["2"], "bWF0Y2hfZW5jcnlwdGVkX3YyX1"),  // match_encrypted_v2__
        (["1", "MD5"], "U2FsdGVkX1"),             // Salted__
        (["1", "SHA256"], "U2FsdGVkX1"),
    ]

    @Test(arguments: 0..<3)
    func whatFastlaneEncryptedShiplaneDecrypts(_ index: Int) throws {
        let (arguments, head) = Self.rubyFormats[index]
        let fixture = try MatchFixture()
        let store = try fixture.copyOfPlain("store")
        let encrypted = try fixture.ruby(["encrypt-files", store] + arguments, environment: ["MATCH_PASSWORD": Self.password])
        try #require(encrypted.status == 0, "\(encrypted.all)")
        for file in fixture.files {
            let text = String(decoding: FileManager.default.contents(atPath: store + "/" + file) ?? Data(), as: UTF8.self)
            #expect(text.hasPrefix(head), "\(file) was encrypted by the oracle")
        }
        let result = try fixture.shiplane(["match", "decrypt", "store", "--output", "decrypted"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(result.status == 0, "\(result.all)")
        #expect(MatchFixture.snapshot(fixture.root + "/decrypted") == MatchFixture.snapshot(fixture.plain), "every file as it was before Ruby encrypted it")
        #expect(result.stdout.contains("certificate distribution/ABCDE12345 (.cer, .p12)"), "\(result.stdout)")
        #expect(result.stdout.contains("profile appstore com.example.app (AppStore)"))
        #expect(result.stdout.contains(index == 0 ? "match v2" : index == 1 ? "MD5" : "SHA-256"), "\(result.stdout)")
        #expect(!result.all.contains(Self.password))
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.root + "/decrypted")
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let key = try FileManager.default.attributesOfItem(atPath: fixture.root + "/decrypted/certs/distribution/ABCDE12345.p12")
        #expect((key[.posixPermissions] as? Int) == 0o600)
    }

    @Test(arguments: [false, true])
    func whatShiplaneEncryptedFastlaneDecrypts(legacy: Bool) throws {
        let fixture = try MatchFixture()
        let result = try fixture.shiplane(
            ["match", "encrypt", "plain", "--output", "store"] + (legacy ? ["--legacy"] : []), environment: ["MATCH_PASSWORD": Self.password]
        )
        #expect(result.status == 0, "\(result.all)")
        #expect(!result.all.contains(Self.password))
        let store = fixture.root + "/store"
        for file in fixture.files {
            let text = String(decoding: FileManager.default.contents(atPath: store + "/" + file) ?? Data(), as: UTF8.self)
            #expect(text.hasPrefix(legacy ? "U2FsdGVkX1" : "bWF0Y2hfZW5jcnlwdGVkX3YyX1"), "\(file)")
            // Ruby's Base64.encode64: lines of 60 characters, each ending in a newline.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(text.hasSuffix("\n") && lines.dropLast().dropLast().allSatisfy { $0.count == 60 } && (lines.dropLast().last?.count ?? 0) <= 60)
        }
        #expect(MatchFixture.snapshot(store)["match_version.txt"] == Data("2.220.0\n".utf8), "copied in plain text")
        let decrypted = try fixture.ruby(["decrypt-files", store], environment: ["MATCH_PASSWORD": Self.password])
        #expect(decrypted.status == 0, "\(decrypted.all)")
        #expect(MatchFixture.snapshot(store) == MatchFixture.snapshot(fixture.plain), "fastlane's code reads back every file")
    }

    @Test func shiplaneChangesThePasswordOfAStoreFastlaneWroteAndFastlaneReadsIt() throws {
        let fixture = try MatchFixture()
        let store = try fixture.copyOfPlain("store")
        // A store of both formats, as an old repository is after a newer match added files.
        let legacy = try fixture.ruby(["encrypt-files", store, "1", "MD5"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(legacy.status == 0, "\(legacy.all)")
        let profile = store + "/profiles/appstore/AppStore_com.example.app.mobileprovision"
        try FileManager.default.removeItem(atPath: profile)
        try FileManager.default.copyItem(atPath: fixture.plain + "/profiles/appstore/AppStore_com.example.app.mobileprovision", toPath: profile)
        let v2 = try fixture.ruby(["encrypt-files", store + "/profiles/appstore", "2"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(v2.status == 0, "\(v2.all)")

        let before = MatchFixture.snapshot(store)
        let dryRun = try fixture.shiplane(
            ["--dry-run", "match", "change-password", "store"], environment: ["MATCH_PASSWORD": Self.password, "MATCH_NEW_PASSWORD": Self.newPassword]
        )
        #expect(dryRun.status == 0 && dryRun.stdout.contains("Would have changed the password of 6 files"), "\(dryRun.all)")
        #expect(MatchFixture.snapshot(store) == before, "a dry run writes nothing")

        let result = try fixture.shiplane(
            ["match", "change-password", "store"], environment: ["MATCH_PASSWORD": Self.password, "MATCH_NEW_PASSWORD": Self.newPassword]
        )
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("Changed the password of 6 files"), "\(result.stdout)")
        #expect(!result.all.contains(Self.password) && !result.all.contains(Self.newPassword))

        let withOld = try fixture.ruby(["decrypt-files", store], environment: ["MATCH_PASSWORD": Self.password])
        #expect(withOld.status == 1, "the old password no longer opens the store: \(withOld.all)")
        let withNew = try fixture.ruby(["decrypt-files", store], environment: ["MATCH_PASSWORD": Self.newPassword])
        #expect(withNew.status == 0, "\(withNew.all)")
        #expect(MatchFixture.snapshot(store) == MatchFixture.snapshot(fixture.plain))
    }

    @Test func fastlaneChangesThePasswordOfAStoreShiplaneWroteAndShiplaneReadsIt() throws {
        let fixture = try MatchFixture()
        let encrypted = try fixture.shiplane(["match", "encrypt", "plain", "--output", "store"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(encrypted.status == 0, "\(encrypted.all)")
        let changed = try fixture.ruby(
            ["change-password", fixture.root + "/store"], environment: ["MATCH_PASSWORD": Self.password, "MATCH_NEW_PASSWORD": Self.newPassword]
        )
        try #require(changed.status == 0, "\(changed.all)")
        let old = try fixture.shiplane(["match", "decrypt", "store", "--output", "old"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(old.status == 1)
        let new = try fixture.shiplane(["match", "decrypt", "store", "--output", "new"], environment: ["MATCH_PASSWORD": Self.newPassword])
        #expect(new.status == 0, "\(new.all)")
        #expect(MatchFixture.snapshot(fixture.root + "/new") == MatchFixture.snapshot(fixture.plain))
    }

    /// A change killed halfway leaves files under both passwords: run again, it finishes.
    @Test func aPasswordChangeCutShortFinishesWhenRunAgain() throws {
        let fixture = try MatchFixture()
        let store = try fixture.copyOfPlain("store")
        let encrypted = try fixture.ruby(["encrypt-files", store, "1", "MD5"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(encrypted.status == 0, "\(encrypted.all)")
        let both = ["MATCH_PASSWORD": Self.password, "MATCH_NEW_PASSWORD": Self.newPassword]
        let half = try fixture.ruby(["change-password", store + "/profiles"], environment: both)
        try #require(half.status == 0, "\(half.all)")
        let result = try fixture.shiplane(["match", "change-password", "store"], environment: both)
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("2 of them already had the new password"), "\(result.stdout)")
        let withNew = try fixture.ruby(["decrypt-files", store], environment: ["MATCH_PASSWORD": Self.newPassword])
        #expect(withNew.status == 0, "\(withNew.all)")
        #expect(MatchFixture.snapshot(store) == MatchFixture.snapshot(fixture.plain))
    }

    @Test func withoutOutputTheFilesGoToAPrivateTemporaryFolderAndAFullFolderIsRefused() throws {
        let fixture = try MatchFixture()
        let encrypted = try fixture.shiplane(["match", "encrypt", "plain", "--output", "store"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(encrypted.status == 0, "\(encrypted.all)")
        let result = try fixture.shiplane(["match", "decrypt", "store"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(result.status == 0, "\(result.all)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Decrypted 6 files") })
        let folder = String(try #require(line.range(of: " into ").map { line[$0.upperBound...] }))
        #expect(folder.hasPrefix(fixture.root + "/home/shiplane-match-"), "in TMPDIR: \(folder)")
        #expect((try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int) == 0o700)
        #expect(MatchFixture.snapshot(folder) == MatchFixture.snapshot(fixture.plain))

        let full = try fixture.shiplane(["match", "decrypt", "store", "--output", "plain"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(full.status == 2 && full.stderr.contains("exists and is not an empty folder"), "\(full.all)")
        let dryRun = try fixture.shiplane(["match", "decrypt", "store", "--output", "nowhere", "--dry-run"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(dryRun.status == 0 && dryRun.stdout.contains("Would have decrypted 6 files"), "\(dryRun.all)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/nowhere"))
    }

    @Test(arguments: [["2"], ["1", "MD5"]])
    func aWrongPasswordNamesEveryFileAndWritesNothing(_ format: [String]) throws {
        let fixture = try MatchFixture()
        let store = try fixture.copyOfPlain("store")
        let encrypted = try fixture.ruby(["encrypt-files", store] + format, environment: ["MATCH_PASSWORD": Self.password])
        try #require(encrypted.status == 0, "\(encrypted.all)")
        let before = MatchFixture.snapshot(store)
        let wrong = "not-the-password"

        let decrypt = try fixture.shiplane(["match", "decrypt", "store", "--output", "decrypted"], environment: ["MATCH_PASSWORD": wrong])
        #expect(decrypt.status == 1, "\(decrypt.all)")
        for file in fixture.files {
            #expect(decrypt.stderr.contains("\(file): the password does not decrypt it"), "\(decrypt.stderr)")
        }
        #expect(decrypt.stderr.contains("nothing was written") && decrypt.stderr.contains("MATCH_PASSWORD"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/decrypted"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root).allSatisfy { !$0.hasPrefix(".shiplane-match") })

        let change = try fixture.shiplane(["match", "change-password", "store"], environment: ["MATCH_PASSWORD": wrong, "MATCH_NEW_PASSWORD": "other"])
        #expect(change.status == 1, "\(change.all)")
        #expect(MatchFixture.snapshot(store) == before, "the store is as it was")
        for output in [decrypt, change] { #expect(!output.all.contains(wrong) && !output.all.contains(Self.password)) }
    }

    @Test func withoutMatchPasswordNothingRunsAndTheCommandLineIsChecked() throws {
        let fixture = try MatchFixture()
        let missing = try fixture.shiplane(["match", "decrypt", "plain"], environment: [:])
        #expect(missing.status == 4 && missing.stderr.contains("MATCH_PASSWORD is not set"), "\(missing.all)")
        let noStore = try fixture.shiplane(["match", "encrypt", "plain"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(noStore.status == 2 && noStore.stderr.contains("--output"), "\(noStore.all)")
        let notEncrypted = try fixture.shiplane(["match", "decrypt", "plain", "--output", "out"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(notEncrypted.status == 1 && notEncrypted.stderr.contains("not encrypted by match"), "\(notEncrypted.all)")
        let noFolder = try fixture.shiplane(["match", "decrypt", "nowhere"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(noFolder.status == 2 && noFolder.stderr.contains("is not a folder"), "\(noFolder.all)")
        // Encrypting an encrypted store again is refused, file by file.
        let once = try fixture.shiplane(["match", "encrypt", "plain", "--output", "store"], environment: ["MATCH_PASSWORD": Self.password])
        try #require(once.status == 0)
        let twice = try fixture.shiplane(["match", "encrypt", "store", "--output", "again"], environment: ["MATCH_PASSWORD": Self.password])
        #expect(twice.status == 1 && twice.stderr.contains("already encrypted by match"), "\(twice.all)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/again"))
    }
}
