import Foundation
import Testing
@testable import Shiplane

/// `lane.updateAppStoreMetadata` from deliver's folder, run by the built `shiplane` against the
/// App Store Connect stand-in checked against Apple's published description.
@Suite("App Store listing from fastlane/metadata through the CLI", .serialized, .offThePool)
struct AppStoreMetadataTests {
    private func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Listing.swift", """
        import Shiplane
        struct Listing: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0")
            }
        }
        struct Botched: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0")
                try await lane.sh("false")
            }
        }
        """)
        try repo.write("fastlane/metadata/en-US/description.txt", "Fly higher.\n")
        try repo.write("fastlane/metadata/en-US/keywords.txt", "rocket,space\n")
        try repo.write("fastlane/metadata/en-US/release_notes.txt", "A faster engine.\n")
        try repo.write("fastlane/metadata/en-US/name.txt", "Rocket\n")
        try repo.write("fastlane/metadata/en-US/subtitle.txt", "To the moon\n")
        try repo.write("fastlane/metadata/de-DE/description.txt", "Höher fliegen.\n")
        try repo.write("fastlane/metadata/review_information/notes.txt", "not a locale\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes and listing")
        return repo
    }

    /// A new locale with a subtitle but no name.txt: App Store Connect creates an app info
    /// localization only with a name, so the run stops in preflight, before any write, naming the
    /// locale and the file to add; the dry run says the same.
    @Test func aNewAppInfoLocaleWithoutANameIsCaughtInPreflight() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        _ = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "en-US", ["description": "Fly."])
        _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket"])
        let repo = try repository()
        try repo.write("fastlane/metadata/fr-FR/subtitle.txt", "Vers la lune\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: a French subtitle")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        for arguments in [["listing", "--dry-run"], ["listing"]] {
            let run = try await repo.shiplaneAsync(arguments, environment: environment)
            #expect(run.status == 1, "\(run.all)")
            #expect(run.stderr.contains("fr-FR has no app info localization on App Store Connect yet, and one is created only with the app's name"), "\(run.all)")
            #expect(run.stderr.contains("add fastlane/metadata/fr-FR/name.txt"), "\(run.all)")
        }
        #expect(apple.log.allSatisfy { $0.hasPrefix("GET ") }, "nothing was written: \(apple.log)")
        #expect(apple.violations.isEmpty, "\(apple.violations)")
    }

    @Test func dryRunShowsTheDiffThenARunSetsOnlyWhatDiffersAndARerunSendsNothing() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        _ = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "en-US", ["description": "Fly.", "keywords": "rocket,space"])
        _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket"])
        let repo = try repository()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        func writes() -> [String] { apple.log.filter { !$0.hasPrefix("GET ") } }

        let dry = try await repo.shiplaneAsync(["listing", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains(#"en-US description: "Fly." → "Fly higher.""#), "\(dry.all)")
        #expect(dry.all.contains(#"en-US whatsNew: (none) → "A faster engine.""#), "\(dry.all)")
        #expect(dry.all.contains(#"de-DE description: (none) → "Höher fliegen.""#), "\(dry.all)")
        #expect(dry.all.contains(#"en-US subtitle: (none) → "To the moon""#), "\(dry.all)")
        #expect(!dry.all.contains("keywords:") && !dry.all.contains("en-US name:"), "unchanged fields are not listed: \(dry.all)")
        #expect(writes().isEmpty, "\(apple.log)")

        let run = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        let versionTexts = apple.localizations("appStoreVersionLocalizations")
        #expect(versionTexts["en-US"] == ["description": "Fly higher.", "keywords": "rocket,space", "whatsNew": "A faster engine."])
        #expect(versionTexts["de-DE"] == ["description": "Höher fliegen."])
        #expect(apple.localizations("appInfoLocalizations")["en-US"] == ["name": "Rocket", "subtitle": "To the moon"])
        #expect(writes().count == 3, "one write per localization that differs: \(writes())")

        let before = writes().count
        let again = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(writes().count == before, "nothing differs, nothing is sent: \(writes())")
    }

    @Test func aFailedRunPutsTheOldTextBackAndDeletesWhatItCreated() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket", "subtitle": "Old subtitle"])
        let repo = try repository()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let failed = try await repo.shiplaneAsync(["botched"], environment: environment)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.log.contains("POST /v1/appStoreVersions"), "the version did not exist: it was created \(apple.log)")
        #expect(apple.lock.withLock { apple.storeVersions.isEmpty }, "the version this run created is deleted: \(failed.all)")
        #expect(apple.localizations("appStoreVersionLocalizations").isEmpty)
        #expect(apple.localizations("appInfoLocalizations")["en-US"] == ["name": "Rocket", "subtitle": "Old subtitle"], "\(failed.all)")
    }

    @Test func aMissingFolderOrBadPlatformIsReportedBeforeAnythingIsSent() async throws {
        try await withTemporaryDirectory { folder in
            let empty = folder.path + "/metadata"
            try FileManager.default.createDirectory(atPath: empty + "/en-US", withIntermediateDirectories: true)
            #expect { try AppStoreListing.read(folder: folder.path + "/nothing") } throws: { allText($0).contains("does not exist") }
            #expect { try AppStoreListing.read(folder: empty) } throws: { allText($0).contains("holds no locale folder") }
            try "Rocket\n\n".write(toFile: empty + "/en-US/name.txt", atomically: true, encoding: .utf8)
            #expect(try AppStoreListing.read(folder: empty) == AppStoreListing(version: [:], appInfo: ["en-US": ["name": "Rocket"]]))
        }
    }

    /// deliver's `default/` folder: each of its fields goes to every locale folder without a file of
    /// its own for it (an empty locale folder takes them all); locales without a folder get nothing.
    @Test func theDefaultFolderFillsEveryLocaleFolderWithoutItsOwnFile() async throws {
        try await withTemporaryDirectory { folder in
            let metadata = folder.path + "/metadata"
            for (path, text) in [("default/description.txt", "Fly higher.\n"), ("default/privacy_url.txt", "https://acme.example/privacy\n"),
                                 ("default/keywords.txt", "rocket\n"), ("en-US/keywords.txt", "rocket,space\n"), ("en-US/name.txt", "Rocket\n"),
                                 ("de-DE/description.txt", "Höher fliegen.\n"), ("review_information/notes.txt", "not a locale\n")] {
                try FileManager.default.createDirectory(atPath: ((metadata + "/" + path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try text.write(toFile: metadata + "/" + path, atomically: true, encoding: .utf8)
            }
            try FileManager.default.createDirectory(atPath: metadata + "/ja", withIntermediateDirectories: true)
            let listing = try AppStoreListing.read(folder: metadata)
            #expect(listing.version == [
                "en-US": ["description": "Fly higher.", "keywords": "rocket,space"],
                "de-DE": ["description": "Höher fliegen.", "keywords": "rocket"],
                "ja": ["description": "Fly higher.", "keywords": "rocket"],
            ])
            #expect(listing.appInfo == [
                "en-US": ["name": "Rocket", "privacyPolicyUrl": "https://acme.example/privacy"],
                "de-DE": ["privacyPolicyUrl": "https://acme.example/privacy"], "ja": ["privacyPolicyUrl": "https://acme.example/privacy"],
            ])
            let lonely = folder.path + "/lonely"
            try FileManager.default.createDirectory(atPath: lonely + "/default", withIntermediateDirectories: true)
            try "Fly.\n".write(toFile: lonely + "/default/description.txt", atomically: true, encoding: .utf8)
            #expect { try AppStoreListing.read(folder: lonely) } throws: { allText($0).contains("gives values to the locale folders beside it, and there are none") }
        }
    }

    /// Through the CLI: the stand-in gets the default text for the locales with a folder, and a
    /// `default/` screenshots folder (deliver takes default for text only) is refused before anything is sent.
    @Test func theDefaultFolderReachesTheStoreAndDefaultScreenshotsAreRefused() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let version = apple.addStoreVersion("1.4.0")
        _ = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "en-US", ["description": "Fly."])
        _ = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "fr-FR", ["description": "Voler."])
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Listing.swift", """
        import Shiplane
        struct Listing: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0")
            }
        }
        """)
        try repo.write("fastlane/metadata/default/description.txt", "Fly higher.\n")
        try repo.write("fastlane/metadata/default/release_notes.txt", "Bug fixes.\n")
        try repo.write("fastlane/metadata/en-US/release_notes.txt", "A faster engine.\n")
        try repo.write("fastlane/metadata/de-DE/.gitkeep", "")
        try repo.write("fastlane/screenshots/default/01.png", "not read")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes and listing")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)

        let refused = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(refused.status != 0, "\(refused.all)")
        #expect(refused.all.contains("screenshots/default holds images for no locale"), "\(refused.all)")
        #expect(apple.log.filter { !$0.hasPrefix("GET ") }.isEmpty, "\(apple.log)")

        try FileManager.default.removeItem(atPath: repo.path + "/fastlane/screenshots")
        let run = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        let texts = apple.localizations("appStoreVersionLocalizations")
        #expect(texts["en-US"] == ["description": "Fly higher.", "whatsNew": "A faster engine."], "\(texts)")
        #expect(texts["de-DE"] == ["description": "Fly higher.", "whatsNew": "Bug fixes."], "an empty locale folder takes every default: \(texts)")
        #expect(texts["fr-FR"] == ["description": "Voler."], "a locale without a folder is left alone: \(texts)")
    }

    /// The undo puts the old text back, but a field someone changed on App Store Connect since the
    /// run set it is left as it is and reported; a localization the run created is deleted.
    @Test func theUndoRestoresUnlessTheFieldChangedSince() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        var environment = LaneEnvironment(variables: [:])
        for (name, value) in StoreFixtures.appleEnvironment(apiURL: apple.baseURL) { environment.set(name, value) }
        let context = EffectContext(workTree: "/", environment: environment, fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                                    retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
        let id = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket 2", "subtitle": "New"])
        let effect = AppStoreLocalizationUpdated(api: apple.baseURL, resource: "appInfoLocalizations", id: id, locale: "en-US",
                                                 previous: ["name": "Rocket", "subtitle": nil], values: ["name": "Rocket 2", "subtitle": "New"])
        try await effect.undo(in: context, status: .done)
        #expect(apple.localizations("appInfoLocalizations")["en-US"] == ["name": "Rocket"])
        // Someone edits the name after the run: the undo leaves it and says so.
        let edited = AppStoreLocalizationUpdated(api: apple.baseURL, resource: "appInfoLocalizations", id: id, locale: "en-US",
                                                 previous: ["name": "Old"], values: ["name": "Mine"])
        await #expect { try await edited.undo(in: context, status: .done) } throws: { allText($0).contains("en-US's name changed on App Store Connect since") }
        #expect(apple.localizations("appInfoLocalizations")["en-US"] == ["name": "Rocket"])
        // A locale created, its answer lost: found by parent and locale, and deleted.
        _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "de-DE", ["name": "Rakete"])
        try await AppStoreListingCreated(api: apple.baseURL, resource: "appInfoLocalizations", id: nil, parentID: "info-1", label: "de-DE")
            .undo(in: context, status: .intended)
        #expect(apple.localizations("appInfoLocalizations")["de-DE"] == nil)
    }
}
