import Foundation
import Testing

/// Gradle scripts that build `versionName` from numbered parts: `shiplane version` reads the parts
/// (and the `versionCode` computed from them), `bump` changes exactly the parts' lines, and any
/// other computed value is an error naming its line. `git diff` is the oracle.
@Suite("Gradle version templates: read and bumped part by part, or refused", .offThePool)
struct GradleVersionPartsTests {
    /// One app module's script and what the tools must make of it.
    struct Script: CustomTestStringConvertible, Sendable {
        let name: String
        let path: String
        let text: String
        /// What `shiplane version` prints first.
        let version: String
        let level: String
        /// Every line `git diff -U0` shows after `bump level`.
        let diff: [String]
        /// What `shiplane version` prints first after the bump.
        let after: String
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(name: "Kotlin DSL, a patch", path: "app/build.gradle.kts", text: """
            plugins {
                id("com.android.application")
                id("org.jetbrains.kotlin.android")
            }

            val versionMajor = 2
            val versionMinor = 5
            val versionPatch = 0

            android {
                namespace = "com.example.notes"
                compileSdk = 34
                defaultConfig {
                    applicationId = "com.example.notes"
                    minSdk = 24
                    versionCode = versionMajor * 10000 + versionMinor * 100 + versionPatch
                    versionName = "${versionMajor}.${versionMinor}.${versionPatch}"
                }
            }

            """, version: "2.5.0 (build 20500)", level: "patch",
            diff: ["-val versionPatch = 0", "+val versionPatch = 1"], after: "2.5.1 (build 20501)"),
        Script(name: "Groovy, a minor resets the patch", path: "app/build.gradle", text: """
            apply plugin: 'com.android.application'

            def versionMajor = 3
            def versionMinor = 1
            def versionPatch = 4

            android {
                compileSdkVersion 34
                defaultConfig {
                    applicationId "org.example.reader"
                    minSdkVersion 23
                    versionCode versionMajor * 10000 + versionMinor * 100 + versionPatch
                    versionName "${versionMajor}.${versionMinor}.${versionPatch}"
                }
            }

            """, version: "3.1.4 (build 30104)", level: "minor",
            diff: ["-def versionMinor = 1", "-def versionPatch = 4", "+def versionMinor = 2", "+def versionPatch = 0"],
            after: "3.2.0 (build 30200)"),
        Script(name: "Groovy ext forms, $name without braces, a literal versionCode", path: "mobile/build.gradle", text: """
            ext.versionMajor = 1
            ext {
                versionMinor = 12
                versionPatch = 3 // hotfix
            }

            android {
                defaultConfig {
                    applicationId "org.example.tides"
                    versionCode 40
                    versionName "$versionMajor.$versionMinor.$versionPatch"
                }
            }

            """, version: "1.12.3 (build 40)", level: "major",
            diff: ["-ext.versionMajor = 1", "+ext.versionMajor = 2", "-    versionMinor = 12", "-    versionPatch = 3 // hotfix",
                   "+    versionMinor = 0", "+    versionPatch = 0 // hotfix"],
            after: "2.0.0 (build 40)"),
        Script(name: "two parts stay two parts", path: "app/build.gradle.kts", text: """
            val appMajor = 7
            val appMinor = 76

            android {
                defaultConfig {
                    applicationId = "com.example.radio"
                    versionCode = appMajor * 1000 + appMinor
                    versionName = "$appMajor.$appMinor"
                }
            }

            """, version: "7.76 (build 7076)", level: "minor",
            diff: ["-val appMinor = 76", "+val appMinor = 77"], after: "7.77 (build 7077)"),
    ]

    @Test("the parts are read and only the parts' lines change", arguments: scripts)
    func partsAreBumped(_ script: Script) throws {
        let repo = try TemporaryRepository()
        try repo.write(script.path, script.text)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix(script.version + "\n"), "\(version.stdout)")

