import Foundation
import Testing

/// Targets that ship inside the app but that the projects' own bumps leave where they are
/// (issue 38, item 3, from the app corpus): a login item the app copies into
/// `Contents/Library/LoginItems` (exelban/stats' LaunchAtLogin, home-assistant's Launcher), an
/// extension still at Xcode's `1.0` beside a Flutter app's version (lichess, LocalSend), and an
/// extension whose Info.plist writes both values itself beside an unused `MARKETING_VERSION = 1.0`
/// (stats' widget). Built on the fixture app (`Fixtures/Versioning/Apps/ios`), checked with `git diff`.
@Suite("App projects: helpers and placeholder extensions", .offThePool)
struct HelperTargetVersionTests {
    /// The fixture with the app copying LaunchHelper.app into `destination` (a Copy Files phase).
    static func appCopyingTheHelper(into destination: String) throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios")
        var project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        let phases = "\t\t\tbuildPhases = (\n\t\t\t);\n\t\t\tdependencies = (\n\t\t\t);\n\t\t\tname = Weather;"
        #expect(project.contains(phases))
        project = project.replacingOccurrences(of: phases, with: "\t\t\tbuildPhases = (\n\t\t\t\tAB0000000000000000000012 /* Copy Files */,\n\t\t\t);\n\t\t\tdependencies = (\n\t\t\t);\n\t\t\tname = Weather;")
        project = project.replacingOccurrences(of: "/* Begin PBXGroup section */", with: """
            /* Begin PBXBuildFile section */
            \t\tAB0000000000000000000011 /* LaunchHelper.app in Copy Files */ = {isa = PBXBuildFile; fileRef = A10000000000000000000006 /* LaunchHelper.app */; };
            /* End PBXBuildFile section */
            /* Begin PBXCopyFilesBuildPhase section */
            \t\tAB0000000000000000000012 /* Copy Files */ = {
            \t\t\tisa = PBXCopyFilesBuildPhase;
            \t\t\tbuildActionMask = 2147483647;
            \t\t\tdstPath = \(destination);
            \t\t\tdstSubfolderSpec = 1;
            \t\t\tfiles = (
            \t\t\t\tAB0000000000000000000011 /* LaunchHelper.app in Copy Files */,
            \t\t\t);
            \t\t\tname = "Copy Files";
            \t\t\trunOnlyForDeploymentPostprocessing = 0;
            \t\t};
            /* End PBXCopyFilesBuildPhase section */
            /* Begin PBXGroup section */
            """)
        try repo.write("Weather.xcodeproj/project.pbxproj", project)
        try repo.git("commit", "-qam", "the app copies its launcher")
        return repo
    }

    @Test func aLoginItemTheAppCopiesIntoItsBundleIsLeftAlone() throws {
        let repo = try Self.appCopyingTheHelper(into: "Contents/Library/LoginItems")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.all)")
        #expect(CompanionVersionTests.rows("left alone", in: version.stdout).contains(
            "LaunchHelper (Weather.xcodeproj/project.pbxproj): CFBundleShortVersionString 1.0 in LaunchHelper/Info.plist, "
                + "a helper app Weather copies into Contents/Library/LoginItems, not a watch app; left alone "
                + "(list it under versions.targets in .shiplane.yml to move it with the app)"), "\(version.stdout)")
        #expect(!version.stdout.contains("LaunchHelper/Info.plist  "), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj"])
        #expect(repo.read("LaunchHelper/Info.plist")?.contains("<string>1.0</string>") == true)
    }

    @Test func aLoginItemListedInTheSettingsMovesWithTheApp() throws {
        let repo = try Self.appCopyingTheHelper(into: "Contents/Library/LoginItems")
        try repo.write(".shiplane.yml", "versions:\n  targets: [LaunchHelper]\n")
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "move the launcher")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "the launcher at 1.0 now disagrees: \(version.all)")
        #expect(version.all.contains("LaunchHelper/Info.plist"), "\(version.all)")
    }

    /// The fixture with the widget at Xcode's placeholder (`MARKETING_VERSION = 1.0`) and its
    /// Info.plist writing what `plist` says.
    static func widgetAtThePlaceholder(plistVersion: String, plistBuild: String) throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios")
        var project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        let widget = "\t\t\t\tMARKETING_VERSION = 2.3;\n\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.example.weather.widget;"
        #expect(project.components(separatedBy: widget).count == 3)
        project = project.replacingOccurrences(of: widget, with: "\t\t\t\tMARKETING_VERSION = 1.0;\n\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.example.weather.widget;")
        try repo.write("Weather.xcodeproj/project.pbxproj", project)
        var plist = try #require(repo.read("WeatherWidget/Info.plist"))
        plist = plist.replacingOccurrences(of: "<string>$(MARKETING_VERSION)</string>", with: "<string>\(plistVersion)</string>")
            .replacingOccurrences(of: "<string>$(CURRENT_PROJECT_VERSION)</string>", with: "<string>\(plistBuild)</string>")
        try repo.write("WeatherWidget/Info.plist", plist)
        try repo.git("commit", "-qam", "widget at 1.0")
        return repo
    }

    @Test func anExtensionAtThePlaceholderWhileTheAppIsElsewhereIsLeftAlone() throws {
        let repo = try Self.widgetAtThePlaceholder(plistVersion: "$(MARKETING_VERSION)", plistBuild: "$(CURRENT_PROJECT_VERSION)")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.all)")
        #expect(CompanionVersionTests.rows("left alone", in: version.stdout).contains(
            "WeatherWidget (Weather.xcodeproj/project.pbxproj): MARKETING_VERSION 1.0, an extension of Weather at Xcode's placeholder "
                + "version, which the app's releases do not move (App Store Connect only warns, ITMS-90473); left alone "
                + "(list it under versions.targets in .shiplane.yml to move it with the app)"), "\(version.stdout)")

        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        let project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        #expect(project.components(separatedBy: "MARKETING_VERSION = 1.0;").count == 5, "the widget's two and the tests' two stay")
        let changed = try AppVersionTests.changedLines(repo)
        #expect(changed.allSatisfy { !$0.contains("1.0") }, "\(changed)")
    }

    @Test func anExtensionWhosePlistWritesItsOwnValuesMovesThePlistNotTheUnusedSettings() throws {
        let repo = try Self.widgetAtThePlaceholder(plistVersion: "2.3", plistBuild: "41")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.contains("WeatherWidget/Info.plist  "), "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n")
            == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj", "WeatherWidget/Info.plist"])
        #expect(repo.read("WeatherWidget/Info.plist")?.contains("<string>2.4</string>") == true)
        let project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        #expect(project.components(separatedBy: "MARKETING_VERSION = 1.0;").count == 5, "the widget's unused settings stay at 1.0")
    }

    @Test func aWatchAppStillMovesFromAnyVersion() throws {
        // App Store Connect refuses a watch app whose version differs from the app's: not a placeholder case.
        let repo = try CompanionVersionTests.singleTargetWatchApp(embedded: true)
        #expect(try repo.shiplane(["bump", "minor"]).status == 0)
        let project = try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
        #expect(!project.contains("MARKETING_VERSION = 2.2;"), "the watch app stayed behind")
    }
}

