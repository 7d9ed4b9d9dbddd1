import Foundation
import Testing
@testable import Shiplane

/// The pieces behind Gradle version templates and release tag names, one case at a time.
@Suite("Gradle version parts and release tag styles", .offThePool)
struct GradleVersionPartsUnitTests {
    @Test("an expression that reads a value is followed; one that computes it is refused", arguments: [
        ("VERSION_NAME", false), ("libs.versions.app.version.get()", false), ("flutter.versionCode", false),
        ("(project.property(\"VERSION_CODE\") as String).toInt()", false), ("VERSION_CODE.toInteger()", false),
        ("providers.gradleProperty(\"VERSION_NAME\").get()", false), ("rootProject.ext.versionName", false),
        ("projectVersionName.substringBefore(\"-\")", true), ("gitCommitCount() + 1000", true), ("\"1.\" + minor", true),
        ("System.getenv(\"BUILD\")", true), ("findProperty(\"CODE\") ?: 1", true),
    ])
    func computedExpressions(_ expression: String, _ computes: Bool) {
        #expect(GradleComputedValue.computes(expression) == computes, "\(expression)")
    }

    @Test("only variables joined by dots make a template of parts", arguments: [
        ("${versionMajor}.${versionMinor}.${versionPatch}", ["versionMajor", "versionMinor", "versionPatch"]),
        ("$major.$minor", ["major", "minor"]),
        ("${major}.${minor}-beta", nil), ("${major}.${minor}.0", nil), ("v${major}", nil), ("${rootProject.ext.major}", nil),
    ] as [(String, [String]?)])
    func templates(_ template: String, _ names: [String]?) {
        #expect(GradleVersionParts.templateNames(template) == names)
    }

    @Test func aPartReadByTwoFlavoursIsWrittenOnce() throws {
        let script = """
            def versionMajor = 4
            def versionMinor = 9
            android {
                defaultConfig {
                    versionCode versionMajor * 100 + versionMinor
                    versionName "${versionMajor}.${versionMinor}"
                }
                productFlavors {
                    free {
                        versionName "$versionMajor.$versionMinor"
                    }
                }
            }

            """
        let format = GradleVersionFormat()
        let reading = try format.read(Data(script.utf8))
        #expect(reading.text == "4.9" && reading.build == .literal("409"))
        let rewritten = try format.rewritten(Data(script.utf8), version: SemanticVersion(unchecked: 5, 0, 0), build: nil)
        #expect(String(decoding: rewritten, as: UTF8.self) == script
            .replacingOccurrences(of: "def versionMajor = 4", with: "def versionMajor = 5")
            .replacingOccurrences(of: "def versionMinor = 9", with: "def versionMinor = 0"))
        #expect(try format.read(rewritten).build == .literal("500"))
    }

    @Test("a tag names its style, or is no version tag", arguments: [
        ("v1.2.3", "v", 3), ("2.1.5", "", 3), ("7.76", "", 2), ("v7.76", "v", 2), ("v2.0.0-rc.1", "v", 3),
        ("nightly", nil, nil), ("release-1.2.0", nil, nil), ("v1", nil, nil), ("1.2.3.4", nil, nil),
    ] as [(String, String?, Int?)])
    func tagStyles(_ tag: String, _ prefix: String?, _ numbers: Int?) {
        let style = ReleaseTagStyle(tag: tag)
        #expect(style?.prefix == prefix && style?.numbers == numbers, "\(tag)")
    }

    @Test("a version is written with as many numbers as the tags have, or more when it needs them", arguments: [
        (2, "7.77.0", "7.77"), (2, "7.77.1", "7.77.1"), (3, "2.4.0", "2.4.0"), (2, "2.0.0-beta.1", "2.0.0-beta.1"),
    ])
    func tagText(_ numbers: Int, _ version: String, _ expected: String) throws {
        var style = ReleaseTagStyle()
        style.numbers = numbers
        let semantic = try SemanticVersion(parsing: version)
        #expect(style.text(for: semantic, shown: version) == expected)
    }

    @Test("a tag keeps the zeros the files write for this version, and only for it", arguments: [
        (3, "26.07.6", "26.07.6"), (2, "26.08", "26.08"), (3, "26.08", "26.08.0"), (3, "26.07.5", "26.7.6"), (3, "26.7.6", "26.7.6"),
    ])
    func paddedTagText(_ numbers: Int, _ shown: String, _ expected: String) {
        var style = ReleaseTagStyle()
        style.numbers = numbers
        let version = shown == "26.07.5" ? SemanticVersion(unchecked: 26, 7, 6) : (try? VersionShape.apple.parse(shown)) ?? SemanticVersion(unchecked: 0, 0, 0)
        #expect(style.text(for: version, shown: shown) == expected, "\(shown)")
    }
}
