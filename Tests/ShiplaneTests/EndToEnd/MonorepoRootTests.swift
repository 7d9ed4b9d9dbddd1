import Foundation
import Testing

/// The root of a monorepo whose packages are apps (a Gradle module, an Xcode configuration, an npm
/// package) with a version file at the root as well: `bump` there refuses with exit 2, naming each
/// package with its command, and changes nothing; `version` lists each package's version.
@Suite("Monorepo roots with app packages refuse", .offThePool)
struct MonorepoRootTests {
    func appMonorepo() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write(".shiplane.yml", """
            packages:
              - { name: android, path: apps/android }
              - { name: ios, path: apps/ios }
              - { name: ui, path: packages/ui }

            """)
        try repo.write("apps/android/app/build.gradle", """
            android {
                defaultConfig {
                    applicationId "com.example.shop"
                    versionCode 4005
                    versionName "40.0.5"
                }
            }

            """)
        try repo.write("apps/ios/Config/Version.xcconfig", "MARKETING_VERSION = 40.0.5\nCURRENT_PROJECT_VERSION = 17\n")
        try repo.write("packages/ui/package.json", "{\n  \"name\": \"@shop/ui\",\n  \"version\": \"3.2.0\"\n}\n")
        // The workspace's own package.json has a version too: still not the root's to bump.
        try repo.write("package.json", "{\n  \"name\": \"shop\",\n  \"private\": true,\n  \"version\": \"40.0.5\"\n}\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Shop 40.0.5")
        return repo
    }

    @Test("bump at the root refuses with exit 2 and a command for each package", arguments: [
        ["patch", "--commit", "--tag"], ["minor"], ["patch", "--build", "--dry-run"],
    ])
    func bumpAtTheRootRefuses(_ arguments: [String]) throws {
        let repo = try appMonorepo()
        let head = try repo.git("rev-parse", "HEAD")
        let bump = try repo.shiplane(["bump"] + arguments)
        #expect(bump.status == 2, "\(bump.all)")
        #expect(bump.all.contains("This repository declares 3 packages (android, ios, ui) and has no version of its own at the root"), "\(bump.all)")
        let command = (["shiplane", "bump"] + arguments.filter { $0 != "--dry-run" }).joined(separator: " ")
        for (name, path) in [("android", "apps/android"), ("ios", "apps/ios"), ("ui", "packages/ui")] {
            #expect(bump.all.contains("\(name) (\(path)/): \(command) --package \(name)"), "\(bump.all)")
        }
        #expect(bump.all.contains("\(command) --all"))
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func versionAtTheRootListsEveryPackage() throws {
        let repo = try appMonorepo()
        let version = try repo.shiplane(["version"])
        #expect(version.status == 0, "\(version.all)")
        let lines = version.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        #expect(lines == ["android 40.0.5 apps/android/app/build.gradle", "ios 40.0.5 apps/ios/Config/Version.xcconfig",
                          "ui 3.2.0 packages/ui/package.json"], "\(version.stdout)")
    }

    @Test func onePackageIsBumpedWithItsCommand() throws {
        let repo = try appMonorepo()
        let bump = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--package", "android"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD") == "apps/android/app/build.gradle")
        #expect(try repo.git("tag", "--list") == "android-v40.0.6")
    }
}