        let bump = try repo.shiplane(["bump", script.level])
        #expect(bump.status == 0, "\(bump.all)")
        let lines = try AppVersionTests.changedLines(repo)
        #expect(lines == script.diff, "\(lines)")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix(script.after + "\n"))
    }

    @Test func aTwoPartTemplateRefusesAThirdNumber() throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", Self.scripts[3].text)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status != 0)
        #expect(bump.all.contains("7.76.1 cannot be written to build.gradle.kts: its versionName is made of 2 numbers"), "\(bump.all)")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func aComputedVersionCodeIsNotSetOnItsOwn() throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", Self.scripts[0].text)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        let bump = try repo.shiplane(["bump", "patch", "--build"])
        #expect(bump.status != 0)
        #expect(bump.all.contains("versionCode in build.gradle.kts is computed from the version"), "\(bump.all)")
        #expect(bump.all.contains("Bump the version without --build"))
        #expect(try repo.git("status", "--porcelain") == "")
    }

    /// A computed value the parts do not explain, and what the error must say.
    struct Computed: CustomTestStringConvertible, Sendable {
        let name: String
        let script: String
        let expected: String
        var testDescription: String { name }
    }

    static let computed: [Computed] = [
        Computed(name: "a property passed through a function", script: """
            val projectVersionName: String by project
            android {
                defaultConfig {
                    applicationId = "com.example.maps"
                    versionCode = 120
                    versionName = projectVersionName.substringBefore("-")
                }
            }

            """, expected: "versionName in build.gradle.kts (line 6) is computed (`projectVersionName.substringBefore(\"-\")`)"),
        Computed(name: "a template whose parts are not numbers here", script: """
            android {
                defaultConfig {
                    applicationId = "com.example.maps"
                    versionCode = 120
                    versionName = "${rootProject.extra["major"]}.${minor}"
                }
            }

            """, expected: "versionName in build.gradle.kts (line 5) is computed"),
        Computed(name: "a part set from a property", script: """
            val versionMajor = 1
            val versionMinor = property("minor") as Int
            android {
                defaultConfig {
                    applicationId = "com.example.maps"
                    versionCode = 120
                    versionName = "${versionMajor}.${versionMinor}"
                }
            }

            """, expected: "`versionMinor` is not set to a number in this script"),
        Computed(name: "a versionCode from a function", script: """
            android {
                defaultConfig {
                    applicationId = "com.example.maps"
                    versionCode = gitCommitCount() + 1000
                    versionName = "1.4.0"
                }
            }

            """, expected: "versionCode in build.gradle.kts (line 4) is computed (`gitCommitCount() + 1000`)"),
    ]

    @Test("any other computed value is an error naming the line, with Gradle's fixes", arguments: computed)
    func computedValuesAreRefused(_ computed: Computed) throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle.kts", computed.script)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        for arguments in [["version"], ["bump", "patch", "--commit", "--tag"]] {
            let run = try repo.shiplane(arguments)
            #expect(run.status == 1, "\(run.all)")
            #expect(run.all.contains(computed.expected), "\(run.all)")
            #expect(run.all.contains("file: app/build.gradle.kts"))
            #expect(run.all.contains("gradle.properties"))
            #expect(!run.all.contains("xcconfig"), "\(run.all)")
            // One error for the script, not a second one saying it has no versionName.
            #expect(!run.all.contains("sets no versionName"), "\(run.all)")
        }
        #expect(try repo.git("status", "--porcelain") == "")
        #expect(try repo.git("tag", "--list") == "")
    }

    @Test func aPropertyNothingSetsGetsGradleHints() throws {
        let repo = try TemporaryRepository()
        try repo.write("app/build.gradle", "android {\n    defaultConfig {\n        applicationId \"a.b\"\n        versionCode 4\n        versionName appVersion\n    }\n}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "app")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 1)
        #expect(version.all.contains("takes its version from `appVersion`, which no version file sets"), "\(version.all)")
        #expect(version.all.contains("Set appVersion in gradle.properties (appVersion=1.2.3)"), "\(version.all)")
        #expect(!version.all.contains("xcconfig"), "\(version.all)")
    }
}
