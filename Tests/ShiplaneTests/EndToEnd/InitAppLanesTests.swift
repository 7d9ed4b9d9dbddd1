import Foundation
import Testing

/// `shiplane init` writes lanes that run as written: npm checks only the scripts that exist; an
/// app project gets a beta lane whose checks and version steps run here.
@Suite("shiplane init: lanes that run", .offThePool)
struct InitAppLanesTests {
    @Test func anNpmPackageWithoutABuildScriptChecksOnlyWhatItHas() throws {
        let repo = try TemporaryRepository()
        try repo.write("package.json", #"{ "name": "a", "version": "1.0.0", "scripts": { "test": "node test.js" } }"#)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "init")
        #expect(try repo.shiplane(["init", "--commit"]).status == 0)
        let check = repo.read("Lanes/Check.swift") ?? ""
        #expect(check.contains(#"try await lane.sh("npm", "test")"#), "\(check)")
        #expect(!check.contains("npm\", \"run\", \"build"), "\(check)")

        // npm's placeholder test that only fails is not a test either.
        let bare = try TemporaryRepository()
        try bare.write("package.json", #"{ "name": "b", "scripts": { "test": "echo \"Error: no test specified\" && exit 1" } }"#)
        try bare.git("add", ".")
        try bare.git("commit", "-q", "-m", "init")
        #expect(try bare.shiplane(["init", "--commit"]).status == 0)
        let placeholder = bare.read("Lanes/Check.swift") ?? ""
        let commands = placeholder.split(separator: "\n").filter { $0.contains("lane.sh(") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
        #expect(commands.isEmpty, "\(placeholder)")
        #expect(try bare.shiplane(["check"]).status == 0)
    }

    @Test func anXcodeAppGetsABetaLaneWhoseVersionStepsRun() throws {
        let repo = try AppVersionTests.repository("ios")
        try repo.git("tag", "-a", "v2.3.0", "-m", "v2.3.0")
        try repo.write("Weather/Feature.swift", "// new\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: forecasts for tomorrow")
        let created = try repo.shiplane(["init", "--commit"])
        #expect(created.status == 0, "\(created.all)")
        #expect(repo.read("Lanes/Beta.swift")?.contains("// iOS (on macOS, with Xcode)") == true)
        let check = try repo.shiplane(["check"])
        #expect(check.status == 0, "\(check.all)")
        #expect(check.all.contains("Xcode app at version 2.3"), "\(check.all)")
        // auto takes minor from the feat; the tag has three numbers as v2.3.0 has, the commit
        // names the version as the files write it.
        let beta = try repo.shiplane(["beta", "--bump", "auto"])
        #expect(beta.status == 0, "\(beta.all)")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "v2.4.0")
        #expect(try repo.git("log", "-1", "--format=%s") == "Version bump to 2.4 (42)")
        #expect(repo.read("Config/Version.xcconfig")?.contains("APP_VERSION = 2.4 ") == true)
    }

    @Test func flutterGradleAndReactNativeAreRecognised() throws {
        for (fixture, name) in [("flutter", "Flutter"), ("android-kotlin", "Gradle"), ("expo", "React Native")] {
            let repo = try AppVersionTests.repository(fixture)
            #expect(try repo.shiplane(["init", "--commit"]).status == 0)
            #expect(repo.read("Lanes/Beta.swift")?.contains("(\(name))") == true, "\(fixture)")
            let check = try repo.shiplane(["check"])
            #expect(check.status == 0 && check.all.contains("\(name) app at version"), "\(fixture): \(check.all)")
        }
    }
}
