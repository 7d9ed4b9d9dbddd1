import Foundation
import Testing
@testable import Shiplane

@Suite("SemanticVersion parsing", .offThePool)
struct SemanticVersionParsingTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let text: String
        let major: Int, minor: Int, patch: Int
        let prerelease: [String]
        let build: [String]
        let canonical: String
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "0.0.0", major: 0, minor: 0, patch: 0, prerelease: [], build: [], canonical: "0.0.0"),
        Valid(text: "1.2.3", major: 1, minor: 2, patch: 3, prerelease: [], build: [], canonical: "1.2.3"),
        Valid(text: "v1.2.3", major: 1, minor: 2, patch: 3, prerelease: [], build: [], canonical: "1.2.3"),
        Valid(text: "V10.20.30", major: 10, minor: 20, patch: 30, prerelease: [], build: [], canonical: "10.20.30"),
        Valid(text: "1.0.0-alpha", major: 1, minor: 0, patch: 0, prerelease: ["alpha"], build: [], canonical: "1.0.0-alpha"),
        Valid(text: "1.0.0-alpha.1", major: 1, minor: 0, patch: 0, prerelease: ["alpha", "1"], build: [], canonical: "1.0.0-alpha.1"),
        Valid(text: "1.0.0-0.3.7", major: 1, minor: 0, patch: 0, prerelease: ["0", "3", "7"], build: [], canonical: "1.0.0-0.3.7"),
        Valid(text: "1.0.0-x.7.z.92", major: 1, minor: 0, patch: 0, prerelease: ["x", "7", "z", "92"], build: [], canonical: "1.0.0-x.7.z.92"),
        Valid(text: "1.0.0-x-y-z.--", major: 1, minor: 0, patch: 0, prerelease: ["x-y-z", "--"], build: [], canonical: "1.0.0-x-y-z.--"),
        Valid(text: "1.0.0-0A.is.legal", major: 1, minor: 0, patch: 0, prerelease: ["0A", "is", "legal"], build: [], canonical: "1.0.0-0A.is.legal"),
        Valid(text: "1.0.0+20130313144700", major: 1, minor: 0, patch: 0, prerelease: [], build: ["20130313144700"], canonical: "1.0.0+20130313144700"),
        Valid(text: "1.0.0-beta+exp.sha.5114f85", major: 1, minor: 0, patch: 0, prerelease: ["beta"], build: ["exp", "sha", "5114f85"], canonical: "1.0.0-beta+exp.sha.5114f85"),
        Valid(text: "1.0.0+21AF26D3----117B344092BD", major: 1, minor: 0, patch: 0, prerelease: [], build: ["21AF26D3----117B344092BD"], canonical: "1.0.0+21AF26D3----117B344092BD"),
        Valid(text: "1.0.0+001", major: 1, minor: 0, patch: 0, prerelease: [], build: ["001"], canonical: "1.0.0+001"),
        Valid(text: "1.2.3----RC-SNAPSHOT.12.9.1--.12+788", major: 1, minor: 2, patch: 3, prerelease: ["---RC-SNAPSHOT", "12", "9", "1--", "12"], build: ["788"], canonical: "1.2.3----RC-SNAPSHOT.12.9.1--.12+788"),
        Valid(text: "9223372036854775807.0.0", major: Int.max, minor: 0, patch: 0, prerelease: [], build: [], canonical: "9223372036854775807.0.0"),
        Valid(text: "1.0.0-rc.99999999999999999999999", major: 1, minor: 0, patch: 0, prerelease: ["rc", "99999999999999999999999"], build: [], canonical: "1.0.0-rc.99999999999999999999999"),
    ]

    @Test("parses valid versions", arguments: valid)
    func parsesValid(_ example: Valid) throws {
        let version = try SemanticVersion(parsing: example.text)
        #expect(version.major == example.major)
        #expect(version.minor == example.minor)
        #expect(version.patch == example.patch)
        #expect(version.prerelease == example.prerelease)
        #expect(version.buildMetadata == example.build)
        #expect(version.description == example.canonical)
        #expect(try SemanticVersion(parsing: version.description) == version)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let text: String
        let fragments: [String]
        var suggestion: String? = nil
        var testDescription: String { text.debugDescription }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", fragments: ["empty"]),
        Invalid(text: "v", fragments: ["not a semantic version", "MAJOR.MINOR.PATCH", "has 0"]),
        Invalid(text: "1.2", fragments: ["'1.2' is not a semantic version", "MAJOR.MINOR.PATCH", "has 2"], suggestion: "1.2.0"),
        Invalid(text: "1", fragments: ["MAJOR.MINOR.PATCH"], suggestion: "1.0.0"),
        Invalid(text: "v1.2-beta.1", fragments: ["MAJOR.MINOR.PATCH"], suggestion: "1.2.0-beta.1"),
        Invalid(text: "1.2.3.4", fragments: ["exactly three numbers", "has 4"]),
        Invalid(text: "01.2.3", fragments: ["major number '01' has a leading zero"], suggestion: "1.2.3"),
        Invalid(text: "1.02.3", fragments: ["minor number '02' has a leading zero"], suggestion: "1.2.3"),
        Invalid(text: "1.2.00", fragments: ["patch number '00' has a leading zero"], suggestion: "1.2.0"),
        Invalid(text: "1.2.3-01", fragments: ["numeric prerelease identifier '01' has a leading zero"], suggestion: "1.2.3-1"),
        Invalid(text: "1.2.3-beta.007+b", fragments: ["'007' has a leading zero"], suggestion: "1.2.3-beta.7+b"),
        Invalid(text: "1..3", fragments: ["minor number is empty at position 3"]),
        Invalid(text: "1.2.", fragments: ["patch number is empty at position 5"]),
        Invalid(text: "1.2.3-", fragments: ["prerelease has an empty identifier at position 7"]),
        Invalid(text: "1.2.3-a..b", fragments: ["prerelease has an empty identifier at position 9"]),
        Invalid(text: "1.2.3+", fragments: ["build metadata has an empty identifier at position 7"]),
        Invalid(text: "1.2.3-beta_1", fragments: ["invalid character '_' at position 11 in the prerelease"]),
        Invalid(text: "1.2.3+a+b", fragments: ["invalid character '+' at position 8 in the build metadata"]),
        Invalid(text: "1.2.x", fragments: ["invalid character 'x' at position 5 in the patch number"]),
        Invalid(text: "a.b.c", fragments: ["invalid character 'a' at position 1 in the major number"]),
        Invalid(text: " 1.2.3", fragments: ["invalid character ' ' at position 1"]),
        Invalid(text: "1.2.3 ", fragments: ["invalid character ' ' at position 6 in the patch number"]),
        Invalid(text: "vv1.2.3", fragments: ["invalid character 'v' at position 2"]),
        Invalid(text: "1.2.3-bêta", fragments: ["invalid character 'ê' (U+00EA) at position 8 in the prerelease"]),
        Invalid(text: "1.2.3\n", fragments: ["U+000A at position 6"]),
        Invalid(text: "1.2.3\r\n", fragments: ["U+000D U+000A at position 6"]),
        Invalid(text: "١.2.3", fragments: ["U+0661", "position 1 in the major number"]),
        Invalid(text: "99999999999999999999.0.0", fragments: ["major number 99999999999999999999 is larger than the largest supported number"]),
        Invalid(text: "1.0.9223372036854775808", fragments: ["patch number 9223372036854775808 is larger"]),
        Invalid(text: "-1.2.3", fragments: ["MAJOR.MINOR.PATCH", "has 0"]),
    ]

    @Test("rejects invalid versions with a helpful message", arguments: invalid)
    func rejectsInvalid(_ example: Invalid) throws {
        let error = VersioningTestSupport.error(SemanticVersionParseError.self) {
            _ = try SemanticVersion(parsing: example.text)
        }
        let message = try #require(error?.message)
        for fragment in example.fragments {
            #expect(message.contains(fragment), "\(message.debugDescription) lacks \(fragment.debugDescription)")
        }
        if let expected = example.suggestion {
            #expect(error?.correction == expected)
            #expect(error?.suggestion?.contains(expected) == true)
        }
        #expect(SemanticVersion(example.text) == nil)
    }

    @Test func memberwiseInitialiserValidates() throws {
        #expect(try SemanticVersion(major: 1, minor: 2, patch: 3, prerelease: ["rc", "1"]).description == "1.2.3-rc.1")
        #expect(throws: SemanticVersionParseError.self) { try SemanticVersion(major: -1, minor: 0, patch: 0) }
        #expect(throws: SemanticVersionParseError.self) { try SemanticVersion(major: 1, minor: 0, patch: 0, prerelease: ["01"]) }
        #expect(throws: SemanticVersionParseError.self) { try SemanticVersion(major: 1, minor: 0, patch: 0, buildMetadata: ["a b"]) }
    }

    @Test func codableUsesTheStringForm() throws {
        let version = try SemanticVersion(parsing: "v2.1.0-rc.1+abc")
        let data = try JSONEncoder().encode([version])
        #expect(String(decoding: data, as: UTF8.self) == #"["2.1.0-rc.1+abc"]"#)
        #expect(try JSONDecoder().decode([SemanticVersion].self, from: data) == [version])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SemanticVersion].self, from: Data(#"["1.2"]"#.utf8)) }
    }
}
