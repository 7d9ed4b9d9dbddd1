import Foundation
import Testing
@testable import Shiplane

/// The network-free checks of `pod spec lint` that `pushPodspec` runs before sending anything.
@Suite("CocoaPods: pod spec lint's checks that need no network", .offThePool)
struct PodspecLintTests {
    static var good: [String: Any] { [
        "name": "Rocket", "version": "1.2.0-beta.1", "summary": "Rockets.", "description": "Rockets, and how to fly them.",
        "homepage": "https://github.com/acme/rocket", "license": ["type": "MIT", "file": "LICENSE"], "authors": ["Acme": "dev@acme.test"],
        "source": ["git": "https://github.com/acme/rocket.git", "tag": "v1.2.0-beta.1"], "platforms": ["ios": "13.0", "osx": "10.15"],
        "swift_versions": ["5.9"],
    ] }

    @Test func aGoodSpecHasNoProblems() {
        #expect(Podspec.lintProblems(Self.good, shown: "Rocket.podspec").isEmpty)
        #expect(Podspec.lintProblems(Self.good, shown: "specs/Rocket.podspec.json").isEmpty)
    }

    /// Every problem named at once, each saying what is wrong.
    @Test func everyProblemIsNamedAtOnce() {
        var spec = Self.good
        spec["name"] = "My Rocket"
        spec["version"] = "1.2"
        spec["summary"] = String(repeating: "s", count: 141)
        spec["description"] = "short"
        spec["homepage"] = "github.com/acme/rocket"
        spec["license"] = ["file": "LICENSE"]
        spec["source"] = ["git": "https://github.com/acme/rocket.git", "http": "https://x.test/r.zip"]
        spec["platforms"] = ["ios": "thirteen", "android": "1"]
        spec["swift_versions"] = ["5.x"]
        let problems = Podspec.lintProblems(spec, shown: "Rocket.podspec")
        for expected in [
            "the name My Rocket contains whitespace", "does not match its file's name Rocket", "the summary is 141 characters",
            "the description is shorter than the summary", "the homepage github.com/acme/rocket is not an http(s) URL",
            "the license has no type", "the source names more than one location", "the git source names no tag",
            "the ios deployment target thirteen is not a version", "android is not a platform CocoaPods knows",
            "the swift version 5.x is not a version",
        ] {
            #expect(problems.contains { $0.contains(expected) }, "\(expected) in \(problems)")
        }
        #expect(!problems.contains { $0.contains("the version") }, "1.2 is a version: \(problems)")
        spec["version"] = "v1.2.0"
        #expect(Podspec.lintProblems(spec, shown: "Rocket.podspec").contains { $0.contains("the version v1.2.0 is not a version CocoaPods reads") })
    }
}
