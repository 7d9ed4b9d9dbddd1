import Foundation
import Testing

/// Placeholders and companions (issue 38, item 3): files that look like the app's version files
/// but ship in nothing are listed as ignored, with why; a watch app the app embeds moves with it.
/// Built on the fixture apps (`Fixtures/Versioning/Apps`), checked with `git diff`.
@Suite("App projects: placeholders and companions", .offThePool)
struct CompanionVersionTests {
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleShortVersionString</key>
        \t<string>1.0</string>
        \t<key>CFBundleVersion</key>
        \t<string>1</string>
        </dict>
        </plist>

        """

    /// The values of `shiplane version`'s rows named `key`.
    static func rows(_ key: String, in stdout: String) -> [String] {
        stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix(key + "  ") }
            .map { $0.dropFirst(key.count).trimmingCharacters(in: .whitespaces) }
    }

    // MARK: - Info.plist files no target uses

    @Test func anInfoPlistNoTargetUsesIsIgnoredAndNamed() throws {
        let repo = try AppVersionTests.repository("ios")
        try repo.write("Tests/Info.plist", Self.plist)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "old tests plist")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.all)")
        #expect(Self.rows("ignored", in: version.stdout) == ["Tests/Info.plist: version 1.0, an Info.plist no target of Weather.xcodeproj uses (no INFOPLIST_FILE names it)"], "\(version.stdout)")
        let json = try repo.shiplane(["version", "--json"])
        #expect(json.stdout.contains("\"ignored\" : [\n    \"Tests/Info.plist: version 1.0"), "\(json.stdout)")

        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj"])
    }

    @Test func withoutAnXcodeProjectAnInfoPlistIsStillRead() throws {
        let repo = try TemporaryRepository()
        try repo.write("Info.plist", Self.plist)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "plist")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.hasPrefix("1.0 (build 1)\n"), "\(version.all)")
        #expect(Self.rows("ignored", in: version.stdout).isEmpty, "\(version.stdout)")
    }

    // MARK: - Android companion modules

    static let wearModule = """
        plugins {
            id 'com.android.application'
        }

        android {
            namespace 'com.example.notes.wear'
            defaultConfig {
                applicationId "com.example.notes"
                minSdk 30
                versionCode 1
                versionName "1.0"
            }
        }

