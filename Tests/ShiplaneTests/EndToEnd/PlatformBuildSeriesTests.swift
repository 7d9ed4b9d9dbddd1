import Foundation
import Testing

/// iOS and Android build numbers as separate series (issue 38, item 4): a React Native app at
/// `versionCode 1` beside `CFBundleVersion 1703279999`, an Expo app whose `ios.buildNumber` is
/// dotted, Expo's prebuilt project beside the Info.plist that holds the real values, an
/// iOS-only Expo app. `git diff` is the oracle.
@Suite("Build numbers: each platform's own series", .offThePool)
struct PlatformBuildSeriesTests {
    static func pbxproj(version: String, build: String) -> String {
        """
        // !$*UTF8*$!
        {
        \tobjects = {
        \t\tA00000000000000000000001 /* Project object */ = { isa = PBXProject; buildConfigurationList = A00000000000000000000002; targets = (A00000000000000000000003); };
        \t\tA00000000000000000000002 = { isa = XCConfigurationList; buildConfigurations = (A00000000000000000000005); };
        \t\tA00000000000000000000003 /* Rocket */ = { isa = PBXNativeTarget; name = Rocket; productType = "com.apple.product-type.application"; buildConfigurationList = A00000000000000000000004; };
        \t\tA00000000000000000000004 = { isa = XCConfigurationList; buildConfigurations = (A00000000000000000000006); };
        \t\tA00000000000000000000005 /* Release */ = { isa = XCBuildConfiguration; buildSettings = { SDKROOT = iphoneos; }; name = Release; };
        \t\tA00000000000000000000006 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tCURRENT_PROJECT_VERSION = \(build);
        \t\t\t\tINFOPLIST_FILE = Rocket/Info.plist;
        \t\t\t\tMARKETING_VERSION = \(version);
        \t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.example.rocket;
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        \t};
        \trootObject = A00000000000000000000001 /* Project object */;
        }

        """
    }

