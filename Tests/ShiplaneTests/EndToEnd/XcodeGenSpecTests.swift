import Foundation
import Testing

/// XcodeGen projects and zero-padded versions (issue 38, from the app corpus: element-x-ios keeps
/// `MARKETING_VERSION: 26.07.5` in `project.yml` and in the project it generates, and its own
/// "Prepare next release" commits change both lines, keeping the month's zero). Run with the built
/// `shiplane` on fixture repositories written here; git checks what was written and tagged.
@Suite("App projects: XcodeGen's project.yml and zero-padded versions", .offThePool)
struct XcodeGenSpecTests {
    /// The fixture app (`Fixtures/Versioning/Apps/ios`) at element-x-ios' CalVer `26.07.5`, with a
    /// `project.yml` that generates its Weather.xcodeproj (kept in the repository, as element's is).
    static func generatedProjectInTheRepository() throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios")
        try repo.write("Config/Version.xcconfig", try #require(repo.read("Config/Version.xcconfig")).replacingOccurrences(of: "APP_VERSION = 2.3", with: "APP_VERSION = 26.07.5"))
        try repo.write("Weather.xcodeproj/project.pbxproj", try #require(repo.read("Weather.xcodeproj/project.pbxproj"))
            .replacingOccurrences(of: "MARKETING_VERSION = 2.3;", with: "MARKETING_VERSION = 26.07.5;")
            .replacingOccurrences(of: "MARKETING_VERSION = 2.2;", with: "MARKETING_VERSION = 26.07.5;"))
        try repo.write("project.yml", """
            ---
            name: Weather
            options:
              deploymentTarget:
                iOS: '16.0'
            settings:
              APP_NAME: Weather
              MARKETING_VERSION: 26.07.5
              CURRENT_PROJECT_VERSION: 41
            include:
            - path: Weather/target.yml
            packages:
              Version:
                url: https://github.com/mxcl/Version
                exactVersion: 2.2.1

            """)
        try repo.write("Weather/target.yml", """
            targets:
              Weather:
                type: application
                platform: iOS
                settings:
                  base:
                    MARKETING_VERSION: $(MARKETING_VERSION)
                    CURRENT_PROJECT_VERSION: $(CURRENT_PROJECT_VERSION)
                    SWIFT_VERSION: 6.2

            """)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "Prepare next release")
        try repo.git("tag", "26.07.5")
        return repo
    }

    @Test func theSpecAndTheProjectItGeneratesMoveTogetherAndKeepTheMonthsZero() throws {
        let repo = try Self.generatedProjectInTheRepository()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("26.07.5 (build 41)\n"), "\(version.stdout)")
        #expect(version.stdout.contains("  project.yml "), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n")
            == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj", "project.yml"])
        #expect(try repo.git("tag", "--points-at", "HEAD") == "26.07.6")
        #expect(try repo.git("log", "-1", "--format=%s").contains("26.07.6"))
        #expect(try repo.git("show", "HEAD:project.yml").contains("  MARKETING_VERSION: 26.07.6\n  CURRENT_PROJECT_VERSION: 41\n"))
        #expect(try repo.git("show", "HEAD:Config/Version.xcconfig").contains("APP_VERSION = 26.07.6 // bumped by the release lane"))
        #expect(try repo.git("show", "HEAD:Weather.xcodeproj/project.pbxproj").components(separatedBy: "MARKETING_VERSION = 26.07.6;").count == 5)
        // The target's inheritance and the package's version are not the app's version.
        #expect(try repo.git("show", "HEAD:Weather/target.yml").contains("MARKETING_VERSION: $(MARKETING_VERSION)"))
        #expect(try repo.git("show", "HEAD:project.yml").contains("exactVersion: 2.2.1"))
        let changed = try repo.git("show", "-U0", "--format=", "HEAD", "--", "project.yml").split(separator: "\n")
            .filter { ($0.hasPrefix("+") || $0.hasPrefix("-")) && !$0.hasPrefix("+++") && !$0.hasPrefix("---") }
        #expect(changed == ["-  MARKETING_VERSION: 26.07.5", "+  MARKETING_VERSION: 26.07.6"])

        let minor = try repo.shiplane(["bump", "minor"])
        #expect(minor.status == 0, "\(minor.all)")
        #expect(repo.read("project.yml")?.contains("  MARKETING_VERSION: 26.08.0\n") == true, "\(repo.read("project.yml") ?? "")")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("26.08.0 (build 41)\n"))
    }

    /// A project.yml with the app, a widget out of step, a framework and a test bundle of their
    /// own, included target files, and the generated project ignored by git (a stale local copy on disk).
    static func generatedProjectIgnored() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "# XcodeGen generates it\n/Weather.xcodeproj/\n")
        try repo.write("project.yml", """
            name: Weather
            include:
              - targets.yml
            settings:
              base:
                MARKETING_VERSION: "1.9" # what the App Store shows
                CURRENT_PROJECT_VERSION: 12
              configs:
                Release:
                  MARKETING_VERSION: "1.9"
            targets:
              Weather:
                type: application
                platform: iOS
                info:
                  path: Weather/Info.plist
                  properties:
                    CFBundleShortVersionString: $(MARKETING_VERSION)

            """)
        try repo.write("targets.yml", """
            targets:
              WeatherWidget:
                type: app-extension
                platform: iOS
                settings:
                  base:
                    MARKETING_VERSION: 1.8
              WeatherKit:
                type: framework
                platform: iOS
                settings:
                  MARKETING_VERSION: 4.0.0
              WeatherTests:
                type: bundle.unit-test
                platform: iOS
                settings:
                  MARKETING_VERSION: 1.0

            """)
        try repo.write("Weather/Info.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>CFBundleShortVersionString</key>
            \t<string>$(MARKETING_VERSION)</string>
            </dict>
            </plist>

            """)
        try repo.write("WeatherTests/Info.plist", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>CFBundleShortVersionString</key>\n\t<string>1.0</string>\n</dict>\n</plist>\n")
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "app")
        // A local `xcodegen generate` left this; git ignores it.
        let stale = try String(contentsOfFile: AppVersionTests.apps.appendingPathComponent("ios/Weather.xcodeproj/project.pbxproj").path, encoding: .utf8)
        try repo.write("Weather.xcodeproj/project.pbxproj", stale)
        return repo
    }

    @Test func withTheGeneratedProjectIgnoredTheSpecIsTheVersionAndTheWidgetMovesWithTheApp() throws {
        let repo = try Self.generatedProjectIgnored()
        let stale = repo.read("Weather.xcodeproj/project.pbxproj")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("1.9 (build 12)\n"), "\(version.stdout)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout).contains {
            $0.hasPrefix("Weather.xcodeproj/project.pbxproj: generated by XcodeGen from project.yml and ignored by git")
        }, "\(version.stdout)")
        #expect(CompanionVersionTests.rows("out of step", in: version.stdout).contains { $0.hasPrefix("targets.yml MARKETING_VERSION in target WeatherWidget › base") }, "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n") == ["project.yml", "targets.yml"])
        // YAML reads an unquoted 1.10 as the number 1.1: the widget's value is quoted now.
        #expect(repo.read("targets.yml")?.contains("        MARKETING_VERSION: \"1.10\"\n") == true, "\(repo.read("targets.yml") ?? "")")
        #expect(repo.read("targets.yml")?.contains("MARKETING_VERSION: 4.0.0") == true)
        #expect(repo.read("targets.yml")?.contains("MARKETING_VERSION: 1.0\n") == true)
        #expect(repo.read("project.yml")?.contains("    MARKETING_VERSION: \"1.10\" # what the App Store shows\n") == true, "\(repo.read("project.yml") ?? "")")
        #expect(repo.read("project.yml")?.contains("      MARKETING_VERSION: \"1.10\"\n") == true)
        #expect(repo.read("Weather.xcodeproj/project.pbxproj") == stale)
        #expect(try repo.git("status", "--porcelain").isEmpty)
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("1.10 (build 12)\n"))
    }

    @Test func aSpecWhoseCopiesDisagreeIsAnErrorNamingEach() throws {
        let repo = try Self.generatedProjectIgnored()
        try repo.write("project.yml", try #require(repo.read("project.yml")).replacingOccurrences(of: "      MARKETING_VERSION: \"1.9\"\n", with: "      MARKETING_VERSION: \"2.0\"\n"))
        try repo.git("commit", "-qam", "release config at 2.0")
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status != 0, "\(bump.all)")
        #expect(bump.all.contains("project.yml"), "\(bump.all)")
        #expect(bump.all.contains("MARKETING_VERSION in settings › base (line 6)") && bump.all.contains("MARKETING_VERSION in settings › configs › Release (line 10)"), "\(bump.all)")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }
}
