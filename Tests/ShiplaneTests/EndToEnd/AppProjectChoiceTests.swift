import Foundation
import Testing

/// A second Xcode project in the repository (issue 38, from the app corpus): a dependency's
/// library project (Gifski's `gifski-api/gifski.xcodeproj`) or a sample app's
/// (element-x-ios' `compound-ios/Inspector`) is not read as the app's. The app's project is the
/// one with an app target, the one a workspace at the root opens or XcodeGen's `project.yml`
/// generates, or one outside a Swift package of its own; otherwise the error names each.
@Suite("App projects: which Xcode project is the app's", .offThePool)
struct AppProjectChoiceTests {
    /// A project of one target of `productType` whose configurations set `version`.
    static func project(name: String, productType: String, version: String) -> String {
        """
        // !$*UTF8*$!
        {
        \tarchiveVersion = 1;
        \tclasses = {
        \t};
        \tobjectVersion = 56;
        \tobjects = {

        /* Begin PBXFileReference section */
        \t\tA20000000000000000000001 /* \(name) */ = {isa = PBXFileReference; explicitFileType = wrapper.application; includeInIndex = 0; path = \(name); sourceTree = BUILT_PRODUCTS_DIR; };
        /* End PBXFileReference section */

        /* Begin PBXGroup section */
        \t\tB20000000000000000000001 = {
        \t\t\tisa = PBXGroup;
        \t\t\tchildren = (
        \t\t\t\tA20000000000000000000001 /* \(name) */,
        \t\t\t);
        \t\t\tsourceTree = "<group>";
        \t\t};
        /* End PBXGroup section */

        /* Begin PBXNativeTarget section */
        \t\tC20000000000000000000001 /* \(name) */ = {
        \t\t\tisa = PBXNativeTarget;
        \t\t\tbuildConfigurationList = E20000000000000000000002 /* Build configuration list for PBXNativeTarget "\(name)" */;
        \t\t\tbuildPhases = (
        \t\t\t);
        \t\t\tdependencies = (
        \t\t\t);
        \t\t\tname = \(name);
        \t\t\tproductName = \(name);
        \t\t\tproductReference = A20000000000000000000001 /* \(name) */;
        \t\t\tproductType = "\(productType)";
        \t\t};
        /* End PBXNativeTarget section */

        /* Begin PBXProject section */
        \t\tD20000000000000000000001 /* Project object */ = {
        \t\t\tisa = PBXProject;
        \t\t\tbuildConfigurationList = E20000000000000000000001 /* Build configuration list for PBXProject "\(name)" */;
        \t\t\tmainGroup = B20000000000000000000001;
        \t\t\ttargets = (
        \t\t\t\tC20000000000000000000001 /* \(name) */,
        \t\t\t);
        \t\t};
        /* End PBXProject section */

        /* Begin XCBuildConfiguration section */
        \t\tF20000000000000000000001 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        \t\tF20000000000000000000002 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tCURRENT_PROJECT_VERSION = 2;
        \t\t\t\tMARKETING_VERSION = \(version);
        \t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = com.example.\(name.lowercased());
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        /* End XCBuildConfiguration section */

        /* Begin XCConfigurationList section */
        \t\tE20000000000000000000001 /* Build configuration list for PBXProject "\(name)" */ = {
        \t\t\tisa = XCConfigurationList;
        \t\t\tbuildConfigurations = (
        \t\t\t\tF20000000000000000000001 /* Release */,
        \t\t\t);
        \t\t\tdefaultConfigurationName = Release;
        \t\t};
        \t\tE20000000000000000000002 /* Build configuration list for PBXNativeTarget "\(name)" */ = {
        \t\t\tisa = XCConfigurationList;
        \t\t\tbuildConfigurations = (
        \t\t\t\tF20000000000000000000002 /* Release */,
        \t\t\t);
        \t\t\tdefaultConfigurationName = Release;
        \t\t};
        /* End XCConfigurationList section */
        \t};
        \trootObject = D20000000000000000000001 /* Project object */;
        }

        """
    }

    /// The fixture app (Weather, 2.3) with a second project at `folder`.
    static func repository(with folder: String, name: String, productType: String, version: String, extra: [String: String] = [:]) throws -> TemporaryRepository {
        let repo = try AppVersionTests.repository("ios")
        try repo.write("\(folder)/\(name).xcodeproj/project.pbxproj", project(name: name, productType: productType, version: version))
        for (path, text) in extra { try repo.write(path, text) }
        try repo.git("add", ".")
        try repo.git("commit", "-qm", "a second project")
        return repo
    }

