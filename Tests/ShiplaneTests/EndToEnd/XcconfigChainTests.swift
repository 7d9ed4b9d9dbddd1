import Foundation
import Testing

/// An app whose version Xcode finds through `#include` chains and `$(VAR)` settings
/// (`Fixtures/Versioning/Apps/ios-xcconfig-chain`): the app's base `App.xcconfig` includes
/// `Shared.xcconfig`, which includes `../Deployment/Deployment.xcconfig`, where the numbers are;
/// a framework target is based on `Deployment.xcconfig` directly. Checked with `git diff`.
@Suite("App projects: xcconfig include chains", .offThePool)
struct XcconfigChainTests {
    static func repository() throws -> TemporaryRepository {
        try AppVersionTests.repository("ios-xcconfig-chain")
    }

    @Test func theVersionIsReadWhereTheChainLeadsAndABumpChangesOnlyThatFile() throws {
        let repo = try Self.repository()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("5.2.0 (build 310)\n"), "\(version.all)")
        #expect(version.stdout.contains("Deployment/Deployment.xcconfig  5.2.0, build 310"), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", "minor", "--build"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("diff", "--name-only") == "Deployment/Deployment.xcconfig")
        #expect(try AppVersionTests.changedLines(repo) == [
            "-RELEASE_VERSION = 5.2.0", "-RELEASE_BUILD = 310",
            "+RELEASE_VERSION = 5.3.0", "+RELEASE_BUILD = 311",
        ])
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("5.3.0 (build 311)\n"))
    }

    @Test func aMissingIncludeIsAnErrorNamingBothFilesAndNothingIsWritten() throws {
        let repo = try Self.repository()
        let shared = try #require(repo.read("Configs/Shared.xcconfig"))
        try repo.write("Configs/Shared.xcconfig", shared.replacingOccurrences(of: "#include? \"Local.xcconfig\"", with: "#include \"Signing.xcconfig\""))
        try repo.git("commit", "-qam", "signing")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains("Configs/Shared.xcconfig includes Configs/Signing.xcconfig, which does not exist"), "\(version.all)")
        #expect(version.all.contains("line 3: #include \"Signing.xcconfig\""), "\(version.all)")
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status != 0)
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    @Test func anOptionalIncludeThatIsAbsentIsSkipped() throws {
        // The fixture's Shared.xcconfig has `#include? "Local.xcconfig"` and CocoaPods' file, both absent.
        let repo = try Self.repository()
        #expect(repo.read("Configs/Local.xcconfig") == nil)
        #expect(try repo.shiplane(["version"]).status == 0)
    }

    @Test func perConfigurationValuesAreEachMoved() throws {
        let repo = try Self.repository()
        try repo.write("Deployment/Deployment.xcconfig", "RELEASE_VERSION[config=Release] = 5.2.0\nRELEASE_VERSION[config=Debug] = 5.2.0\nRELEASE_BUILD = 310\n")
        try repo.git("commit", "-qam", "per configuration")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("5.2.0 (build 310)\n"))
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try AppVersionTests.changedLines(repo) == [
            "-RELEASE_VERSION[config=Release] = 5.2.0", "-RELEASE_VERSION[config=Debug] = 5.2.0",
            "+RELEASE_VERSION[config=Release] = 5.2.1", "+RELEASE_VERSION[config=Debug] = 5.2.1",
        ])
    }

    @Test func perConfigurationValuesThatDifferAreNamedEach() throws {
        let repo = try Self.repository()
        try repo.write("Deployment/Deployment.xcconfig", "RELEASE_VERSION = 5.2.0\nRELEASE_VERSION[config=Debug] = 5.1.0\nRELEASE_BUILD = 310\n")
        try repo.git("commit", "-qam", "debug differs")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains("RELEASE_VERSION (line 1): 5.2.0"), "\(version.all)")
        #expect(version.all.contains("RELEASE_VERSION[config=Debug] (line 2): 5.1.0"), "\(version.all)")
    }
}

/// A base configuration the project names that is not in the repository.
@Suite("App projects: a missing base configuration", .offThePool)
struct MissingBaseConfigurationTests {
    @Test func aBaseConfigurationThatDoesNotExistIsAnErrorNamingTheProjectAndTheFile() throws {
        let repo = try XcconfigChainTests.repository()
        try repo.git("rm", "-q", "Configs/App.xcconfig")
        try repo.git("commit", "-qm", "lost the app's settings")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0)
        #expect(version.all.contains("Podcast.xcodeproj/project.pbxproj bases a configuration on Configs/App.xcconfig, which does not exist"), "\(version.all)")
    }
}
