import Foundation
import Testing
@testable import Shiplane

@Suite("Version shapes: Apple marketing versions and Android versionName keep their form", .offThePool)
struct VersionShapeTests {
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        \t<key>CFBundleShortVersionString</key>
        \t<string>VALUE</string>
        </dict></plist>

        """

    @Test("a two-number version grows only the numbers it needs", arguments: [
        ("1.0", BumpLevel.minor, "1.1"), ("1.0", .patch, "1.0.1"), ("1.0", .major, "2.0"),
        ("1", .major, "2"), ("1", .minor, "1.1"), ("2026.8.0", .patch, "2026.8.1"), ("2026.8.0", .minor, "2026.9.0"),
        // Zero-padded CalVer keeps its zeros (element-x-ios: 26.06.2 → 26.07.0, 26.07.4 → 26.07.5).
        ("26.07.5", .patch, "26.07.6"), ("26.07.5", .minor, "26.08.0"), ("26.09.1", .minor, "26.10.0"), ("26.07", .minor, "26.08"),
    ])
    func shapeIsKept(_ original: String, _ level: BumpLevel, _ expected: String) throws {
        let current = try VersionShape.apple.parse(original)
        #expect(VersionShape.apple.text(for: try current.bumped(level), replacing: original) == expected)
    }

    @Test func anInfoPlistAtOnePointZeroIsAVersionAndBumpsInItsShape() throws {
        let before = Data(Self.plist.replacingOccurrences(of: "VALUE", with: "1.0").utf8)
        let format = InfoPlistVersionFormat()
        let reading = try format.read(before)
        #expect(reading.version == .literal(SemanticVersion(unchecked: 1, 0, 0)))
        #expect(reading.text == "1.0")
        let minor = try format.rewritten(before, version: SemanticVersion(unchecked: 1, 1, 0), build: nil)
        #expect(minor == Data(Self.plist.replacingOccurrences(of: "VALUE", with: "1.1").utf8))
        let patch = try format.rewritten(before, version: SemanticVersion(unchecked: 1, 0, 1), build: nil)
        #expect(patch == Data(Self.plist.replacingOccurrences(of: "VALUE", with: "1.0.1").utf8))
    }

    @Test func theAppStoreRefusesPrereleasesAndTextThatIsNoVersion() throws {
        let before = Data(Self.plist.replacingOccurrences(of: "VALUE", with: "1.0").utf8)
        let error = VersioningTestSupport.error(VersionFileError.self) {
            _ = try InfoPlistVersionFormat().rewritten(before, version: try SemanticVersion(parsing: "1.1.0-beta.0"), build: nil)
        }
        #expect(error?.message.contains("App Store marketing versions are one to three integers") == true)
        for bad in ["1.0 beta", "1.2.3.4", "v1.0", "1.2.0-rc.1"] {
            let data = Data(Self.plist.replacingOccurrences(of: "VALUE", with: bad).utf8)
            let refused = VersioningTestSupport.error(VersionFileError.self) { _ = try InfoPlistVersionFormat().read(data) }
            #expect(refused?.kind == .invalidValue, "\(bad)")
        }
    }

    @Test func aVersionCodeMustBeAPlayVersionCode() throws {
        let gradle = Data("android {\n    defaultConfig {\n        versionCode 7\n        versionName \"1.0\"\n    }\n}\n".utf8)
        let format = GradleVersionFormat()
        #expect(try format.read(gradle).build == .literal("7"))
        for bad in ["1.2", "0", "2100000001"] {
            let error = VersioningTestSupport.error(VersionFileError.self) { _ = try format.rewritten(gradle, version: nil, build: bad) }
            #expect(error?.message.contains("Google Play takes a whole number") == true, "\(bad)")
        }
        #expect(String(decoding: try format.rewritten(gradle, version: nil, build: "8"), as: UTF8.self).contains("versionCode 8\n"))
    }
}
