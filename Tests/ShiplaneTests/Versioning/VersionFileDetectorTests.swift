import Foundation
import Testing
@testable import Shiplane

@Suite("Version file detection", .offThePool)
struct VersionFileDetectorTests {
    typealias Support = VersioningTestSupport

    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleShortVersionString</key><string>VALUE</string>
        </dict></plist>

        """

    @Test func findsEveryKindOfFile() throws {
        try Support.withTemporaryDirectory { root in
            try Support.write("1.0.0\n", to: "VERSION", in: root)
            try Support.write(#"{"name":"a","version":"1.0.0"}"#, to: "package.json", in: root)
            try Support.write("[package]\nversion = \"1.0.0\"\n", to: "Cargo.toml", in: root)
            try Support.write("[project]\nversion = \"1.0.0\"\n", to: "pyproject.toml", in: root)
            try Support.write("Pod::Spec.new do |s|\n  s.version = '1.0.0'\nend\n", to: "A.podspec", in: root)
            try Support.write("MARKETING_VERSION = 1.0.0\n", to: "Version.xcconfig", in: root)
            try Support.write("SWIFT_VERSION = 5.0\n", to: "Other.xcconfig", in: root)
            try Support.write("MARKETING_VERSION = 1.0.0;\n", to: "App.xcodeproj/project.pbxproj", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "1.0.0"), to: "App/Info.plist", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "$(MARKETING_VERSION)"), to: "App/Sub/Info.plist", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "9.9.9"), to: "A/B/C/Info.plist", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "9.9.9"), to: "node_modules/x/Info.plist", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "9.9.9"), to: "Pods/Info.plist", in: root)
            try Support.write("public let version = \"1.0.0\"\n", to: "Sources/Kit/Version.swift", in: root)
            try Support.write("let version = \"9.9.9\"\n", to: "Sources/Kit/Other.swift", in: root)

            let files = try VersionFileDetector.detect(in: root)
            #expect(files.map(\.displayPath) == [
                "A.podspec", "App.xcodeproj/project.pbxproj", "App/Info.plist", "App/Sub/Info.plist", "Cargo.toml",
                "Sources/Kit/Version.swift", "VERSION", "Version.xcconfig", "package.json", "pyproject.toml",
            ])
            let agreed = try AgreedVersion.read(files)
            #expect(agreed.version == SemanticVersion(unchecked: 1, 0, 0))
            #expect(agreed.delegated.map(\.displayPath) == ["App/Sub/Info.plist"])
            #expect(agreed.sources.count == files.count)
        }
    }

    @Test func nothingFoundNamesEveryPlaceLookedAt() throws {
        try Support.withTemporaryDirectory { root in
            try Support.write("[package]\nversion.workspace = true\n", to: "Cargo.toml", in: root)
            let error = Support.error(VersionFileError.self) { _ = try VersionFileDetector.detect(in: root) }
            #expect(error?.kind == .notFound)
            let looked = error?.info.filter { $0.key == "looked for" }.map(\.value) ?? []
            #expect(looked == VersionFileDetector.searchedLocations)
            for name in ["VERSION", "package.json", "Cargo.toml", "pyproject.toml", "*.podspec", "*.xcconfig", "project.pbxproj", "Info.plist", "Sources/*/Version.swift"] {
                #expect(looked.contains { $0.contains(name) }, "missing \(name)")
            }
            #expect(error?.info.contains { $0.key == "skipped Cargo.toml" && $0.value.contains("workspace") } == true)
        }
    }

    @Test func disagreementListsEveryFileAndItsVersion() throws {
        try Support.withTemporaryDirectory { root in
            try Support.write("1.0.0\n", to: "VERSION", in: root)
            try Support.write(#"{"version":"1.1.0"}"#, to: "package.json", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "1.0.0"), to: "App/Info.plist", in: root)
            try Support.write(Self.plist.replacingOccurrences(of: "VALUE", with: "$(MARKETING_VERSION)"), to: "Ext/Info.plist", in: root)

            let files = try VersionFileDetector.detect(in: root)
            let error = Support.error(VersionFileError.self) { _ = try AgreedVersion.read(files) }
            #expect(error?.kind == .disagreement)
            #expect(error?.message.contains("disagree on the version") == true)
            let listed = Dictionary(uniqueKeysWithValues: (error?.info ?? []).map { ($0.key, $0.value) })
            #expect(listed["VERSION"] == "version 1.0.0")
            #expect(listed["package.json"] == "version 1.1.0")
            #expect(listed["App/Info.plist"] == "version 1.0.0")
            #expect(listed["Ext/Info.plist"]?.contains("delegated") == true)
        }
    }

    @Test func unreadableFilesAreAllReported() throws {
        try Support.withTemporaryDirectory { root in
            try Support.write("1.2\n", to: "VERSION", in: root)
            try Support.write(#"{"version":"01.0.0"}"#, to: "package.json", in: root)
            let files = try VersionFileDetector.detect(in: root)
            let error = Support.error(VersionFileError.self) { _ = try AgreedVersion.read(files) }
            #expect(error?.message.contains("2 version files cannot be read") == true)
            let files2 = (error?.underlyingErrors ?? []).compactMap { ($0 as? VersionFileError)?.file }
            #expect(files2.sorted() == ["VERSION", "package.json"])
        }
    }

    @Test func writeIsAtomicKeepsPermissionsAndReturnsTheOriginal() throws {
        try Support.withTemporaryDirectory { root in
            try Support.write("[package]\r\nversion = \"1.0.0\"\r\n", to: "Cargo.toml", in: root)
            let url = root.appendingPathComponent("Cargo.toml")
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
            let file = VersionFile(url: url, format: CargoVersionFormat())
            let previous = try file.write(version: SemanticVersion(unchecked: 1, 1, 0), build: nil)
            #expect(previous == Data("[package]\r\nversion = \"1.0.0\"\r\n".utf8))
            #expect(try Data(contentsOf: url) == Data("[package]\r\nversion = \"1.1.0\"\r\n".utf8))
            let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(permissions == 0o640)
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["Cargo.toml"])
        }
    }
}
