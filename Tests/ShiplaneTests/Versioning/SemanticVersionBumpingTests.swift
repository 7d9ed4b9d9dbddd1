import Foundation
import Testing
@testable import Shiplane

@Suite("SemanticVersion bumping", .offThePool)
struct SemanticVersionBumpingTests {
    /// (from, level, expected): npm `semver.inc` results.
    static let npmBumps: [(String, BumpLevel, String)] = [
        ("1.2.3", .patch, "1.2.4"),
        ("1.2.3", .minor, "1.3.0"),
        ("1.2.3", .major, "2.0.0"),
        ("1.2.3+build.7", .patch, "1.2.4"),
        ("1.3.0-beta.2", .minor, "1.3.0"),
        ("1.3.0-beta.2", .patch, "1.3.0"),
        ("1.3.0-beta.2", .major, "2.0.0"),
        ("1.2.4-beta.1", .minor, "1.3.0"),
        ("1.2.4-beta.1", .patch, "1.2.4"),
        ("2.0.0-rc.1", .major, "2.0.0"),
        ("2.0.0-rc.1", .minor, "2.0.0"),
        ("2.1.0-rc.1", .major, "3.0.0"),
        ("0.0.0", .patch, "0.0.1"),
    ]

    @Test("bumps like npm semver.inc", arguments: npmBumps)
    func bumps(_ from: String, _ level: BumpLevel, _ expected: String) throws {
        #expect(try SemanticVersion(parsing: from).bumped(level).description == expected)
    }

    @Test func bumpingPastIntMaxIsAnErrorNotACrash() throws {
        let version = try SemanticVersion(parsing: "\(Int.max).\(Int.max).\(Int.max)")
        for level in BumpLevel.allCases {
            let error = VersioningTestSupport.error(VersionOperationError.self) { _ = try version.bumped(level) }
            #expect(error?.reason == .overflow(version, level))
            #expect(error?.message.contains("exceed") == true)
        }
    }

    /// (from, name, base, expected)
    static let prereleases: [(String, String, BumpLevel, String)] = [
        ("1.2.3", "beta", .patch, "1.2.4-beta.0"),
        ("1.2.3", "beta", .minor, "1.3.0-beta.0"),
        ("1.2.3", "rc", .major, "2.0.0-rc.0"),
        ("1.3.0-beta.1", "beta", .patch, "1.3.0-beta.2"),
        ("1.3.0-beta.9", "beta", .major, "1.3.0-beta.10"),
        ("1.3.0-alpha.3", "beta", .patch, "1.3.0-beta.0"),
        ("1.3.0-beta.2", "rc", .patch, "1.3.0-rc.0"),
        ("1.3.0-beta", "beta", .patch, "1.3.0-beta.0"),
        ("1.3.0-beta.x", "beta", .patch, "1.3.0-beta.x.0"),
        ("1.3.0-beta.99999999999999999999", "beta", .patch, "1.3.0-beta.100000000000000000000"),
        ("1.3.0-1", "alpha", .patch, "1.3.0-alpha.0"),
        ("1.2.3+meta", "beta", .patch, "1.2.4-beta.0"),
        ("1.3.0-beta.1+meta", "beta", .patch, "1.3.0-beta.2"),
    ]

    @Test("starts and advances prereleases", arguments: prereleases)
    func prerelease(_ from: String, _ name: String, _ base: BumpLevel, _ expected: String) throws {
        let current = try SemanticVersion(parsing: from)
        let next = try current.prerelease(name, base: base)
        #expect(next.description == expected)
        #expect(next > current)
    }

    @Test func prereleaseCannotGoBackwards() throws {
        let current = try SemanticVersion(parsing: "1.3.0-beta.2")
        let error = VersioningTestSupport.error(VersionOperationError.self) { _ = try current.prerelease("alpha") }
        #expect(error?.message.contains("go backwards") == true)
        #expect(error?.message.contains("1.3.0-alpha.0") == true)
        #expect(error?.suggestion?.contains("release 1.3.0") == true)
    }

    @Test(arguments: ["", "1", "be.ta", "bêta", "beta 2", "rc+1"])
    func prereleaseNamesMustBeOneAlphanumericIdentifier(_ name: String) throws {
        let error = VersioningTestSupport.error(VersionOperationError.self) {
            _ = try SemanticVersion(parsing: "1.0.0").prerelease(name)
        }
        #expect(error?.reason == .invalidPrereleaseName(name))
    }

    @Test func releasedDropsThePrerelease() throws {
        #expect(try SemanticVersion(parsing: "1.3.0-rc.2+abc").released().description == "1.3.0")
        let error = VersioningTestSupport.error(VersionOperationError.self) {
            _ = try SemanticVersion(parsing: "1.3.0+abc").released()
        }
        #expect(error?.message.contains("not a prerelease") == true)
    }
}