        """

    @Test func aWearModuleAtAPlaceholderBesideThePhoneAppIsIgnoredWithWhy() throws {
        let repo = try AppVersionTests.repository("android-groovy")
        try repo.write("app-wearos/build.gradle", Self.wearModule)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "wear")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("4.2.0 (build 1043)\n"), "\(version.all)")
        #expect(Self.rows("ignored", in: version.stdout) == ["app-wearos/build.gradle: versionName 1.0, versionCode 1, a placeholder beside app/build.gradle (the same applicationId, com.example.notes); give it the app's version to move it with the app"], "\(version.stdout)")
        #expect(!version.stdout.contains("app-wearos/build.gradle  "), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "patch", "--build"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(bump.all.contains("app-wearos/build.gradle: versionName 1.0, versionCode 1, a placeholder beside app/build.gradle"), "\(bump.all)")
        #expect(try repo.git("diff", "--name-only") == "app/build.gradle")
    }

    @Test func aPhoneModuleNamedOnlyByItsNamespaceIsTheWearModulesApp() throws {
        // AntennaPod's layout: the phone module sets `namespace` and no applicationId, which
        // Android's build then takes as the application ID.
        let repo = try AppVersionTests.repository("android-groovy")
        let app = (repo.read("app/build.gradle") ?? "").replacingOccurrences(of: "applicationId \"com.example.notes\"", with: "")
        #expect(app.contains("namespace 'com.example.notes'") && !app.contains("applicationId \"com.example.notes\""))
        try repo.write("app/build.gradle", app)
        try repo.write("app-wearos/build.gradle", Self.wearModule)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "wear")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(Self.rows("ignored", in: version.stdout).first?.hasPrefix("app-wearos/build.gradle: versionName 1.0, versionCode 1, a placeholder beside app/build.gradle") == true, "\(version.stdout)")
    }

    @Test func aWearModuleAtTheAppsVersionMovesWithIt() throws {
        let repo = try AppVersionTests.repository("android-groovy")
        try repo.write("app-wearos/build.gradle", Self.wearModule.replacingOccurrences(of: "versionCode 1\n", with: "versionCode 1043\n")
            .replacingOccurrences(of: "versionName \"1.0\"", with: "versionName \"4.2.0\""))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "wear")
        #expect(try repo.shiplane(["bump", "patch"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["app-wearos/build.gradle", "app/build.gradle"])
    }

    @Test func aPlaceholderWithADifferentApplicationIdStillDisagrees() throws {
        // Another app in the repository at 1.0: not a companion, so not silently ignored.
        let repo = try AppVersionTests.repository("android-groovy")
        try repo.write("sample/build.gradle", Self.wearModule.replacingOccurrences(of: "applicationId \"com.example.notes\"", with: "applicationId \"com.example.sample\""))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "sample")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "\(version.all)")
        #expect(version.all.contains("sample/build.gradle"), "\(version.all)")
    }

    // MARK: - A single-target watch app

    /// The fixture's watch app made a single-target one (Xcode 14's: an application the iOS app
    /// copies into its bundle with an "Embed Watch Content" phase).
    static func singleTargetWatchApp(embedded: Bool) throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios")
        var project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        project = project.replacingOccurrences(of: "productType = \"com.apple.product-type.application.watchapp2\";", with: "productType = \"com.apple.product-type.application\";")
        if embedded {
            let phases = "\t\t\tbuildPhases = (\n\t\t\t);\n\t\t\tdependencies = (\n\t\t\t);\n\t\t\tname = Weather;"
            #expect(project.contains(phases))
            project = project.replacingOccurrences(of: phases, with: "\t\t\tbuildPhases = (\n\t\t\t\tAB0000000000000000000002 /* Embed Watch Content */,\n\t\t\t);\n\t\t\tdependencies = (\n\t\t\t);\n\t\t\tname = Weather;")
            project = project.replacingOccurrences(of: "/* Begin PBXGroup section */", with: """
                /* Begin PBXBuildFile section */
                \t\tAB0000000000000000000001 /* WeatherWatch.app in Embed Watch Content */ = {isa = PBXBuildFile; fileRef = A10000000000000000000005 /* WeatherWatch.app */; settings = {ATTRIBUTES = (RemoveHeadersOnCopy, ); }; };
                /* End PBXBuildFile section */
                /* Begin PBXCopyFilesBuildPhase section */
                \t\tAB0000000000000000000002 /* Embed Watch Content */ = {
                \t\t\tisa = PBXCopyFilesBuildPhase;
                \t\t\tbuildActionMask = 2147483647;
                \t\t\tdstPath = "$(CONTENTS_FOLDER_PATH)/Watch";
                \t\t\tdstSubfolderSpec = 16;
                \t\t\tfiles = (
                \t\t\t\tAB0000000000000000000001 /* WeatherWatch.app in Embed Watch Content */,
                \t\t\t);
                \t\t\tname = "Embed Watch Content";
                \t\t\trunOnlyForDeploymentPostprocessing = 0;
                \t\t};
                /* End PBXCopyFilesBuildPhase section */
                /* Begin PBXGroup section */
                """)
        }
        try repo.write("Weather.xcodeproj/project.pbxproj", project)
        try repo.git("commit", "-qam", "single-target watch app")
        return repo
    }

    @Test func aSingleTargetWatchAppTheAppEmbedsMovesWithIt() throws {
        let repo = try Self.singleTargetWatchApp(embedded: true)
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.contains("WeatherWatch Debug MARKETING_VERSION (line 2"), "\(version.stdout)")
        #expect(!version.stdout.contains("WeatherWatch (Weather.xcodeproj/project.pbxproj)"), "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        let project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        #expect(!project.contains("MARKETING_VERSION = 2.2;"), "the watch app stayed behind")
        #expect(project.components(separatedBy: "MARKETING_VERSION = 2.4;").count == 5)
    }

    @Test func aWatchAppTheAppDoesNotEmbedIsLeftAlone() throws {
        let repo = try Self.singleTargetWatchApp(embedded: false)
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.contains("WeatherWatch (Weather.xcodeproj/project.pbxproj): MARKETING_VERSION 2.2, an app of its own; left alone"), "\(version.all)")
    }
}

/// An Info.plist an xcconfig names (`INFOPLIST_FILE` set outside the project file) is used.
@Suite("App projects: an Info.plist named in an xcconfig", .offThePool)
struct InfoPlistFromXcconfigTests {
    @Test func anInfoPlistAnXcconfigNamesIsRead() throws {
        let repo = try XcconfigChainTests.repository()
        let app = try #require(repo.read("Configs/App.xcconfig"))
        try repo.write("Configs/App.xcconfig", app + "INFOPLIST_FILE = Podcast/Info.plist\n")
        try repo.write("Podcast/Info.plist", CompanionVersionTests.plist.replacingOccurrences(of: "<string>1.0</string>", with: "<string>5.2.0</string>")
            .replacingOccurrences(of: "<string>1</string>", with: "<string>310</string>"))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "plist named in the xcconfig")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.contains("Podcast/Info.plist  "), "\(version.stdout)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout).isEmpty, "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "patch"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Deployment/Deployment.xcconfig", "Podcast/Info.plist"])
    }

    @Test func anInfoPlistNamedThroughASettingLeavesEveryPlistRead() throws {
        let repo = try XcconfigChainTests.repository()
        let app = try #require(repo.read("Configs/App.xcconfig"))
        try repo.write("Configs/App.xcconfig", app + "INFOPLIST_FILE = $(TARGET_NAME)/Info.plist\n")
        try repo.write("Podcast/Info.plist", CompanionVersionTests.plist.replacingOccurrences(of: "<string>1.0</string>", with: "<string>5.2.0</string>")
            .replacingOccurrences(of: "<string>1</string>", with: "<string>310</string>"))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "plist named through a setting")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.contains("Podcast/Info.plist  "), "\(version.all)")
    }
}

/// A companion module with a release train of its own, named in one line of `.shiplane.yml`.
@Suite("App projects: versions.independent", .offThePool)
struct IndependentModuleTests {
    static func repository() throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("android-groovy")
        try repo.write("app-wearos/build.gradle", CompanionVersionTests.wearModule.replacingOccurrences(of: "versionCode 1\n", with: "versionCode 2001\n")
            .replacingOccurrences(of: "versionName \"1.0\"", with: "versionName \"2.0.1\""))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "wear at its own version")
        return repo
    }

    @Test func withoutTheSettingTheVersionsDisagree() throws {
        let version = try Self.repository().shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains("app-wearos/build.gradle"), "\(version.all)")
    }

    @Test func aModuleNamedIndependentIsIgnoredWithWhyAndLeftAlone() throws {
        let repo = try Self.repository()
        try repo.write(".shiplane.yml", "versions:\n  independent: [app-wearos]\n")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("4.2.0 (build 1043)\n"), "\(version.all)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout) == ["app-wearos/build.gradle: a release of its own (versions.independent in .shiplane.yml)"], "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        #expect(try repo.git("diff", "--name-only") == "app/build.gradle")
    }

    @Test func aNameThatMatchesNoModuleIsAnError() throws {
        let repo = try Self.repository()
        try repo.write(".shiplane.yml", "versions:\n  independent: [wear]\n")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains("versions.independent names wear, which holds no build.gradle or build.gradle.kts"), "\(version.all)")
        #expect(version.all.contains("module: app-wearos"), "\(version.all)")
    }
}
