import Crypto
import Foundation
import Testing
@testable import Shiplane

/// Screenshots and app previews of `lane.updateAppStoreMetadata`, from deliver's folders, run by
/// the built `shiplane` against the App Store Connect stand-in held to Apple's published description.
@Suite("App Store screenshots and app previews through the CLI", .serialized, .offThePool)
struct AppStoreScreenshotsTests {
    /// A PNG header of `width`×`height` followed by `seed`'s bytes (the stand-in and Shiplane read only the header).
    static func png(_ width: Int, _ height: Int, seed: String, padding: Int = 0) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        bytes += [8, 2, 0, 0, 0, 0, 0, 0, 0] + Array(seed.utf8) + [UInt8](repeating: 0x2A, count: padding)
        return Data(bytes)
    }

    /// A JPEG with an SOF0 frame of `width`×`height` after an APP0 segment.
    static func jpeg(_ width: Int, _ height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08,
         UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03]
    }

    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    private func repository(extraLane: String = "") throws -> TemporaryRepository {
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
        \(extraLane)
        """)
        try repo.write("fastlane/metadata/en-US/description.txt", "Fly higher.\n")
        try writeImages(repo)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes, listing and screenshots")
        return repo
    }

    private func writeImages(_ repo: TemporaryRepository) throws {
        func put(_ relative: String, _ data: Data) throws {
            let url = URL(fileURLWithPath: repo.path + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try put("fastlane/screenshots/en-US/01.png", Self.png(1290, 2796, seed: "one"))
        try put("fastlane/screenshots/en-US/02.png", Self.png(1290, 2796, seed: "two, new"))
        try put("fastlane/screenshots/en-US/10.png", Self.png(2796, 1290, seed: "ten"))
        try put("fastlane/screenshots/de-DE/01.png", Self.png(2048, 2732, seed: "ipad"))
        try put("fastlane/screenshots/iMessage/en-US/01.png", Self.png(1242, 2208, seed: "imessage"))
        try put("fastlane/app_previews/en-US/01_IPHONE_67.mp4", Data("a preview video".utf8))
    }

    /// The version with an en-US localization whose iPhone 6.7" set has old.png (which the folder no
    /// longer has), 10.png and 01.png (unchanged, out of order) and an older 02.png.
    private func standIn() async throws -> (FakeAppStoreConnect, String) {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        let version = apple.addStoreVersion("1.4.0")
        let english = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "en-US", ["description": "Fly higher."])
        _ = apple.addMediaSet(localizationID: english, type: "APP_IPHONE_67", items: [
            ("old.png", "0123456789abcdef0123456789abcdef"), ("10.png", Self.md5(Self.png(2796, 1290, seed: "ten"))),
            ("01.png", Self.md5(Self.png(1290, 2796, seed: "one"))), ("02.png", Self.md5(Self.png(1290, 2796, seed: "two, old"))),
        ])
        return (apple, english)
    }

    private static let wanted: [String: [String]] = [
        "en-US APP_IPHONE_67": ["01.png", "02.png", "10.png"], "de-DE APP_IPAD_PRO_3GEN_129": ["01.png"], "en-US IMESSAGE_APP_IPHONE_55": ["01.png"],
    ]

    @Test func dryRunPrintsThePlanThenARunUploadsOnlyWhatDiffersAndARerunSendsNothing() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        func writes() -> [String] { apple.log.filter { !$0.hasPrefix("GET ") } }

        let dry = try await repo.shiplaneAsync(["listing", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(writes().isEmpty && apple.parts.isEmpty, "\(apple.log)")
        let plan = dry.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("· screenshots ") || $0.hasPrefix("· app previews ") }
        try expectGolden(plan.joined(separator: "\n") + "\n", "appstore-screenshots-dry-run.txt")

        let run = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(apple.mediaSetContents() == Self.wanted, "\(run.all)")
        #expect(apple.mediaSetContents("appPreviewSets") == ["en-US IPHONE_67": ["01_IPHONE_67.mp4"]], "\(run.all)")
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"].map { "\($0.mimeType ?? "-") \($0.timeCode ?? "-")" } == "video/mp4 00:00:05:00",
                "deliver's default still frame: \(apple.previewDetails())")
        let english = apple.mediaChecksums()["en-US APP_IPHONE_67"] ?? []
        #expect(english == [Self.md5(Self.png(1290, 2796, seed: "one")), Self.md5(Self.png(1290, 2796, seed: "two, new")),
                            Self.md5(Self.png(2796, 1290, seed: "ten"))], "the old 02.png is replaced, old.png deleted")
        #expect(writes().filter { $0 == "POST /v1/appScreenshots" }.count == 3, "01.png and 10.png are on App Store Connect already: \(writes())")
        #expect(writes().filter { $0.hasPrefix("DELETE /v1/appScreenshots/") }.count == 2, "\(writes())")
        #expect(writes().contains { $0.hasSuffix("/relationships/appScreenshots") }, "the set is put in file order: \(writes())")
        #expect(run.all.contains("deleted old.png"), "\(run.all)")

        let before = (writes().count, apple.parts.count)
        let again = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(writes().count == before.0 && apple.parts.count == before.1, "nothing differs, nothing is sent or uploaded: \(writes())")
        #expect(again.all.contains("up to date"), "\(again.all)")
    }

    /// Each app preview is reserved with the MIME type of its extension and the still frame asked
    /// for (deliver's default, 00:00:05:00, unless the lane says otherwise); a time code that is not
    /// `hh:mm:ss:ff` stops the run before anything is sent.
    @Test func previewsSayTheirMimeTypeAndStillFrameAndABadTimeCodeIsRefused() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository(extraLane: """
        struct Still: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0", screenshotsPath: nil, previewFrameTimeCode: "00:00:02:15")
            }
        }
        struct BadStill: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0", previewFrameTimeCode: "2.5s")
            }
        }
        """)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let bad = try await repo.shiplaneAsync(["bad-still"], environment: environment)
        #expect(bad.status != 0, "\(bad.all)")
        #expect(bad.all.contains("previewFrameTimeCode \"2.5s\" is not a time code hh:mm:ss:ff"), "\(bad.all)")
        #expect(apple.log.filter { !$0.hasPrefix("GET ") }.isEmpty, "\(apple.log)")

        for (name, bytes) in [("02_IPHONE_67.mov", "a quicktime video"), ("03_IPHONE_67.m4v", "an m4v video")] {
            try Data(bytes.utf8).write(to: URL(fileURLWithPath: repo.path + "/fastlane/app_previews/en-US/" + name))
        }
        let run = try await repo.shiplaneAsync(["still"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(apple.mediaSetContents("appPreviewSets") == ["en-US IPHONE_67": ["01_IPHONE_67.mp4", "02_IPHONE_67.mov", "03_IPHONE_67.m4v"]], "\(run.all)")
        let details = apple.previewDetails()
        #expect(details["01_IPHONE_67.mp4"]?.mimeType == "video/mp4", "\(details)")
        #expect(details["02_IPHONE_67.mov"]?.mimeType == "video/quicktime", "\(details)")
        #expect(details["03_IPHONE_67.m4v"]?.mimeType == "video/x-m4v", "\(details)")
        #expect(details.values.allSatisfy { $0.timeCode == "00:00:02:15" }, "\(details)")
        #expect(AppStoreListingUpdate.isTimeCode("00:00:05:00") && AppStoreListingUpdate.isTimeCode("01:59:59:29"))
        #expect(!AppStoreListingUpdate.isTimeCode("00:60:00:00") && !AppStoreListingUpdate.isTimeCode("0:00:05:00") && !AppStoreListingUpdate.isTimeCode("00:00:05"))
    }

    /// An app preview already uploaded whose still frame alone changes in the lane: the dry run
    /// shows the old and new time code, a run sends one PATCH of `previewFrameTimeCode` (no
    /// reservation, no bytes), a failed run puts the old time code back, and a re-run sends nothing.
    @Test func aNewStillFrameForAnUploadedPreviewIsOnlyPatchedAndRollbackPutsTheOldOneBack() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository(extraLane: """
        struct Still: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0", previewFrameTimeCode: "00:00:02:15")
            }
        }
        struct StillBotched: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0", previewFrameTimeCode: "00:00:02:15")
                try await lane.sh("false")
            }
        }
        """)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        func writes() -> [String] { apple.log.filter { !$0.hasPrefix("GET ") } }
        let first = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(first.status == 0, "\(first.all)")
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"]?.timeCode == "00:00:05:00", "\(apple.previewDetails())")
        let uploaded = (writes().count, apple.parts.count)

        let dry = try await repo.shiplaneAsync(["still", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("app previews en-US IPHONE_67: keep 01_IPHONE_67.mp4, still frame 00:00:05:00 → 00:00:02:15"), "\(dry.all)")
        #expect(writes().count == uploaded.0, "a dry run sends nothing: \(writes())")

        let failed = try await repo.shiplaneAsync(["still-botched"], environment: environment)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"]?.timeCode == "00:00:05:00", "the old still frame is back: \(failed.all)")
        #expect(apple.timeCodeChanges == 2, "set, then put back: \(writes())")

        let run = try await repo.shiplaneAsync(["still"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"]?.timeCode == "00:00:02:15", "\(run.all)")
        let sent = Array(writes().dropFirst(uploaded.0))
        #expect(sent.count == 3 && sent.allSatisfy { $0.hasPrefix("PATCH /v1/appPreviews/preview-") }, "only the still frame, three times: \(sent)")
        #expect(apple.parts.count == uploaded.1, "no bytes uploaded again")
        #expect(apple.mediaSetContents("appPreviewSets") == ["en-US IPHONE_67": ["01_IPHONE_67.mp4"]], "\(run.all)")

        let again = try await repo.shiplaneAsync(["still"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(writes().count == uploaded.0 + 3, "nothing differs, nothing is sent: \(writes())")
        #expect(again.all.contains("up to date"), "\(again.all)")
    }

    /// A preview App Store Connect holds with no still frame (uploaded elsewhere without one): a
    /// run that sets one and then fails puts "none" back — `previewFrameTimeCode: null`, which
    /// `AppPreviewUpdateRequest` declares nullable.
    @Test func aStillFrameSetWhereThereWasNoneIsClearedAgainOnRollback() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository(extraLane: """
        struct StillBotched: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0", previewFrameTimeCode: "00:00:02:15")
                try await lane.sh("false")
            }
        }
        """)
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let first = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(first.status == 0, "\(first.all)")
        apple.lock.withLock {
            for (id, item) in apple.mediaItems where item.resource == "appPreviews" { apple.mediaItems[id]?.previewFrameTimeCode = nil }
        }
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"].map { $0.timeCode == nil } == true, "\(apple.previewDetails())")

        let failed = try await repo.shiplaneAsync(["still-botched"], environment: environment)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.timeCodeChanges == 2, "set, then cleared: \(apple.log.filter { !$0.hasPrefix("GET ") })")
        #expect(apple.previewDetails()["01_IPHONE_67.mp4"].map { $0.timeCode == nil } == true, "no still frame again: \(apple.previewDetails()) \(failed.all)")
    }

    /// A later step fails: uploads into sets that lost nothing are deleted, and so are the sets
    /// the run made; the set whose replaced screenshots were deleted keeps its new ones, as said.
    @Test func aFailedRunDeletesWhatItUploadedExceptWhereItAlreadyDeletedTheReplacedOnes() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository()
        let failed = try await repo.shiplaneAsync(["botched"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.mediaSetContents() == ["en-US APP_IPHONE_67": ["10.png", "01.png", "02.png"]], "the earlier order is back, with the new 02.png: \(failed.all)")
        #expect(apple.mediaChecksums()["en-US APP_IPHONE_67"]?.last == Self.md5(Self.png(1290, 2796, seed: "two, new")), "\(failed.all)")
        #expect(apple.mediaSetContents("appPreviewSets").isEmpty, "\(failed.all)")
        #expect(failed.all.contains("cannot bring it back"), "\(failed.all)")
        #expect(apple.lock.withLock { apple.mediaItems.count } == 3, "nothing left over: \(apple.lock.withLock { apple.mediaItems })")
    }

    /// Killed while an image was being reserved (App Store Connect made it, the answer never came):
    /// the supervisor finds it by set, file name and checksum and deletes it with the rest; a
    /// second run then leaves the sets exactly as one run would.
    @Test func killedMidUploadTheSupervisorUndoesAndARerunLeavesNoDuplicates() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository()
        let environment = repo.environment.merging(StoreFixtures.appleEnvironment(apiURL: apple.baseURL)) { $1 }
        apple.answerLate(2, method: "POST", path: "/v1/appScreenshots$", seconds: 60)
        let run = try SupervisedRun(["listing"], in: repo.path, environment: environment)
        run.wait { apple.lock.withLock { apple.mediaItems.values.filter { $0.state == "AWAITING_UPLOAD" }.count } >= 2 }
        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        let left = apple.mediaSetContents()
        #expect(left["en-US APP_IPHONE_67"] == ["old.png", "10.png", "01.png", "02.png"], "the reserved ones are found and deleted: \(left) \(all)")
        #expect(apple.lock.withLock { apple.mediaItems.values.allSatisfy { $0.state == "COMPLETE" } }, "\(apple.log)")

        let again = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(apple.mediaSetContents() == Self.wanted, "\(again.all)")
        #expect(apple.lock.withLock { apple.mediaItems.count } == 6, "no duplicates: \(apple.lock.withLock { apple.mediaItems })")
    }

    /// The listing lane run with no supervisor and stopped by `fault` (the record stays, nothing
    /// settles it): the stand-in, the checkout, the sets before the run and the environment.
    private func killedWithoutASupervisor(fault: String) async throws
        -> (apple: FakeAppStoreConnect, repo: TemporaryRepository, before: [String: [String]], environment: [String: String]) {
        let (apple, _) = try await standIn()
        let repo = try repository()
        let before = apple.mediaSetContents()
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let killed = try await repo.shiplaneAsync(["listing"], environment: environment.merging([
            "SHIPLANE_FAULT": fault, "SHIPLANE_NO_SUPERVISOR": "1"]) { $1 })
        #expect(killed.status != 0, "\(killed.all)")
        return (apple, repo, before, environment)
    }

    /// The lane program killed with no supervisor after a few effects (sets made, images going up):
    /// the record stays, `shiplane rollback` undoes it from the record in another process, and the
    /// sets are exactly as before; a run then leaves them exactly as one run would.
    @Test(arguments: [2, 4, 6])
    func killedWithoutASupervisorShiplaneRollbackPutsTheSetsBack(afterEffects: Int) async throws {
        let (apple, repo, before, environment) = try await killedWithoutASupervisor(fault: "after-effect:\(afterEffects)")
        defer { apple.stop() }
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "killed with no supervisor: the record stays")
        #expect(apple.log.contains { $0.hasPrefix("POST /v1/app") }, "something was made before the kill: \(apple.log)")
        let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment)
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(apple.mediaSetContents() == before, "\(rollback.all)")
        #expect(apple.mediaSetContents("appPreviewSets").isEmpty, "\(rollback.all)")
        #expect(apple.lock.withLock { apple.mediaItems.count } == 4, "\(apple.lock.withLock { apple.mediaItems })")
        let run = try await repo.shiplaneAsync(["listing"], environment: environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(apple.mediaSetContents() == Self.wanted, "\(run.all)")
    }

    /// Every reservation of a run is in its record, in one write, before the first is sent: killed
    /// the moment the first upload is written down (the de-DE localization and three sets come
    /// first), the record holds all four uploads and App Store Connect has received none; rollback
    /// then finds nothing to delete and the sets are as before.
    @Test func everyReservationIsWrittenDownBeforeTheFirstIsSent() async throws {
        let (apple, repo, before, environment) = try await killedWithoutASupervisor(fault: "before-effect:5")
        defer { apple.stop() }
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "killed with no supervisor: the record stays")
        let text = try #require(runRecordText(repo.path))
        #expect(text.components(separatedBy: "appstoreconnect.mediaUploaded").count - 1 == 4, "02.png, de-DE 01.png, iMessage 01.png, the preview: \(text)")
        #expect(text.components(separatedBy: "appstoreconnect.mediaSetCreated").count - 1 == 3, "\(text)")
        // 02.png goes into a set with images to compare with: hashed before planning. The new sets'
        // files are hashed while they upload, so their reservations are written down without one.
        #expect(text.contains(Self.md5(Self.png(1290, 2796, seed: "two, new"))), "\(text)")
        #expect(!text.contains(Self.md5(Self.png(2048, 2732, seed: "ipad"))) && !text.contains(Self.md5(Data("a preview video".utf8))), "\(text)")
        #expect(!apple.log.contains { $0 == "POST /v1/appScreenshots" || $0 == "POST /v1/appPreviews" }, "nothing reserved yet: \(apple.log)")
        let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment)
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(apple.mediaSetContents() == before && apple.mediaSetContents("appPreviewSets").isEmpty, "\(rollback.all)")
        #expect(!apple.log.contains { $0.hasPrefix("DELETE /v1/appScreenshots/") || $0.hasPrefix("DELETE /v1/appPreviews/") }, "\(apple.log)")
    }

    /// The MD5s computed for planning (sets with images to compare with), on every core at once:
    /// the files' MD5s and sizes, in the order given.
    @Test func checksumsForPlanningAreTheFilesMD5s() async throws {
        try await withTemporaryDirectory { folder in
            var files: [AppStoreMediaFile] = []
            for n in 1...5 {
                let path = folder.path + "/\(n).png"
                let data = Self.png(1290, 2796, seed: "digest \(n)", padding: n * 300_000)
                try data.write(to: URL(fileURLWithPath: path))
                files.append(try AppStoreMediaFolder.mediaFileSize(path))
                #expect(try AppStoreMediaFolder.mediaFile(path).checksum == Self.md5(data))
            }
            #expect(files.allSatisfy { $0.checksum == nil }, "the folder read leaves the MD5 for later")
            let hashed = try AppStoreMediaFolder.withChecksums(files)
            #expect(try hashed.map(\.checksum) == files.map { try AppStoreMediaFolder.mediaFile($0.path).checksum }, "computed for planning, the same")
            #expect(hashed.map(\.size) == files.map(\.size))
        }
    }

    @Test func anImageOfNoDisplayTypeIsReportedWithItsSizeBeforeAnythingIsSent() async throws {
        let (apple, _) = try await standIn()
        defer { apple.stop() }
        let repo = try repository()
        try Self.png(1000, 1000, seed: "square").write(to: URL(fileURLWithPath: repo.path + "/fastlane/screenshots/en-US/03.png"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: repo.path + "/fastlane/screenshots/en-US/04.jpg"))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "odd images")
        let run = try await repo.shiplaneAsync(["listing"], environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
        #expect(run.status != 0, "\(run.all)")
        #expect(run.all.contains("fastlane/screenshots/en-US/03.png is 1000×1000 pixels, a size no App Store display type takes"), "\(run.all)")
        #expect(run.all.contains("04.jpg is not a PNG or JPEG image"), "every problem at once: \(run.all)")
        #expect(apple.log.isEmpty, "preflight reads the folder before asking App Store Connect: \(apple.log)")
    }

    /// The stand-in checks the committed MD5 against the bytes it got, as Apple does: a wrong
    /// checksum is refused; the effect's undo finds an image whose answer never came by name.
    @Test func theCommitIsCheckedAgainstTheBytesAndALostImageIsFoundByName() async throws {
        let (apple, english) = try await standIn()
        defer { apple.stop() }
        var environment = LaneEnvironment(variables: [:])
        for (name, value) in StoreFixtures.appleEnvironment(apiURL: apple.baseURL) { environment.set(name, value) }
        let context = EffectContext(workTree: "/", environment: environment, fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                                    retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
        let media = try AppStoreMediaClient.client(context: context, api: apple.baseURL, what: "test")
        try await withTemporaryDirectory { folder in
            let path = folder.path + "/03.png"
            try Self.png(1290, 2796, seed: "three", padding: 3000).write(to: URL(fileURLWithPath: path))
            let file = try AppStoreMediaFolder.mediaFile(path)
            let setID = try await media.createSet(.screenshots, localizationID: english, type: "APP_IPHONE_61")
            let item = try await media.reserve(.screenshots, setID: setID, fileName: file.fileName, fileSize: file.size)
            let operations = try UploadOperations(item.attributes?.uploadOperations ?? [], file: path, fileSize: file.size, now: Date())
            #expect(operations.operations.count == 3, "the stand-in hands out several parts")
            try await operations.perform(with: context.transport(), concurrency: 2, timeout: 60) { _ in }
            await #expect { _ = try await media.commit(.screenshots, id: item.id, checksum: String(repeating: "0", count: 32), fileName: file.fileName) }
                throws: { allText($0).contains("CHECKSUM_MISMATCH") }
            let committed = try await media.commit(.screenshots, id: item.id, checksum: try #require(file.checksum), fileName: file.fileName)
            #expect(committed.attributes?.sourceFileChecksum == file.checksum)
            // An upload whose id never came back: found in its set by name and checksum, not among the earlier items.
            try await AppStoreMediaUploaded(api: apple.baseURL, resource: "appScreenshots", setID: setID, id: nil, fileName: "03.png",
                                            checksum: file.checksum, existingIDs: [], label: "en-US APP_IPHONE_61").undo(in: context, status: .intended)
            #expect(apple.mediaSetContents()["en-US APP_IPHONE_61"] == [])
            try await AppStoreMediaSetCreated(api: apple.baseURL, resource: "appScreenshotSets", id: nil, localizationID: english,
                                              type: "APP_IPHONE_61", label: "en-US APP_IPHONE_61").undo(in: context, status: .intended)
            #expect(apple.mediaSetContents()["en-US APP_IPHONE_61"] == nil)
            await #expect { try await AppStoreMediaDeleted(api: apple.baseURL, resource: "appScreenshots", id: "x", fileName: "old.png", label: "en-US")
                .undo(in: context, status: .done) } throws: { $0 is EffectStays }
        }
    }

    // MARK: - Units

    @Test(arguments: [
        (1290, 2796, "en-US/1.png", false, "APP_IPHONE_67"), (2796, 1290, "en-US/1.png", false, "APP_IPHONE_67"),
        (1242, 2688, "x.png", false, "APP_IPHONE_65"), (1242, 2208, "x.png", false, "APP_IPHONE_55"), (1242, 2208, "x.png", true, "IMESSAGE_APP_IPHONE_55"),
        (2048, 2732, "x.png", false, "APP_IPAD_PRO_3GEN_129"), (2048, 2732, "APP_IPAD_PRO_129_1.png", false, "APP_IPAD_PRO_129"),
        (2048, 2732, "iPad Pro (12.9-inch) (2nd generation)-1.png", false, "APP_IPAD_PRO_129"),
        (3840, 2160, "x.png", false, "APP_APPLE_TV"), (3840, 2160, "vision-1.png", false, "APP_APPLE_VISION_PRO"),
        (2880, 1800, "x.png", false, "APP_DESKTOP"), (410, 502, "x.png", false, "APP_WATCH_ULTRA"), (1024, 768, "x.png", false, "APP_IPAD_97"),
    ])
    func displayTypesAreTakenFromThePixelSizeAsDeliverDoes(width: Int, height: Int, path: String, iMessage: Bool, type: String) {
        #expect(ScreenshotDisplayType.forImage(width: width, height: height, path: path, iMessage: iMessage) == type)
    }

    @Test func unknownSizesAndWatchImagesInIMessageHaveNoType() {
        #expect(ScreenshotDisplayType.forImage(width: 1000, height: 1000, path: "x.png", iMessage: false) == nil)
        #expect(ScreenshotDisplayType.forImage(width: 410, height: 502, path: "x.png", iMessage: true) == nil)
        #expect(ScreenshotDisplayType.forImage(width: 2880, height: 1800, path: "x.png", iMessage: false) == "APP_DESKTOP")
        #expect(ScreenshotDisplayType.forImage(width: 1800, height: 2880, path: "x.png", iMessage: false) == nil, "Mac screenshots are landscape only")
    }

    @Test func imageSizesAreReadFromPNGAndJPEGHeaders() {
        #expect(ImageSize.parse([UInt8](Self.png(1290, 2796, seed: ""))).map { [$0.width, $0.height] } == [1290, 2796])
        #expect(ImageSize.parse(Self.jpeg(2048, 2732)).map { [$0.width, $0.height] } == [2048, 2732])
        #expect(ImageSize.parse(Array("GIF89a".utf8)) == nil)
        #expect(ImageSize.parse([0xFF, 0xD8, 0xFF]) == nil)
    }

    @Test func previewTypesComeFromTheFileNameAndFoldersAreCheckedAsAWhole() async throws {
        #expect(AppStoreMediaFolder.previewType(fileName: "01_ipad_pro_3gen_129.mov") == "IPAD_PRO_3GEN_129")
        #expect(AppStoreMediaFolder.previewType(fileName: "IPAD_PRO_129-demo.mp4") == "IPAD_PRO_129")
        #expect(AppStoreMediaFolder.previewType(fileName: "demo.mp4") == nil)
        try await withTemporaryDirectory { folder in
            let root = folder.path
            try FileManager.default.createDirectory(atPath: root + "/en-US", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/Not a locale", withIntermediateDirectories: true)
            for index in 1...11 { try Self.png(1290, 2796, seed: "\(index)").write(to: URL(fileURLWithPath: root + "/en-US/\(index).png")) }
            try Self.png(1290, 2796, seed: "framed").write(to: URL(fileURLWithPath: root + "/en-US/1_framed.png"))
            var problems: [any Error] = []
            let read = AppStoreMediaFolder.screenshots(folder: root, problems: &problems)
            #expect(read.sets["en-US"]?["APP_IPHONE_67"]?.map(\.fileName) == ["1_framed.png"], "framed images only, as deliver takes them")
            #expect(problems.map { allText($0) }.contains { $0.contains("Not a locale is not a locale folder") }, "\(problems)")
            try FileManager.default.removeItem(atPath: root + "/en-US/1_framed.png")
            problems = []
            let all = AppStoreMediaFolder.screenshots(folder: root, problems: &problems)
            #expect(all.sets["en-US"]?["APP_IPHONE_67"]?.map(\.fileName).prefix(3) == ["1.png", "2.png", "3.png"], "numbers in file-name order")
            #expect(problems.map { allText($0) }.contains { $0.contains("en-US has 11 screenshots for APP_IPHONE_67") }, "\(problems)")
        }
    }
}
