import Foundation
import Testing
@testable import Shiplane

/// Xcode configuration as Xcode resolves it: `#include` lines, per-configuration settings.
@Suite("Xcode configuration: includes and conditional settings", .offThePool)
struct XcodeConfigurationTests {
    func rewrite(_ format: some VersionFormat, _ text: String, _ version: String?, build: String? = nil) throws -> String {
        let data = try format.rewritten(Data(text.utf8), version: try version.map { try SemanticVersion(parsing: $0) }, build: build)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func includeLinesAreReadWithTheirLineAndWhetherTheyMayBeAbsent() {
        let text = "// settings\n#include \"Shared.xcconfig\"\n  #include? \"Local.xcconfig\" // optional\n#include\"../Deployment/Deployment.xcconfig\"\n#import \"Nope.xcconfig\"\nA = 1\n"
        #expect(XcconfigIncludes.includes(in: text) == [
            .init(path: "Shared.xcconfig", optional: false, line: 2),
            .init(path: "Local.xcconfig", optional: true, line: 3),
            .init(path: "../Deployment/Deployment.xcconfig", optional: false, line: 4),
        ])
    }

    @Test(arguments: ["Generated.xcconfig", "Pods/Target Support Files/Pods-App/Pods-App.release.xcconfig", "Pods-App.debug.xcconfig", "build/Signing.xcconfig"])
    func filesToolsWriteAreNotRequired(_ path: String) {
        #expect(XcconfigIncludes.isWrittenByATool(path))
    }

    @Test func aFileOfTheProjectIsRequired() {
        #expect(!XcconfigIncludes.isWrittenByATool("Deployment.xcconfig"))
        #expect(!XcconfigIncludes.isWrittenByATool("Config/Signing.xcconfig"))
    }

    @Test func aChainIsFollowedRelativeToEachIncludingFileAndAMissingIncludeNamesBothFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("xcconfig-chain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = [
            "Configs/App.xcconfig": "#include \"Shared.xcconfig\"\n",
            "Configs/Shared.xcconfig": "#include \"../Deployment/Deployment.xcconfig\"\n#include? \"Local.xcconfig\"\n#include \"Signing.xcconfig\"\n",
            "Deployment/Deployment.xcconfig": "#include \"../Configs/App.xcconfig\"\nAPP_VERSION = 1.0\n",
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let chain = XcconfigIncludes(root: root, fileSystem: LiveFileSystem()).chain(from: [root.appendingPathComponent("Configs/App.xcconfig")])
        // Each file once, though Deployment includes App again.
        #expect(chain.files.map { VersionFileDetector.relativePath(of: $0, to: root) } == ["Configs/App.xcconfig", "Configs/Shared.xcconfig", "Deployment/Deployment.xcconfig"])
        #expect(chain.missing.count == 1)
        let error = try #require(chain.missing.first?.error as? VersionFileError)
        #expect(error.message == "Configs/Shared.xcconfig includes Configs/Signing.xcconfig, which does not exist")
        #expect(error.details.contains { $0.key == "line 3" && $0.value == "#include \"Signing.xcconfig\"" })
    }

    // MARK: - Conditional settings

    @Test func aPerConfigurationVersionIsReadAndEveryCopyRewritten() throws {
        let text = "MARKETING_VERSION[config=Release] = 2.1\nMARKETING_VERSION[config=Debug][sdk=iphonesimulator*] = 2.1 // simulator\nCURRENT_PROJECT_VERSION[config=Release] = 40\n"
        let reading = try XcconfigVersionFormat().read(Data(text.utf8))
        #expect(reading.version == .literal(try VersionShape.apple.parse("2.1")))
        #expect(reading.build == .literal("40"))
        #expect(try rewrite(XcconfigVersionFormat(), text, "2.2.0", build: "41")
            == "MARKETING_VERSION[config=Release] = 2.2\nMARKETING_VERSION[config=Debug][sdk=iphonesimulator*] = 2.2 // simulator\nCURRENT_PROJECT_VERSION[config=Release] = 41\n")
    }

    @Test func perConfigurationVersionsThatDifferAreAnErrorNamingEach() {
        let text = "MARKETING_VERSION = 3.0\nMARKETING_VERSION[config=Debug] = 2.9\n"
        let error = VersioningTestSupport.error(VersionFileError.self) { _ = try XcconfigVersionFormat().read(Data(text.utf8)) }
        #expect(error?.kind == .inconsistent)
        #expect(error?.details.map(\.key) == ["MARKETING_VERSION (line 1)", "MARKETING_VERSION[config=Debug] (line 2)"])
    }

    @Test func aConditionalSettingInAProjectFileIsOneMoreCopy() throws {
        let text = "\t\t\t\tMARKETING_VERSION = 4.0;\n\t\t\t\t\"MARKETING_VERSION[sdk=iphoneos*]\" = 4.0;\n"
        #expect(try rewrite(XcodeProjectVersionFormat(), text, "4.1.0") == "\t\t\t\tMARKETING_VERSION = 4.1;\n\t\t\t\t\"MARKETING_VERSION[sdk=iphoneos*]\" = 4.1;\n")
    }
}
