import Foundation
import Testing
@testable import Shiplane

@Suite("Info.plist versions", .offThePool)
struct InfoPlistVersionFormatTests {
    static func xml(version: String, build: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>CFBundleShortVersionString</key>
            <string>\(version)</string>
            <key>CFBundleVersion</key>
            <string>\(build)</string>
        </dict>
        </plist>

        """
    }

    @Test func variablesAreDelegatedNotEdited() throws {
        let text = Self.xml(version: "$(MARKETING_VERSION)", build: "$(CURRENT_PROJECT_VERSION)")
        let reading = try InfoPlistVersionFormat().read(Data(text.utf8))
        #expect(reading.version == .delegated(variable: "MARKETING_VERSION"))
        #expect(reading.build == .delegated(variable: "CURRENT_PROJECT_VERSION"))
        #expect(reading.version.description.contains("delegated to build settings"))
        let rewritten = try InfoPlistVersionFormat().rewritten(Data(text.utf8), version: SemanticVersion(unchecked: 2, 0, 0), build: "5")
        #expect(rewritten == Data(text.utf8))
    }

    @Test func malformedPlistsAreReported() throws {
        let text = Self.xml(version: "1.0.0", build: "1").replacingOccurrences(of: "</dict>", with: "")
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try InfoPlistVersionFormat().read(Data(text.utf8)) }
        #expect(error?.kind == .malformed)
        #expect(error?.message.contains("not a valid property list") == true)
    }

    @Test func aPlistWithoutTheKeyIsNotASource() throws {
        let text = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>CFBundleName</key><string>A</string></dict></plist>\n"
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try InfoPlistVersionFormat().read(Data(text.utf8)) }
        #expect(error?.kind == .notASource)
    }

    @Test func binaryPlistsAreRewrittenThroughPropertyListSerialization() throws {
        let original: [String: Any] = [
            "CFBundleShortVersionString": "1.4.2",
            "CFBundleVersion": "42",
            "CFBundleName": "Example",
            "LSRequiresIPhoneOS": true,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: original, format: .binary, options: 0)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let format = InfoPlistVersionFormat()
        #expect(try format.read(data) == VersionReading(version: .literal(SemanticVersion(unchecked: 1, 4, 2)), build: .literal("42")))

        let rewritten = try format.rewritten(data, version: SemanticVersion(unchecked: 2, 0, 0), build: "43")
        #expect(rewritten.starts(with: Array("bplist00".utf8)))
        var readFormat = PropertyListSerialization.PropertyListFormat.xml
        let back = try #require(try PropertyListSerialization.propertyList(from: rewritten, options: [], format: &readFormat) as? [String: Any])
        #expect(readFormat == .binary)
        #expect(back["CFBundleShortVersionString"] as? String == "2.0.0")
        #expect(back["CFBundleVersion"] as? String == "43")
        #expect(back["CFBundleName"] as? String == "Example")
        #expect(back["LSRequiresIPhoneOS"] as? Bool == true)
    }

    @Test func binaryPlistWithoutBuildKeyRejectsABuild() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: ["CFBundleShortVersionString": "1.0.0"], format: .binary, options: 0)
        let error = VersioningTestSupport.error(VersionFileError.self) {
            _ = try InfoPlistVersionFormat().rewritten(data, version: nil, build: "2")
        }
        #expect(error?.message.contains("CFBundleVersion") == true)
    }
}
