import Foundation
import Testing

/// `shiplane version` and `bump` on app layouts like real ones (`Fixtures/Versioning/Apps`),
/// checked with `git diff`: only the version values change, in every file that holds them.
@Suite("App projects: Xcode, Gradle, Flutter, Expo", .offThePool)
struct AppVersionTests {
    static let apps = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Versioning/Apps")

    /// A repository holding a copy of the fixture app `name`, committed.
    static func repository(_ name: String) throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        let source = apps.appendingPathComponent(name)
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(atPath: source.appendingPathComponent(item).path, toPath: repo.path + "/" + item)
        }
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        return repo
    }

    /// The lines `git diff` shows removed and added, without headers.
    static func changedLines(_ repo: TemporaryRepository) throws -> [String] {
        // Split on "\n" alone (a Swift `Character` holds "\r\n" whole), so a kept "\r" shows.
        Array(try repo.git("diff", "-U0", "--no-color").utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
            .filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
    }

    // MARK: - Xcode

    @Test func anXcodeAppWithExtensionsAHelperAndTestsIsReadAsTheStoresSeeIt() throws {
        let repo = try Self.repository("ios")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.stdout)")
        #expect(version.stdout.contains("Config/Version.xcconfig"))
        #expect(version.stdout.contains("Weather/Info.plist"))
        #expect(version.stdout.contains("WeatherWidget/Info.plist"))
        // The helper app and the tests have versions of their own: named, never read as the app's.
        #expect(!version.stdout.contains("LaunchHelper/Info.plist "), "\(version.stdout)")
        #expect(version.stdout.contains("LaunchHelper (Weather.xcodeproj/project.pbxproj): CFBundleShortVersionString 1.0 in LaunchHelper/Info.plist, an app of its own"), "\(version.stdout)")
        #expect(version.stdout.contains("WeatherTests (Weather.xcodeproj/project.pbxproj): MARKETING_VERSION 1.0, a test target"))
        // The watch app disagrees with the app: each configuration is named.
        #expect(version.stdout.contains("WeatherWatch Debug MARKETING_VERSION (line 206): 2.2"), "\(version.stdout)")
        #expect(version.stdout.contains("WeatherWatch Release MARKETING_VERSION (line 216): 2.2"))
    }

    @Test func aMinorBumpMovesTheAppItsExtensionsAndWatchAppAndNothingElse() throws {
        let repo = try Self.repository("ios")
        let bump = try repo.shiplane(["bump", "minor"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(bump.all.contains("2.3 → 2.4"), "\(bump.all)")
        #expect(try repo.git("diff", "--stat").contains("2 files changed, 5 insertions(+), 5 deletions(-)"))
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj"])
        let lines = try Self.changedLines(repo)
        #expect(lines == [
            "-APP_VERSION = 2.3 // bumped by the release lane\r",
            "+APP_VERSION = 2.4 // bumped by the release lane\r",
            "-\t\t\t\tMARKETING_VERSION = 2.3;", "+\t\t\t\tMARKETING_VERSION = 2.4;",
            "-\t\t\t\tMARKETING_VERSION = 2.3;", "+\t\t\t\tMARKETING_VERSION = 2.4;",
            "-\t\t\t\tMARKETING_VERSION = 2.2;", "+\t\t\t\tMARKETING_VERSION = 2.4;",
            "-\t\t\t\tMARKETING_VERSION = 2.2;", "+\t\t\t\tMARKETING_VERSION = 2.4;",
        ], "\(lines)")
        // Line endings and the reference stay as they were.
        #expect(repo.read("Config/Version.xcconfig")?.contains("MARKETING_VERSION = $(APP_VERSION)\r\nCURRENT_PROJECT_VERSION = 41\r\n") == true)

        #expect(try repo.shiplane(["bump", "patch", "--build"]).status == 0)
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("2.4.1 (build 42)\n"))
        #expect(repo.read("LaunchHelper/Info.plist")?.contains("<string>1.0</string>") == true)
        #expect(repo.read("Weather.xcodeproj/project.pbxproj")?.components(separatedBy: "MARKETING_VERSION = 1.0;").count == 3)
        #expect(repo.read("Weather.xcodeproj/project.pbxproj")?.components(separatedBy: "CURRENT_PROJECT_VERSION = 42;").count == 5)
    }

    @Test func aTargetListedInTheSettingsMovesWithTheApp() throws {
        let repo = try Self.repository("ios")
        try repo.write(".shiplane.yml", "versions:\n  targets: [LaunchHelper]\n")
        let version = try repo.shiplane(["version"])
        // Listed, its 1.0 is now one of the app's versions, and they disagree.
        #expect(version.status != 0)
        #expect(version.all.contains("LaunchHelper/Info.plist: version 1.0"), "\(version.all)")
    }

    // MARK: - Gradle

    @Test func aGroovyBuildWithFlavoursMovesEveryVersionNameAndCode() throws {
        let repo = try Self.repository("android-groovy")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.hasPrefix("4.2.0 (build 1043)\n"), "\(version.all)")
        #expect(try repo.shiplane(["bump", "minor", "--build"]).status == 0)
        #expect(try repo.git("diff", "--name-only") == "app/build.gradle")
        #expect(try Self.changedLines(repo) == [
            "-        versionCode 1043 // Play needs it to grow", "-        versionName \"4.2.0\"",
            "+        versionCode 1044 // Play needs it to grow", "+        versionName \"4.3.0\"",
            "-            versionName '4.2.0'", "+            versionName '4.3.0'",
            "-            versionCode 1043", "+            versionCode 1044",
        ])
    }

    @Test func aKotlinBuildFollowsTheCatalogAndGradleProperties() throws {
        let repo = try Self.repository("android-kotlin")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.hasPrefix("3.1 (build 310)\n"), "\(version.all)")
        #expect(version.stdout.contains("gradle/libs.versions.toml"))
        #expect(version.stdout.contains("gradle.properties"))
        #expect(try repo.shiplane(["bump", "patch", "--build"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["app/build.gradle.kts", "gradle.properties", "gradle/libs.versions.toml"])
        #expect(try Self.changedLines(repo) == [
            "-            versionName = \"3.1\"", "+            versionName = \"3.1.1\"",
            "-VERSION_CODE=310", "+VERSION_CODE=311",
            "-app-version = \"3.1\"   # the versionName users see", "+app-version = \"3.1.1\"   # the versionName users see",
        ])
        // Now three numbers, a minor bump keeps three.
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        #expect(repo.read("gradle/libs.versions.toml")?.contains("app-version = \"3.2.0\"") == true)
    }

    // MARK: - Flutter and Expo

    @Test func aTwoNumberVersionNameKeepsItsShape() throws {
        let repo = try Self.repository("android-kotlin")
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        #expect(try Self.changedLines(repo) == [
            "-            versionName = \"3.1\"", "+            versionName = \"3.2\"",
            "-app-version = \"3.1\"   # the versionName users see", "+app-version = \"3.2\"   # the versionName users see",
        ])
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("3.2 (build 310)\n"))
    }

    @Test func aFlutterAppIsBumpedInPubspecWhichItsNativeProjectsRead() throws {
        let repo = try Self.repository("flutter")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.hasPrefix("1.7.2 (build 58)\n"), "\(version.all)")
        #expect(version.stdout.contains("ios/Runner/Info.plist"))
        #expect(version.stdout.contains("android/app/build.gradle"))
        #expect(try repo.shiplane(["bump", "minor", "--build"]).status == 0)
        #expect(try Self.changedLines(repo) == ["-version: 1.7.2+58", "+version: 1.8.0+59"])
    }

    @Test func anExpoAppMovesAppJSONAndPackageJSONTogether() throws {
        let repo = try Self.repository("expo")
        let version = try repo.shiplane(["version"])
        #expect(version.stdout.hasPrefix("2.0.1 (build 17)\n"), "\(version.all)")
        #expect(try repo.shiplane(["bump", "patch", "--build"]).status == 0)
        #expect(try repo.git("diff", "--stat").contains("2 files changed, 4 insertions(+), 4 deletions(-)"))
        #expect(try Self.changedLines(repo) == [
            "-    \"version\": \"2.0.1\",", "+    \"version\": \"2.0.2\",",
            "-      \"buildNumber\": \"17\"", "+      \"buildNumber\": \"18\"",
            "-      \"versionCode\": 17", "+      \"versionCode\": 18",
            "-  \"version\": \"2.0.1\",", "+  \"version\": \"2.0.2\",",
        ])
    }

    // MARK: - Misses are errors

    struct Miss: Sendable, CustomTestStringConvertible {
        let name: String
        let files: [String: String]
        let expected: String
        var testDescription: String { name }
    }

    static let misses: [Miss] = [
        Miss(name: "an empty VERSION", files: ["VERSION": "\n"], expected: "The VERSION file is empty"),
        Miss(name: "an unquoted Cargo version", files: ["Cargo.toml": "[package]\nname = \"a\"\nversion = 1.4.0\n"],
             expected: "[package] version is `1.4.0`, which is not a TOML string"),
        Miss(name: "an Xcode app without a version", files: [
            "App/App.xcodeproj/project.pbxproj": """
                // !$*UTF8*$!
                { objects = {
                  A00000000000000000000001 = { isa = PBXProject; buildConfigurationList = A00000000000000000000002; targets = (A00000000000000000000003); };
                  A00000000000000000000002 = { isa = XCConfigurationList; buildConfigurations = (); };
                  A00000000000000000000003 = { isa = PBXNativeTarget; name = App; productType = "com.apple.product-type.application"; buildConfigurationList = A00000000000000000000002; };
                }; rootObject = A00000000000000000000001; }
                """,
        ], expected: "The Xcode project has an app target but no version was found for it"),
        Miss(name: "a reference nothing sets", files: [
            "Config/App.xcconfig": "MARKETING_VERSION = $(APP_VERSION)\n",
        ], expected: "takes its version from `APP_VERSION`, which no version file sets"),
        Miss(name: "an Android app without versionName", files: [
            "app/build.gradle.kts": "plugins { id(\"com.android.application\") }\nandroid {\n    defaultConfig {\n        applicationId = \"a.b\"\n    }\n}\n",
        ], expected: "The Android app module sets no versionName"),
    ]

    @Test("a version that cannot be found or read is an error, never the tags", arguments: misses)
    func missesAreErrors(_ miss: Miss) throws {
        let repo = try TemporaryRepository()
        for (path, text) in miss.files { try repo.write(path, text) }
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains(miss.expected), "\(version.all)")
        #expect(!version.all.contains("from tags"))
        let bump = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(bump.status != 0)
        #expect(try repo.git("tag", "--list") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func aVersionFolderOrADanglingLinkIsAnError() throws {
        let repo = try TemporaryRepository()
        try FileManager.default.createDirectory(atPath: repo.path + "/VERSION", withIntermediateDirectories: false)
        try repo.write("VERSION/notes.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "folder")
        let folder = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(folder.status != 0)
        #expect(folder.all.contains("VERSION is a folder, not a version file"), "\(folder.all)")

        try repo.git("rm", "-q", "-r", "VERSION")
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/VERSION", withDestinationPath: "version.txt")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "link")
        let link = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(link.status != 0)
        #expect(link.all.contains("VERSION is a symbolic link to version.txt, which does not exist"), "\(link.all)")
        #expect(try repo.git("tag", "--list") == "")
    }
}
