import Foundation
import Testing

/// The smaller points of real apps: `bump --build` alone moves only the build number, a version
/// bump does not say it moved an extension's build number it left alone, and a Flutter build
/// number that is not a whole number is refused. `git diff` is the oracle.
@Suite("Build numbers on their own, and only what was changed is said", .offThePool)
struct BuildNumberOnlyTests {
    static let gradle = """
        android {
            defaultConfig {
                applicationId "com.example.tides"
                versionCode 41
                versionName "1.2.0"
            }
        }

        """

    func gradleApp() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle", Self.gradle)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Tides 1.2.0")
        return repo
    }

    @Test func buildAloneMovesOnlyTheBuildNumber() throws {
        let repo = try gradleApp()
        let bump = try repo.shiplane(["bump", "--build"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try AppVersionTests.changedLines(repo) == ["-        versionCode 41", "+        versionCode 42"])
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("1.2.0 (build 42)\n"))
    }

    @Test func buildNAloneIsCommittedWithTheVersionKept() throws {
        let repo = try gradleApp()
        let bump = try repo.shiplane(["bump", "--build", "50", "--commit"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.2.0 (50)")
        #expect(try repo.git("show", "-U0", "--format=", "HEAD").split(separator: "\n").filter { $0.hasPrefix("-  ") || $0.hasPrefix("+  ") }
            == ["-        versionCode 41", "+        versionCode 50"])
        #expect(try repo.git("tag", "--list") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test("with no version bump there is no tag to make, and nothing to bump is still an error", arguments: [
        (["bump", "--build", "--commit", "--tag"], "--tag needs a version bump"),
        (["bump"], "say how to bump"),
        (["bump", "--commit"], "say how to bump"),
    ])
    func buildAloneRefusesATag(_ arguments: [String], _ expected: String) throws {
        let repo = try gradleApp()
        let bump = try repo.shiplane(arguments)
        #expect(bump.status == 2, "\(bump.all)")
        #expect(bump.all.contains(expected), "\(bump.all)")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func aVersionBumpDoesNotClaimAWidgetsBuildNumberItLeftAlone() throws {
        let repo = try AppVersionTests.repository("ios")
        // The widget's two configurations at build 1, as Xcode's template leaves them.
        let path = "Weather.xcodeproj/project.pbxproj"
        var lines = (repo.read(path) ?? "").components(separatedBy: "\n")
        for index in [183, 193] {
            #expect(lines[index] == "\t\t\t\tCURRENT_PROJECT_VERSION = 41;")
            lines[index] = "\t\t\t\tCURRENT_PROJECT_VERSION = 1;"
        }
        try repo.write(path, lines.joined(separator: "\n"))
        try repo.git("commit", "-q", "-a", "-m", "widget at build 1")

        let version = try repo.shiplane(["version"])
        #expect(version.stdout.contains("WeatherWidget Debug CURRENT_PROJECT_VERSION (line 184): 1 (extensions carry the app's build number"), "\(version.stdout)")
        let minor = try repo.shiplane(["bump", "minor"])
        #expect(minor.status == 0, "\(minor.all)")
        #expect(!minor.all.contains("CURRENT_PROJECT_VERSION (line 184): 1 was out of step"), "\(minor.all)")
        #expect(minor.all.contains("WeatherWatch Debug MARKETING_VERSION (line 206): 2.2 was out of step with the app; now 2.4"))
        #expect(repo.read(path)?.components(separatedBy: "CURRENT_PROJECT_VERSION = 1;").count == 5)
        try repo.git("commit", "-q", "-a", "-m", "2.4")

        let build = try repo.shiplane(["bump", "--build"])
        #expect(build.status == 0, "\(build.all)")
        #expect(build.all.contains("WeatherWidget Debug CURRENT_PROJECT_VERSION (line 184): 1 was out of step with the app; now 42"), "\(build.all)")
        let changed = try AppVersionTests.changedLines(repo)
        #expect(changed.filter { $0.contains("CURRENT_PROJECT_VERSION = 1;") }.count == 2, "\(changed)")
    }

    @Test("a Flutter build number that is not a whole number is refused", arguments: ["4x", "4.1", "b7"])
    func aFlutterBuildNumberMustBeWhole(_ build: String) throws {
        let repo = try TemporaryRepository()
        try repo.write("pubspec.yaml", "name: tides\ndescription: Tide tables\nversion: 5.1.0+\(build)\n\nenvironment:\n  sdk: \">=3.0.0 <4.0.0\"\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "tides")
        for arguments in [["version"], ["bump", "patch", "--build"]] {
            let run = try repo.shiplane(arguments)
            #expect(run.status == 1, "\(run.all)")
            #expect(run.all.contains("The build number in pubspec.yaml, '\(build)' (after the + of `version: 5.1.0+\(build)`), is not a whole number"), "\(run.all)")
            #expect(run.all.contains("write digits only"))
        }
        #expect(try repo.git("status", "--porcelain") == "")
    }
}
