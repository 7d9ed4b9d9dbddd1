import Foundation
import Testing
@testable import Shiplane

@Suite("VersionBump", .offThePool)
struct VersionBumpTests {
    static let parsed: [(String, VersionBump)] = [
        ("major", .major), ("Minor", .minor), ("PATCH", .patch), ("auto", .auto), ("release", .release),
        ("pre:beta", .prerelease("beta")), ("prerelease:rc", .prerelease("rc")), ("pre alpha", .prerelease("alpha")),
        ("2.0.0", .exact(SemanticVersion(unchecked: 2, 0, 0))),
        ("v2.0.0-rc.1", .exact(SemanticVersion(unchecked: 2, 0, 0, prerelease: ["rc", "1"]))),
    ]

    @Test("parses arguments", arguments: parsed)
    func parses(_ text: String, _ expected: VersionBump) throws {
        #expect(try VersionBump(parsing: text) == expected)
        #expect(VersionBump(argument: text) == expected)
        #expect(VersionBump(argument: expected.description) == expected)
    }

    @Test func versionLikeTextExplainsTheSemVerProblem() throws {
        let error = VersioningTestSupport.error(VersionBumpParseError.self) { _ = try VersionBump(parsing: "1.2") }
        #expect(error?.message.contains("MAJOR.MINOR.PATCH") == true)
        #expect(error?.suggestion?.contains("1.2.0") == true)
        #expect(error?.underlyingErrors.first is SemanticVersionParseError)
        #expect(VersionBump(argument: "1.2") == nil)
    }

    @Test(arguments: ["bigger", "", "pre:", "pre:1", "mayor"])
    func unknownWordsListTheChoices(_ text: String) throws {
        let error = VersioningTestSupport.error(VersionBumpParseError.self) { _ = try VersionBump(parsing: text) }
        let suggestion = try #require(error?.suggestion)
        #expect(suggestion.contains("major") || suggestion.contains("alpha, beta or rc"))
    }

    @Test func appliesToACurrentVersion() throws {
        let current = try SemanticVersion(parsing: "1.3.0-beta.1")
        let never: () throws -> BumpLevel = {
            Issue.record("the automatic level must only be asked for .auto")
            return .major
        }
        #expect(try VersionBump.minor.apply(to: current, automaticLevel: never).description == "1.3.0")
        #expect(try VersionBump.release.apply(to: current, automaticLevel: never).description == "1.3.0")
        #expect(try VersionBump.prerelease("beta").apply(to: current, automaticLevel: never).description == "1.3.0-beta.2")
        #expect(try VersionBump.auto.apply(to: current, automaticLevel: { .major }).description == "2.0.0")
        // From a release, `pre NAME` takes its level from the commits, and a patch when none releases.
        let release = try SemanticVersion(parsing: "2.13.1")
        #expect(try VersionBump.prerelease("beta").apply(to: release, automaticLevel: { .minor }).description == "2.14.0-beta.0")
        #expect(try VersionBump.prerelease("rc").apply(to: release, automaticLevel: { throw NothingToRelease(lastTag: "v2.13.1", commitCount: 1) }).description == "2.13.2-rc.0")
        #expect(try VersionBump.exact(SemanticVersion(parsing: "1.3.0")).apply(to: current, automaticLevel: never).description == "1.3.0")
        #expect(throws: VersionOperationError.self) {
            try VersionBump.exact(SemanticVersion(parsing: "1.2.0")).apply(to: current, automaticLevel: never)
        }
    }
}