    @Test func aDependencysLibraryProjectIsNotTheApps() throws {
        let repo = try Self.repository(with: "gifski-api", name: "gifski", productType: "com.apple.product-type.library.static", version: "1.32.1")
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.all)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout) == [
            "gifski-api/gifski.xcodeproj/project.pbxproj: no app target, beside Weather.xcodeproj/project.pbxproj: a library's project, not the app's",
        ], "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "patch"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj"])
    }

    @Test func twoAppProjectsAndNothingToChooseMustAgreeOrTheErrorNamesBoth() throws {
        let repo = try Self.repository(with: "Samples/Inspector", name: "Inspector", productType: "com.apple.product-type.application", version: "1.0")
        let version = try repo.shiplane(["version"])
        #expect(version.status != 0, "\(version.all)")
        #expect(version.all.contains("disagree"), "\(version.all)")
        #expect(version.all.contains("Samples/Inspector/Inspector.xcodeproj/project.pbxproj") && version.all.contains("Weather.xcodeproj/project.pbxproj"), "\(version.all)")
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status != 0, "\(bump.all)")
        #expect(try repo.git("status", "--porcelain").isEmpty)

        // The line the error suggests settles it.
        let named = try Self.repository(with: "Samples/Inspector", name: "Inspector", productType: "com.apple.product-type.application", version: "1.0",
                                        extra: [".shiplane.yml": "versions:\n  independent: [Samples/Inspector]\n"])
        let settled = try named.shiplane(["version"])
        #expect(settled.status == 0, "\(settled.all)")
        #expect(CompanionVersionTests.rows("ignored", in: settled.stdout).contains(
            "Samples/Inspector/Inspector.xcodeproj/project.pbxproj: a release of its own (versions.independent in .shiplane.yml)"), "\(settled.stdout)")
    }

    @Test func theProjectXcodeGenGeneratesIsTheApps() throws {
        let repo = try Self.repository(with: "compound-ios/Inspector", name: "Inspector", productType: "com.apple.product-type.application", version: "1.0",
                                       extra: ["project.yml": "name: Weather\noptions:\n  bundleIdPrefix: com.example\n"])
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(version.stdout.hasPrefix("2.3 (build 41)\n"), "\(version.all)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout).contains(
            "compound-ios/Inspector/Inspector.xcodeproj/project.pbxproj: another app's project (project.yml at the root generates Weather.xcodeproj), not read"), "\(version.stdout)")
    }

    @Test func theProjectTheRootWorkspaceOpensIsTheApps() throws {
        let workspace = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Workspace
               version = "1.0">
               <FileRef
                  location = "group:Weather.xcodeproj">
               </FileRef>
               <FileRef
                  location = "group:Pods/Pods.xcodeproj">
               </FileRef>
            </Workspace>

            """
        let repo = try Self.repository(with: "Example", name: "Example", productType: "com.apple.product-type.application", version: "1.0",
                                       extra: ["Weather.xcworkspace/contents.xcworkspacedata": workspace])
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout).contains(
            "Example/Example.xcodeproj/project.pbxproj: another app's project (the workspace at the root opens Weather.xcodeproj), not read"), "\(version.stdout)")
        #expect(try repo.shiplane(["bump", "patch"]).status == 0)
        #expect(try repo.git("diff", "--name-only").split(separator: "\n") == ["Config/Version.xcconfig", "Weather.xcodeproj/project.pbxproj"])
    }

    @Test func anAppProjectInsideASwiftPackageIsADependencys() throws {
        let repo = try Self.repository(with: "Vendor/Kit/Demo", name: "Demo", productType: "com.apple.product-type.application", version: "1.0",
                                       extra: ["Vendor/Kit/Package.swift": "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Kit\")\n"])
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        #expect(CompanionVersionTests.rows("ignored", in: version.stdout).contains(
            "Vendor/Kit/Demo/Demo.xcodeproj/project.pbxproj: another app's project (Vendor/Kit/Demo/Demo.xcodeproj is inside a Swift package of its own, a dependency's), not read"), "\(version.stdout)")
    }
}
