import Foundation
import Testing

/// XcodeGen specs as real projects write them (issue 38): targets that take their type and
/// settings from `targetTemplates`, `include:` files merged as XcodeGen merges them (the
/// including file over what it includes, `enable:`, `KEY:REPLACE`, a plain setting beside
/// `base:` ignored), and Info.plists that only `project.yml` names because git ignores the
/// generated project. Run with the built `shiplane` on repositories written here; git checks
/// what was written.
@Suite("App projects: XcodeGen templates, includes and Info.plists", .offThePool)
struct XcodeGenMergeTests {
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

    /// An app whose targets are built from templates kept in an included file (the way teams
    /// share one `targetTemplates.yml` between apps): the app and its widget take their type and
    /// version from templates, a framework from a template of its own at its own version.
    static func templatedApp() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "*.xcodeproj\n")
        try repo.write("project.yml", """
            name: Podcasts
            include:
              - path: xcodegen/templates.yml
                relativePaths: false
            options:
              bundleIdPrefix: com.example.podcasts
              deploymentTarget:
                iOS: "17.0"
            targets:
              Podcasts:
                templates:
                  - iOSApplication
                sources: [Podcasts]
              PodcastsWidget:
                templates: [AppExtension]
                sources: [PodcastsWidget]
              PlayerKit:
                templates:
                - Framework
                templateAttributes:
                  frameworkName: PlayerKit
              PodcastsTests:
                type: bundle.unit-test
                platform: iOS
                settings:
                  MARKETING_VERSION: "1.0"

            """)
        try repo.write("xcodegen/templates.yml", """
            targetTemplates:
              Shared:
                platform: iOS
                settings:
                  base:
                    MARKETING_VERSION: 5.2.0 # the App Store version
                    CURRENT_PROJECT_VERSION: 310
              iOSApplication:
                type: application
                templates: [Shared]
                info:
                  path: ${target_name}/Info.plist
                  properties:
                    CFBundleShortVersionString: $(MARKETING_VERSION)
                    CFBundleVersion: $(CURRENT_PROJECT_VERSION)
              AppExtension:
                type: app-extension
                templates:
                  - Shared
              Framework:
                type: framework
                platform: iOS
                settings:
                  base:
                    MARKETING_VERSION: 2.0.1
                    PRODUCT_NAME: ${frameworkName}

            """)
        try repo.write("Podcasts/Info.plist", plist(version: "$(MARKETING_VERSION)", build: "$(CURRENT_PROJECT_VERSION)"))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "templates")
        return repo
    }

    @Test func targetsTakeTheirTypeAndVersionFromTemplates() throws {
        let repo = try Self.templatedApp()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("5.2.0 (build 310)\n"), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n") == ["xcodegen/templates.yml"])
        let changed = try repo.git("show", "-U0", "--format=", "HEAD").split(separator: "\n")
            .filter { ($0.hasPrefix("+") || $0.hasPrefix("-")) && !$0.hasPrefix("+++") && !$0.hasPrefix("---") }
        #expect(changed == ["-        MARKETING_VERSION: 5.2.0 # the App Store version", "+        MARKETING_VERSION: 5.3.0 # the App Store version"])
        // The framework's template and the tests keep their own.
        #expect(repo.read("xcodegen/templates.yml")?.contains("MARKETING_VERSION: 2.0.1\n") == true)
        #expect(repo.read("project.yml")?.contains("MARKETING_VERSION: \"1.0\"") == true)
        #expect(repo.read("Podcasts/Info.plist")?.contains("$(MARKETING_VERSION)") == true)
    }

    @Test func aTemplateOnlyAnExtensionUsesFollowsTheApp() throws {
        let repo = try Self.templatedApp()
        // The widget's template sets its own (stale) value over the shared one: it follows the app.
        try repo.write("xcodegen/templates.yml", try #require(repo.read("xcodegen/templates.yml")).replacingOccurrences(of: """
                type: app-extension
                templates:
                  - Shared
            """, with: """
                type: app-extension
                templates:
                  - Shared
                settings:
                  MARKETING_VERSION: 5.1.0
            """))
        try repo.git("commit", "-qam", "widget version")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("5.2.0 (build 310)\n"), "\(version.stdout)")
        #expect(CompanionVersionTests.rows("out of step", in: version.stdout).contains { $0.contains("MARKETING_VERSION in template AppExtension") }, "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "patch"]).status == 0)
        let templates = try #require(repo.read("xcodegen/templates.yml"))
        #expect(templates.contains("      MARKETING_VERSION: 5.2.1\n") && templates.contains("MARKETING_VERSION: 5.2.1 # the App Store version"), "\(templates)")
    }

    /// The generated project ignored by git, and the Info.plists only project.yml names: the
    /// app's through an `info:` block whose properties write the version (XcodeGen writes the
    /// plist; this team commits it), the widget's through INFOPLIST_FILE, the tests' at 1.0.
    static func plistsNamedOnlyBySpec() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "/Journal.xcodeproj/\n")
        try repo.write("project.yml", """
            name: Journal
            settings:
              CURRENT_PROJECT_VERSION: 87
            targets:
              Journal:
                type: application
                platform: iOS
                sources: [App]
                info:
                  path: App/Supporting Files/Info.plist
                  properties:
                    CFBundleShortVersionString: "3.4.1"
                    CFBundleVersion: $(CURRENT_PROJECT_VERSION)
                    UILaunchScreen: {}
              JournalWidget:
                type: app-extension
                platform: iOS
                sources: [Widget]
                settings:
                  base:
                    INFOPLIST_FILE: Widget/Info.plist
              JournalTests:
                type: bundle.unit-test
                platform: iOS
                settings:
                  INFOPLIST_FILE: $(SRCROOT)/Tests/Info.plist

            """)
        try repo.write("App/Supporting Files/Info.plist", plist(version: "3.4.1", build: "$(CURRENT_PROJECT_VERSION)"))
        try repo.write("Widget/Info.plist", plist(version: "3.4.0", build: "$(CURRENT_PROJECT_VERSION)"))
        try repo.write("Tests/Info.plist", plist(version: "1.0", build: "1"))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "journal")
        return repo
    }

    @Test func withTheProjectIgnoredThePlistsTheSpecNamesAreRead() throws {
        let repo = try Self.plistsNamedOnlyBySpec()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("3.4.1 (build 87)\n"), "\(version.stdout)")
        #expect(version.stdout.contains("App/Supporting Files/Info.plist"), "\(version.stdout)")
        #expect(CompanionVersionTests.rows("out of step", in: version.stdout).contains { $0.contains("Widget/Info.plist") }, "\(version.stdout)")
        #expect(!version.stdout.contains("Tests/Info.plist"), "the tests' plist is theirs: \(version.stdout)")

        let bump = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n")
            == ["App/Supporting Files/Info.plist", "Widget/Info.plist", "project.yml"])
        #expect(repo.read("project.yml")?.contains("        CFBundleShortVersionString: \"3.4.2\"\n") == true, "\(repo.read("project.yml") ?? "")")
        #expect(repo.read("Widget/Info.plist")?.contains("<string>3.4.2</string>") == true)
        #expect(repo.read("Tests/Info.plist")?.contains("<string>1.0</string>") == true)
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    /// A shared base spec with defaults that project.yml overrides, an include switched off, one
    /// switched by an environment variable, `settings:REPLACE:` and a plain key XcodeGen ignores.
    static func mergedIncludes() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "*.xcodeproj\n")
        try repo.write("project.yml", """
            include:
              - path: config/base.yml
              - path: config/local.yml
                enable: false
              - path: config/ci.yml
                enable: ${CI_EXTRAS}
            name: Notes
            settings:
              MARKETING_VERSION: 0.0.1 # ignored by XcodeGen: configs below
              configs:
                Release:
                  MARKETING_VERSION: 2.5.0
            targets:
              Notes:
                type: application
                platform: iOS
                settings:REPLACE:
                  base:
                    MARKETING_VERSION: 2.5.0
                    CURRENT_PROJECT_VERSION: 14

            """)
        try repo.write("config/base.yml", """
            settings:
              configs:
                Release:
                  MARKETING_VERSION: 1.0.0 # every new app starts here
            targets:
              Notes:
                settings:
                  base:
                    MARKETING_VERSION: 1.0.0
                    CURRENT_PROJECT_VERSION: 1

            """)
        try repo.write("config/local.yml", "settings:\n  base:\n    MARKETING_VERSION: 9.9.9\n")
        try repo.write("config/ci.yml", "settings:\n  base:\n    CURRENT_PROJECT_VERSION: 9999\n")
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "notes")
        return repo
    }

    @Test func includesMergeAsXcodeGenMergesThem() throws {
        let repo = try Self.mergedIncludes()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.5.0 (build 14)\n"), "\(version.stdout)")
        let ignored = CompanionVersionTests.rows("ignored", in: version.stdout)
        #expect(ignored.contains { $0.hasPrefix("config/local.yml: included with enable: false by project.yml") }, "\(version.stdout)")
        #expect(ignored.contains { $0.hasPrefix("config/ci.yml: included only when CI_EXTRAS is true") }, "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n") == ["project.yml"])
        let spec = try #require(repo.read("project.yml"))
        #expect(spec.contains("      MARKETING_VERSION: 2.6.0\n") && spec.contains("        MARKETING_VERSION: 2.6.0\n"), "\(spec)")
        #expect(spec.contains("MARKETING_VERSION: 0.0.1 # ignored"), "the plain key beside configs stays")
        #expect(repo.read("config/base.yml")?.contains("MARKETING_VERSION: 1.0.0 # every new app starts here") == true)
        #expect(repo.read("config/local.yml")?.contains("9.9.9") == true)
    }
}
