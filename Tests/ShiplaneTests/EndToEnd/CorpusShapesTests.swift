import Foundation
import Testing

/// Shapes the app corpus found (issue 38, item 1; `Scripts/corpus`, `Tests/Corpus/apps.tsv`),
/// as small fixtures of our own so CI catches them without the network: an xcconfig including a
/// file from the project's folder (hiddify), `#include <…>`, a benchmarks test module that names
/// the app it tests (nowinandroid), a Wear module with the phone app's applicationId and no
/// version of its own (PeopleInSpace).
@Suite("Shapes from the app corpus", .offThePool)
struct CorpusShapesTests {
    static func chain(_ edit: (TemporaryRepository) throws -> Void) throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios-xcconfig-chain")
        try edit(repo)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "edit")
        return repo
    }

    @Test func anIncludeNotBesideTheFileIsFoundInTheProjectsFolder() throws {
        // hiddify's ios/Flutter/Debug.xcconfig: #include "Base.xcconfig", which is ios/Base.xcconfig.
        let repo = try Self.chain { repo in
            let shared = (repo.read("Configs/Shared.xcconfig") ?? "").replacingOccurrences(of: "#include \"../Deployment/Deployment.xcconfig\"", with: "#include \"Deployment/Deployment.xcconfig\"")
            #expect(shared.contains("#include \"Deployment/Deployment.xcconfig\""))
            try repo.write("Configs/Shared.xcconfig", shared)
        }
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("5.2.0 (build 310)\n"), "\(version.stdout)")
    }

    @Test func anAngleBracketIncludeIsFollowedAndAMissingOneNamed() throws {
        let repo = try Self.chain { repo in
            try repo.write("Configs/Shared.xcconfig", (repo.read("Configs/Shared.xcconfig") ?? "") + "#include <Signing.xcconfig>\n")
        }
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "\(version.all)")
        #expect(version.all.contains("Configs/Shared.xcconfig includes Configs/Signing.xcconfig, which does not exist"), "\(version.all)")
        try repo.write("Configs/Signing.xcconfig", "DEVELOPMENT_TEAM = ABCDE12345\n")
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "signing")
        #expect(try repo.shiplane(["version"]).status == 0)
    }

    static let app = """
        plugins {
            alias(libs.plugins.nowinandroid.android.application)
        }
        android {
            defaultConfig {
                applicationId = "com.example.space"
                versionCode = 8
                versionName = "0.1.2"
            }
        }

        """

    @Test func aBenchmarksTestModuleHasNoVersionToFind() throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", Self.app)
        try repo.write("benchmarks/build.gradle.kts", """
            plugins {
                alias(libs.plugins.baselineprofile)
                alias(libs.plugins.nowinandroid.android.test)
            }
            android {
                defaultConfig {
                    buildConfigField("String", "APP_BUILD_TYPE_SUFFIX", "\\"\\"")
                    testInstrumentationRunnerArguments["applicationId"] = "com.example.space"
                }
                targetProjectPath = ":app"
            }

            """)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "space")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("0.1.2 (build 8)\n"), "\(version.stdout)")
    }

    @Test func aSecondAppAtAnotherVersionIsNamedWithTheLineThatSetsItApart() throws {
        // nowinandroid's app-nia-catalog: an app of its own (its own applicationId) at 0.0.1.
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", Self.app)
        try repo.write("app-nia-catalog/build.gradle.kts", Self.app.replacingOccurrences(of: "com.example.space", with: "com.example.catalog")
            .replacingOccurrences(of: "versionCode = 8", with: "versionCode = 1").replacingOccurrences(of: "0.1.2", with: "0.0.1"))
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "space")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "\(version.all)")
        #expect(version.all.contains("name its folder in .shiplane.yml (versions: { independent: [app-nia-catalog] })"), "\(version.all)")
        try repo.write(".shiplane.yml", "versions:\n  independent: [app-nia-catalog]\n")
        try repo.git("add", ".shiplane.yml")
        try repo.git("commit", "-qm", "catalog has its own releases")
        let named = try repo.shiplane(["version"])
        #expect(named.status == 0 && named.stdout.hasPrefix("0.1.2 (build 8)\n"), "\(named.all)")
    }

    @Test func aWearModuleWithThePhoneAppsIDAndNoVersionShipsUnderTheApp() throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", Self.app)
        try repo.write("wearApp/build.gradle.kts", """
            plugins {
                id("com.android.application")
            }
            android {
                defaultConfig {
                    applicationId = "com.example.space"
                    minSdk = 30
                }
            }

            """)
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "space")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("0.1.2 (build 8)\n"), "\(version.stdout)")
        // A module with an applicationId of its own and no version is still an error.
        try repo.write("wearApp/build.gradle.kts", (repo.read("wearApp/build.gradle.kts") ?? "").replacingOccurrences(of: "com.example.space", with: "com.example.other"))
        try repo.git("add", "wearApp")
        try repo.git("commit", "-qm", "other")
        let other = try repo.shiplane(["version"])
        #expect(other.status != 0 && other.all.contains("The Android app module sets no versionName"), "\(other.all)")
    }
}