    static func plist(version: String, build: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleShortVersionString</key>
        \t<string>\(version)</string>
        \t<key>CFBundleVersion</key>
        \t<string>\(build)</string>
        </dict>
        </plist>

        """
    }

    static func gradle(version: String, code: Int) -> String {
        "android {\n    defaultConfig {\n        applicationId \"com.example.rocket\"\n        versionCode \(code)\n        versionName \"\(version)\"\n    }\n}\n"
    }

    /// A React Native app: package.json, its Xcode project at build 1703279999 (a timestamp
    /// series) and its Android module at versionCode 1.
    func reactNative() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("package.json", "{\n  \"name\": \"rocket\",\n  \"version\": \"1.4.2\",\n  \"private\": true\n}\n")
        try repo.write("ios/Rocket.xcodeproj/project.pbxproj", Self.pbxproj(version: "1.4.2", build: "1703279999"))
        try repo.write("ios/Rocket/Info.plist", Self.plist(version: "$(MARKETING_VERSION)", build: "$(CURRENT_PROJECT_VERSION)"))
        try repo.write("android/app/build.gradle", Self.gradle(version: "1.4.2", code: 1))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Rocket 1.4.2")
        return repo
    }

    /// An Expo app after `expo prebuild`: app.json and the Info.plist hold 1.7.0 and the dotted
    /// build 1.7.0.4, the Android module versionCode 10704, and the project its template's
    /// MARKETING_VERSION = 1.0 and CURRENT_PROJECT_VERSION = 1, which no target uses.
    func prebuiltExpo() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("app.json", """
            {
              "expo": {
                "name": "Field Notes",
                "version": "1.7.0",
                "ios": { "bundleIdentifier": "com.example.fieldnotes", "buildNumber": "1.7.0.4" },
                "android": { "package": "com.example.fieldnotes", "versionCode": 10704 }
              }
            }

            """)
        try repo.write("package.json", "{ \"name\": \"field-notes\", \"version\": \"1.7.0\" }\n")
        try repo.write("ios/Rocket.xcodeproj/project.pbxproj", Self.pbxproj(version: "1.0", build: "1"))
        try repo.write("ios/Rocket/Info.plist", Self.plist(version: "1.7.0", build: "1.7.0.4"))
        try repo.write("android/app/build.gradle", Self.gradle(version: "1.7.0", code: 10704))
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Field Notes 1.7.0")
        return repo
    }

    @Test func aReactNativeAppShowsEachPlatformsBuildNumber() throws {
        let repo = try reactNative()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("1.4.2 (build iOS 1703279999, Android 1)\n"), "\(version.stdout)")
        let json = try repo.shiplane(["version", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["builds"] as? [String: String] == ["ios": "1703279999", "android": "1"], "\(json.stdout)")
    }

    @Test func aVersionBumpNeedsNoAgreementBetweenThePlatforms() throws {
        let repo = try reactNative()
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try AppVersionTests.changedLines(repo) == [
            "-        versionName \"1.4.2\"", "+        versionName \"1.4.3\"",
            "-\t\t\t\tMARKETING_VERSION = 1.4.2;", "+\t\t\t\tMARKETING_VERSION = 1.4.3;",
            "-  \"version\": \"1.4.2\",", "+  \"version\": \"1.4.3\",",
        ])
    }

    @Test func aBuildBumpMovesEachPlatformsOwnSeries() throws {
        let repo = try reactNative()
        let bump = try repo.shiplane(["bump", "--build", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(bump.all.contains("iOS 1703279999, Android 1 → iOS 1703280000, Android 2"), "\(bump.all)")
        #expect(try repo.git("show", "-U0", "--format=", "HEAD").split(separator: "\n").filter { !$0.hasPrefix("---") && !$0.hasPrefix("+++") && ($0.hasPrefix("-") || $0.hasPrefix("+")) } == [
            "-        versionCode 1", "+        versionCode 2",
            "-\t\t\t\tCURRENT_PROJECT_VERSION = 1703279999;", "+\t\t\t\tCURRENT_PROJECT_VERSION = 1703280000;",
        ])
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.4.2 (iOS 1703280000, Android 2)")
    }

    @Test func aBuildNumberGivenIsEveryPlatforms() throws {
        let repo = try reactNative()
        let bump = try repo.shiplane(["bump", "--build", "1703290000"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("1.4.2 (build 1703290000)\n"))
    }

    @Test func filesOfOnePlatformMustStillAgree() throws {
        let repo = try reactNative()
        try repo.write("app.json", "{ \"expo\": { \"version\": \"1.4.2\", \"android\": { \"versionCode\": 2 } } }\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "two Android numbers")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "\(version.all)")
        #expect(version.all.contains("The version files disagree on the Android build number"), "\(version.all)")
        #expect(version.all.contains("iOS and Android may each keep their own"), "\(version.all)")
    }

    @Test func expoPrebuiltProjectSettingsNoTargetUsesAreIgnored() throws {
        let repo = try prebuiltExpo()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("1.7.0 (build iOS 1.7.0.4, Android 10704)\n"), "\(version.stdout)")
        #expect(version.stdout.contains("ios/Rocket.xcodeproj/project.pbxproj: MARKETING_VERSION 1.0, CURRENT_PROJECT_VERSION 1, not used: the app's Info.plist writes its version and build itself"), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor", "--build"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try AppVersionTests.changedLines(repo) == [
            "-        versionCode 10704", "-        versionName \"1.7.0\"", "+        versionCode 10705", "+        versionName \"1.8.0\"",
            "-    \"version\": \"1.7.0\",",
            "-    \"ios\": { \"bundleIdentifier\": \"com.example.fieldnotes\", \"buildNumber\": \"1.7.0.4\" },",
            "-    \"android\": { \"package\": \"com.example.fieldnotes\", \"versionCode\": 10704 }",
            "+    \"version\": \"1.8.0\",",
            "+    \"ios\": { \"bundleIdentifier\": \"com.example.fieldnotes\", \"buildNumber\": \"1.7.0.5\" },",
            "+    \"android\": { \"package\": \"com.example.fieldnotes\", \"versionCode\": 10705 }",
            "-\t<string>1.7.0</string>", "+\t<string>1.8.0</string>",
            "-\t<string>1.7.0.4</string>", "+\t<string>1.7.0.5</string>",
            "-{ \"name\": \"field-notes\", \"version\": \"1.7.0\" }", "+{ \"name\": \"field-notes\", \"version\": \"1.8.0\" }",
        ], "\(bump.all)")
    }

    @Test func anIOSOnlyExpoAppKeepsItsDottedBuildNumber() throws {
        let repo = try TemporaryRepository()
        try repo.write("app.json", """
            {
              "expo": {
                "name": "Harbor",
                "version": "3.2.0",
                "platforms": ["ios"],
                "ios": { "bundleIdentifier": "com.example.harbor", "buildNumber": "3.2.0.7" },
                "android": { "versionCode": 1 }
              }
            }

            """)
        try repo.write("package.json", "{ \"name\": \"harbor\", \"version\": \"3.2.0\" }\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Harbor")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("3.2.0 (build 3.2.0.7)\n"))
        let bump = try repo.shiplane(["bump", "--build"])
        #expect(bump.status == 0, "\(bump.all)")
        // Google Play's integer rule is not the App Store's; the versionCode of a platform the app does not build stays.
        #expect(try AppVersionTests.changedLines(repo) == [
            "-    \"ios\": { \"bundleIdentifier\": \"com.example.harbor\", \"buildNumber\": \"3.2.0.7\" },",
            "+    \"ios\": { \"bundleIdentifier\": \"com.example.harbor\", \"buildNumber\": \"3.2.0.8\" },",
        ], "\(bump.all)")
    }
}
