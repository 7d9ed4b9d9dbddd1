import Foundation
import Testing
@testable import Shiplane

@Suite("Version file formats", .offThePool)
struct VersionFormatTests {
    func read(_ format: some VersionFormat, _ text: String) throws -> VersionReading {
        try format.read(Data(text.utf8))
    }

    func rewrite(_ format: some VersionFormat, _ text: String, _ version: String?, build: String? = nil) throws -> String {
        let data = try format.rewritten(Data(text.utf8), version: try version.map { try SemanticVersion(parsing: $0) }, build: build)
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: - VERSION

    @Test(arguments: ["1.2.3", "1.2.3\n", "  1.2.3\r\n\r\n", "\n1.2.3 \t"])
    func versionFileKeepsSurroundingWhitespace(_ text: String) throws {
        #expect(try read(PlainVersionFormat(), text).version == .literal(SemanticVersion(unchecked: 1, 2, 3)))
        #expect(try rewrite(PlainVersionFormat(), text, "1.3.0-rc.1") == text.replacingOccurrences(of: "1.2.3", with: "1.3.0-rc.1"))
    }

    @Test func versionFileErrors() throws {
        // An empty VERSION is an error, never "no version here" (that fell back to tags).
        let empty = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PlainVersionFormat(), " \n") }
        #expect(empty?.kind == .invalidValue)
        #expect(empty?.message == "The VERSION file is empty")
        let invalid = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PlainVersionFormat(), "1.2\n") }
        #expect(invalid?.kind == .invalidValue)
        #expect(invalid?.suggestion?.contains("1.2.0") == true)
        #expect(invalid?.underlyingErrors.first is SemanticVersionParseError)
    }

    // MARK: - Swift

    @Test(arguments: [
        #"let version = "1.2.3""#,
        #"public static let version = "1.2.3" // marketing"#,
        #"    var appVersion: String = "1.2.3""#,
        #"@MainActor public static var SDKVersion = "1.2.3""#,
    ])
    func swiftConstants(_ line: String) throws {
        #expect(try read(SwiftConstantVersionFormat(), line).version == .literal(SemanticVersion(unchecked: 1, 2, 3)))
        #expect(try rewrite(SwiftConstantVersionFormat(), line, "2.0.0") == line.replacingOccurrences(of: "1.2.3", with: "2.0.0"))
    }

    @Test func swiftConstantsThatDisagreeAreListed() throws {
        let text = "let appVersion = \"1.2.3\"\nlet sdkVersion = \"1.0.0\"\n"
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try read(SwiftConstantVersionFormat(), text) }
        #expect(error?.kind == .inconsistent)
        #expect(error?.info.map(\.key) == ["appVersion (line 1)", "sdkVersion (line 2)"])
        let none = VersioningTestSupport.error(VersionFileError.self) { _ = try read(SwiftConstantVersionFormat(), "let name = \"x\"\n") }
        #expect(none?.kind == .notASource)
    }

    // MARK: - Xcode

    @Test func pbxprojConfigurationsThatDisagreeAreListed() throws {
        let text = try String(decoding: VersioningTestSupport.fixture("pbxproj/before.pbxproj"), as: UTF8.self)
            .replacingOccurrences(of: "MARKETING_VERSION = \"1.4.2\";", with: "MARKETING_VERSION = 1.5.0;")
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try read(XcodeProjectVersionFormat(), text) }
        #expect(error?.kind == .inconsistent)
        #expect(error?.info.map(\.key) == ["Debug MARKETING_VERSION (line 12)", "Release MARKETING_VERSION (line 22)"])
        #expect(error?.info.map(\.value) == ["1.4.2", "1.5.0"])
        #expect(throws: VersionFileError.self) { _ = try rewrite(XcodeProjectVersionFormat(), text, "2.0.0") }
    }

    @Test func pbxprojQuotesValuesThatNeedItAndRefusesWhatTheAppStoreRefuses() throws {
        let text = "\t\t\t\tMARKETING_VERSION = 1.0.0;\n"
        // A marketing version is one to three integers: a prerelease cannot be written at all.
        let refused = VersioningTestSupport.error(VersionFileError.self) { _ = try rewrite(XcodeProjectVersionFormat(), text, "1.1.0-beta.1") }
        #expect(refused?.kind == .invalidValue)
        #expect(try rewrite(XcodeProjectVersionFormat(), text, "1.1.0") == "\t\t\t\tMARKETING_VERSION = 1.1.0;\n")
        let delegated = "\t\t\t\tMARKETING_VERSION = 1.0.0;\n\t\t\t\tCURRENT_PROJECT_VERSION = 7;\n"
        #expect(try rewrite(XcodeProjectVersionFormat(), delegated, nil, build: "2024.5.1") == "\t\t\t\tMARKETING_VERSION = 1.0.0;\n\t\t\t\tCURRENT_PROJECT_VERSION = 2024.5.1;\n")
    }

    @Test func xcconfigDelegationAndBuildErrors() throws {
        let delegated = "MARKETING_VERSION = $(APP_VERSION)\nCURRENT_PROJECT_VERSION = 7\n"
        #expect(try read(XcconfigVersionFormat(), delegated).version == .delegated(variable: "APP_VERSION"))
        #expect(try rewrite(XcconfigVersionFormat(), delegated, "2.0.0", build: "8") == "MARKETING_VERSION = $(APP_VERSION)\nCURRENT_PROJECT_VERSION = 8\n")
        let noBuild = "MARKETING_VERSION = 1.0.0\n"
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try rewrite(XcconfigVersionFormat(), noBuild, nil, build: "3") }
        #expect(error?.message.contains("CURRENT_PROJECT_VERSION") == true)
        #expect(throws: BuildNumberError.self) { _ = try rewrite(XcconfigVersionFormat(), delegated, nil, build: "7b") }
    }

    // MARK: - package.json

    @Test func packageJSONIgnoresNestedVersions() throws {
        let text = #"{"dependencies":{"version":"9.9.9"},"config":[{"version":"8.8.8"}],"version":"1.0.0"}"#
        #expect(try read(PackageJSONVersionFormat(), text).version == .literal(SemanticVersion(unchecked: 1, 0, 0)))
        #expect(try rewrite(PackageJSONVersionFormat(), text, "1.1.0") == text.replacingOccurrences(of: #""version":"1.0.0""#, with: #""version":"1.1.0""#))
    }

    @Test func packageJSONErrors() throws {
        let nested = VersioningTestSupport.error(VersionFileError.self) {
            _ = try read(PackageJSONVersionFormat(), #"{"name":"x","dependencies":{"version":"1.0.0"}}"#)
        }
        #expect(nested?.kind == .notASource)
        let malformed = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PackageJSONVersionFormat(), #"{"version": "1.0.0""#) }
        #expect(malformed?.kind == .malformed)
        let number = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PackageJSONVersionFormat(), #"{"version": 1}"#) }
        #expect(number?.message.contains("not a string") == true)
    }

    // MARK: - TOML

    @Test func cargoWorkspaceInheritanceIsNotASource() throws {
        for text in ["[package]\nname = \"a\"\nversion.workspace = true\n", "[package]\nversion = { workspace = true }\n"] {
            let error = VersioningTestSupport.error(VersionFileError.self) { _ = try read(CargoVersionFormat(), text) }
            #expect(error?.kind == .notASource)
            #expect(error?.message.contains("inherited from the workspace") == true)
        }
        let workspace = "[workspace]\nmembers = [\"a\"]\n\n[workspace.package]\nversion = \"0.3.0\"\n"
        #expect(try read(CargoVersionFormat(), workspace).version == .literal(SemanticVersion(unchecked: 0, 3, 0)))
        #expect(try rewrite(CargoVersionFormat(), workspace, "0.4.0") == workspace.replacingOccurrences(of: "0.3.0", with: "0.4.0"))
    }

    @Test func pyprojectDynamicVersionIsNotASource() throws {
        for text in ["[project]\nname = \"a\"\ndynamic = [\"version\"]\n", "[project]\ndynamic = [\n  \"readme\",\n  'version',\n]\nversion = \"1.0.0\"\n"] {
            let error = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PyprojectVersionFormat(), text) }
            #expect(error?.kind == .notASource)
            #expect(error?.message.contains("dynamic") == true)
        }
        let poetry = "[tool.poetry]\nname = \"a\"\nversion = \"0.1.0\"\n"
        #expect(try read(PyprojectVersionFormat(), poetry).version == .literal(SemanticVersion(unchecked: 0, 1, 0)))
        let pep440 = VersioningTestSupport.error(VersionFileError.self) { _ = try read(PyprojectVersionFormat(), "[project]\nversion = \"1.0rc1\"\n") }
        #expect(pep440?.kind == .invalidValue)
    }

    // MARK: - Podspec and pattern

    @Test func podspecAnyReceiver() throws {
        let text = "Pod::Spec.new do |pod|\n  pod.version = \"3.1.4\"\nend\n"
        #expect(try rewrite(PodspecVersionFormat(), text, "3.2.0") == text.replacingOccurrences(of: "3.1.4", with: "3.2.0"))
    }

    @Test func patternErrors() throws {
        let noGroup = VersioningTestSupport.error(VersionFileError.self) { _ = try PatternVersionFormat(pattern: #"version: \S+"#) }
        #expect(noGroup?.message.contains("exactly one capture group") == true)
        #expect(noGroup?.message.contains("it has 0") == true)
        let twoGroups = VersioningTestSupport.error(VersionFileError.self) { _ = try PatternVersionFormat(pattern: #"(version): (\S+)"#) }
        #expect(twoGroups?.suggestion?.contains("(?:") == true)
        let broken = VersioningTestSupport.error(VersionFileError.self) { _ = try PatternVersionFormat(pattern: #"(unclosed"#) }
        #expect(broken?.message.contains("does not compile") == true)
        let format = try PatternVersionFormat(pattern: #"VERSION=(\S+)"#)
        let noMatch = VersioningTestSupport.error(VersionFileError.self) { _ = try read(format, "NAME=x\n") }
        #expect(noMatch?.kind == .pattern)
        #expect(noMatch?.info.contains { $0.value == #"VERSION=(\S+)"# } == true)
    }

    @Test func nonUTF8IsMalformed() throws {
        let error = VersioningTestSupport.error(VersionFileError.self) {
            _ = try PlainVersionFormat().read(Data([0x31, 0x2E, 0xFF, 0xFE]))
        }
        #expect(error?.kind == .malformed)
    }
}
