import Foundation
import Testing
@testable import Shiplane

/// Sets the build number from the stores, as a lane would before building.
struct BuildFromStores: Lane {
    @Option var appStore: String?
    @Option var googlePlay: String?

    func run(_ lane: LaneContext) async throws {
        let source: StoreBuildNumberSource = appStore == nil && googlePlay == nil ? .fromStores : .fromStores(appStore: appStore, googlePlay: googlePlay)
        let build = try await lane.incrementBuildNumber(source)
        lane.log("build \(build)")
    }
}

@Suite("incrementBuildNumber(.fromStores) through the App Store Connect and Google Play stand-ins", .serialized, .offThePool)
struct BuildNumberFromStoresTests {
    /// A Flutter app whose iOS and Android projects name the app com.acme.rocket.
    static let files = [
        "pubspec.yaml": "name: rocket\nversion: 1.4.0+40\n",
        "android/app/build.gradle": "android {\n    defaultConfig {\n        applicationId \"com.acme.rocket\"\n        versionCode flutter.versionCode\n        versionName flutter.versionName\n    }\n}\n",
        "ios/Runner.xcodeproj/project.pbxproj": """
            // !$*UTF8*$!
            {
            \tobjects = {
            \t\tA00000000000000000000001 /* Project object */ = { isa = PBXProject; buildConfigurationList = A00000000000000000000002; targets = (A00000000000000000000003); };
            \t\tA00000000000000000000002 = { isa = XCConfigurationList; buildConfigurations = (A00000000000000000000005); };
            \t\tA00000000000000000000003 /* Runner */ = { isa = PBXNativeTarget; name = Runner; productType = "com.apple.product-type.application"; buildConfigurationList = A00000000000000000000004; };
            \t\tA00000000000000000000004 = { isa = XCConfigurationList; buildConfigurations = (A00000000000000000000006); };
            \t\tA00000000000000000000005 /* Release */ = { isa = XCBuildConfiguration; buildSettings = { SDKROOT = iphoneos; }; name = Release; };
            \t\tA00000000000000000000006 /* Release */ = {
            \t\t\tisa = XCBuildConfiguration;
            \t\t\tbuildSettings = {
            \t\t\t\tCURRENT_PROJECT_VERSION = "$(FLUTTER_BUILD_NUMBER)";
            \t\t\t\tMARKETING_VERSION = "$(FLUTTER_BUILD_NAME)";
            \t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.acme.rocket;
            \t\t\t};
            \t\t\tname = Release;
            \t\t};
            \t};
            \trootObject = A00000000000000000000001 /* Project object */;
            }

            """,
    ]

    /// A React Native app whose platforms keep their own series: CFBundleVersion 1703279999, versionCode 3.
    static let reactNative = [
        "package.json": "{ \"name\": \"rocket\", \"version\": \"1.4.0\" }\n",
        "android/app/build.gradle": "android {\n    defaultConfig {\n        applicationId \"com.acme.rocket\"\n        versionCode 3\n        versionName \"1.4.0\"\n    }\n}\n",
        "ios/Runner.xcodeproj/project.pbxproj": files["ios/Runner.xcodeproj/project.pbxproj", default: ""]
            .replacingOccurrences(of: "\"$(FLUTTER_BUILD_NUMBER)\"", with: "1703279999")
            .replacingOccurrences(of: "\"$(FLUTTER_BUILD_NAME)\"", with: "1.4.0"),
    ]

    func withStandIns(files: [String: String] = files, _ body: (FakeAppStoreConnect, FakeGooglePlay, String, [String: String]) async throws -> Void) async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let play = try FakeGooglePlay()
        try await play.start()
        defer { play.stop() }
        try await withTemporaryDirectory { folder in
            for (name, text) in files { _ = try writeFile(folder, name, text) }
            let keyPath = try writeFile(folder, "secrets/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
            var environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
            environment["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON"] = keyPath
            environment["GOOGLE_PLAY_API_URL"] = play.baseURL
            try await body(apple, play, folder.path, environment)
        }
    }

    @Test func theNextBuildIsOneMoreThanTheHighestEitherStoreHas() async throws {
        try await withStandIns { apple, play, folder, environment in
            for build in ["41", "45", "9"] { _ = apple.addBuild(version: "1.4.0", build: build) }
            _ = apple.addBuild(version: "1.3.0", build: "99")          // another version's builds do not count
            play.setTrack("internal", versionCodes: [46])
            play.setTrack("production", versionCodes: [30, 44])
            let (result, messages) = await runStoreLane(try lane(BuildFromStores.self, []), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains("build 47"), "\(messages)")
            #expect(messages.contains { $0.contains("latest build of 1.4.0 is 45") })
            #expect(messages.contains { $0.contains("highest versionCode in any track is 46") })
            let pubspec = String(decoding: FileManager.default.contents(atPath: folder + "/pubspec.yaml") ?? Data(), as: UTF8.self)
            #expect(pubspec == "name: rocket\nversion: 1.4.0+47\n")
            // The edit opened to read the tracks is gone, and nothing was committed.
            #expect(play.openEdits.isEmpty)
            #expect(!play.log.contains { $0.contains(":commit") })
            #expect(apple.log.contains { $0.hasPrefix("GET /v1/builds") })
        }
    }

    @Test func separateSeriesTakeEachStoresOwnNextNumber() async throws {
        try await withStandIns(files: Self.reactNative) { apple, play, folder, environment in
            for build in ["1703279999", "1703280005"] { _ = apple.addBuild(version: "1.4.0", build: build) }
            play.setTrack("production", versionCodes: [5])
            let (result, messages) = await runStoreLane(try lane(BuildFromStores.self, []), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            #expect(messages.contains("build iOS 1703280006, Android 6"), "\(messages)")
            let gradle = String(decoding: FileManager.default.contents(atPath: folder + "/android/app/build.gradle") ?? Data(), as: UTF8.self)
            #expect(gradle.contains("versionCode 6\n"), "\(gradle)")
            let pbxproj = String(decoding: FileManager.default.contents(atPath: folder + "/ios/Runner.xcodeproj/project.pbxproj") ?? Data(), as: UTF8.self)
            #expect(pbxproj.contains("CURRENT_PROJECT_VERSION = 1703280006;"), "\(pbxproj)")
        }
    }

    @Test func withNothingUploadedYetTheBuildStillGrows() async throws {
        try await withStandIns { _, play, folder, environment in
            _ = play
            let (result, messages) = await runStoreLane(
                try lane(BuildFromStores.self, ["--google-play", "com.acme.rocket"]), folder: folder, variables: environment)
            #expect(result.succeeded, "\(allText(result.failure))")
            // No release on Play yet, but the files already say 40: the next is 41, never 1.
            #expect(messages.contains("build 41"), "\(messages)")
        }
    }

    @Test func missingCredentialsAreNamedAndNothingIsWritten() async throws {
        try await withStandIns { _, _, folder, _ in
            let (result, _) = await runStoreLane(try lane(BuildFromStores.self, ["--app-store", "com.acme.rocket"]), folder: folder, variables: [:])
            #expect(!result.succeeded)
            #expect(allText(result.failure).contains("APP_STORE_CONNECT"), "\(allText(result.failure))")
            let pubspec = String(decoding: FileManager.default.contents(atPath: folder + "/pubspec.yaml") ?? Data(), as: UTF8.self)
            #expect(pubspec.contains("+40"))
        }
    }
}
