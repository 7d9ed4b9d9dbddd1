import Foundation
import ShiplaneTesting
import Testing

@Suite("incrementBuildNumber: next, value, commit count and timestamp, in every file at once", .offThePool)
struct BuildNumberChangeTests {
    static let files = [
        "pubspec.yaml": "name: a\nversion: 1.2.0+41 # store build\n",
        "ios/App.xcodeproj/project.pbxproj": "// !$*UTF8*$!\n{\n\tobjects = {\n\t\tA00000000000000000000001 /* Release */ = {\n\t\t\tisa = XCBuildConfiguration;\n\t\t\tbuildSettings = {\n\t\t\t\tCURRENT_PROJECT_VERSION = 41;\n\t\t\t\tMARKETING_VERSION = 1.2.0;\n\t\t\t};\n\t\t};\n\t\tA00000000000000000000002 /* Project object */ = {\n\t\t\tisa = PBXProject;\n\t\t\ttargets = (\n\t\t\t);\n\t\t};\n\t};\n\trootObject = A00000000000000000000002 /* Project object */;\n}\n",
        "android/app/build.gradle": "android {\n    defaultConfig {\n        applicationId \"a.b\"\n        versionCode 41\n        versionName \"1.2.0\"\n    }\n}\n",
    ]

    func context(_ fixture: FixtureRepository, now: Date = Date()) -> LaneContext {
        LaneContext(.init(workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]), reporter: RecordingReporter(), now: { now }))
    }

    func read(_ fixture: FixtureRepository, _ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: fixture.path + "/" + path) ?? Data(), as: UTF8.self)
    }

    @Test func nextWritesEveryFileInOneChangeSet() throws {
        let fixture = try FixtureRepository(files: Self.files)
        let result = try context(fixture).incrementBuildNumber(.next)
        #expect(result.build == "42")
        #expect(result.fileChanges.map(\.displayPath).sorted() == ["android/app/build.gradle", "ios/App.xcodeproj/project.pbxproj", "pubspec.yaml"])
        #expect(read(fixture, "pubspec.yaml") == "name: a\nversion: 1.2.0+42 # store build\n")
        #expect(read(fixture, "android/app/build.gradle").contains("        versionCode 42\n"))
        #expect(read(fixture, "ios/App.xcodeproj/project.pbxproj").contains("CURRENT_PROJECT_VERSION = 42;"))
    }

    @Test func aValueIsWrittenAndALowerOneRefusedWhereGooglePlayReadsIt() throws {
        let fixture = try FixtureRepository(files: Self.files)
        #expect(try context(fixture).incrementBuildNumber(.value(100)).build == "100")
        #expect(throws: (any Error).self) { try context(fixture).incrementBuildNumber(.value(99)) }
        #expect(read(fixture, "pubspec.yaml").contains("+100"))
    }

    @Test func aTimestampIsUTCYearDayHourMinuteAndFitsAVersionCode() throws {
        // 2026-11-25 17:44:00 UTC
        let date = Date(timeIntervalSince1970: 1_795_628_640)
        #expect(BuildNumberChange.timestamp(date) == "263291744")
        let fixture = try FixtureRepository(files: Self.files)
        #expect(try context(fixture, now: date).incrementBuildNumber(.timestamp).build == "263291744")
        #expect(read(fixture, "android/app/build.gradle").contains("versionCode 263291744\n"))
        // The last minute of 2099 still fits Google Play's limit.
        let last = Date(timeIntervalSince1970: 4_102_444_740)
        #expect(Int(BuildNumberChange.timestamp(last)).map { $0 <= 2_100_000_000 } == true)
    }

    @Test("build numbers compare as numbers", arguments: [
        ("9", "10", true), ("10", "9", false), ("2024.5.9", "2024.5.10", true), ("42", "42", false), ("0099", "100", true),
    ])
    func lowerIsNumeric(_ a: String, _ b: String, _ lower: Bool) {
        #expect(BuildNumber.isLower(a, than: b) == lower)
    }
}