/// A two-number marketing version (Rectangle's `0.99`) is shown and written in two numbers even
/// when an extension's Info.plist is out of step with it (issue 38, from the app corpus: its
/// launcher's plist at `1.0` made `version` show `0.99.0`).
@Suite("App projects: a two-number version beside an extension out of step", .offThePool)
struct TwoNumberVersionBesideFollowerTests {
    static func repository() throws -> TemporaryRepository {
        let repo = try HelperTargetVersionTests.widgetAtThePlaceholder(plistVersion: "0.98", plistBuild: "41")
        try repo.write("Config/Version.xcconfig", (repo.read("Config/Version.xcconfig") ?? "").replacingOccurrences(of: "APP_VERSION = 2.3 ", with: "APP_VERSION = 0.99 "))
        try repo.git("commit", "-qam", "0.99")
        return repo
    }

    @Test func theVersionIsShownAsTheAppWritesIt() throws {
        let repo = try Self.repository()
        #expect(repo.read("Config/Version.xcconfig")?.contains("APP_VERSION = 0.99 ") == true)
        let version = try repo.shiplane(["version", "--json"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.contains("\"version\" : \"0.99\""), "\(version.stdout)")
        let plain = try repo.shiplane(["version"])
        #expect(plain.stdout.hasPrefix("0.99 (build 41)\n"), "\(plain.all)")
        #expect(plain.stdout.contains("0.98"), "the widget is named out of step: \(plain.stdout)")
    }

    @Test(arguments: [("patch", "0.99.1"), ("minor", "0.100"), ("major", "1.0")])
    func aBumpWritesTheFilesOwnShape(level: String, expected: String) throws {
        let repo = try Self.repository()
        let bump = try repo.shiplane(["bump", level])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(bump.all.contains("0.99 → \(expected)"), "\(bump.all)")
        #expect(repo.read("Config/Version.xcconfig")?.contains("APP_VERSION = \(expected) //") == true, "\(repo.read("Config/Version.xcconfig") ?? "")")
        #expect(repo.read("WeatherWidget/Info.plist")?.contains("<string>\(expected)</string>") == true, "the widget is brought in step")
        let version = try repo.shiplane(["version", "--json"])
        #expect(version.stdout.contains("\"version\" : \"\(expected)\""), "\(version.stdout)")
    }
}
