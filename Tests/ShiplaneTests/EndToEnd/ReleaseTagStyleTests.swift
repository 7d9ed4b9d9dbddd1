import Foundation
import Testing

/// `bump --commit --tag` and the lanes `init` writes tag a release as the repository's own tags
/// are written (`2.1.6` without `v`, `v7.77` with two numbers) and name the version as the
/// files write it; checked with `git tag`, `git log` and `git show`.
@Suite("Release tags and versions as the project writes them", .offThePool)
struct ReleaseTagStyleTests {
    /// A repository, its existing tag, a bump, and the tag and commit that must follow.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let files: [String: String]
        let existingTag: String?
        let arguments: [String]
        let tag: String
        let subject: String
        /// Every line the release commit changes.
        let diff: [String]
        var testDescription: String { name }
    }

    static let gradle776 = "android {\n    defaultConfig {\n        applicationId \"com.example.radio\"\n        versionCode 776\n        versionName \"7.76\"\n    }\n}\n"
    static let gradle23 = "android {\n    defaultConfig {\n        applicationId \"com.example.radio\"\n        versionCode 40\n        versionName \"2.3\"\n    }\n}\n"
    static let package215 = "{\n  \"name\": \"tides\",\n  \"version\": \"2.1.5\",\n  \"private\": true\n}\n"

    static let cases: [Case] = [
        Case(name: "bare tags stay bare", files: ["package.json": package215], existingTag: "2.1.5", arguments: ["patch"],
             tag: "2.1.6", subject: "chore(release): 2.1.6", diff: ["-  \"version\": \"2.1.5\",", "+  \"version\": \"2.1.6\","]),
        Case(name: "a two-number version stays two numbers, v as the tags have it", files: ["app/build.gradle": gradle776], existingTag: "v7.76",
             arguments: ["minor"], tag: "v7.77", subject: "chore(release): 7.77",
             diff: ["-        versionName \"7.76\"", "+        versionName \"7.77\""]),
        Case(name: "a two-number version with bare tags", files: ["app/build.gradle": gradle776], existingTag: "7.76",
             arguments: ["minor", "--build"], tag: "7.77", subject: "chore(release): 7.77 (777)",
             diff: ["-        versionCode 776", "-        versionName \"7.76\"", "+        versionCode 777", "+        versionName \"7.77\""]),
        Case(name: "no tag yet: v and the files' numbers", files: ["app/build.gradle": gradle776], existingTag: nil,
             arguments: ["minor"], tag: "v7.77", subject: "chore(release): 7.77",
             diff: ["-        versionName \"7.76\"", "+        versionName \"7.77\""]),
        Case(name: "tags of three numbers over files of two", files: ["app/build.gradle": gradle23], existingTag: "v2.3.0",
             arguments: ["minor"], tag: "v2.4.0", subject: "chore(release): 2.4",
             diff: ["-        versionName \"2.3\"", "+        versionName \"2.4\""]),
        Case(name: "--tag-prefix still decides", files: ["package.json": package215], existingTag: "2.1.5",
             arguments: ["patch", "--tag-prefix", "rel-"], tag: "rel-2.1.6", subject: "chore(release): 2.1.6",
             diff: ["-  \"version\": \"2.1.5\",", "+  \"version\": \"2.1.6\","]),
    ]

    @Test("bump --commit --tag tags as the repository does", arguments: cases)
    func tagsFollowTheRepository(_ example: Case) throws {
        let repo = try TemporaryRepository()
        for (path, text) in example.files { try repo.write(path, text) }
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Release the app")
        if let tag = example.existingTag { try repo.git("tag", tag) }
        let bump = try repo.shiplane(["bump"] + example.arguments + ["--commit", "--tag"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("tag", "--points-at", "HEAD") == example.tag)
        #expect(try repo.git("log", "-1", "--format=%s") == example.subject)
        let lines = try repo.git("show", "-U0", "--format=", "HEAD").split(separator: "\n").map(String.init)
            .filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
        #expect(lines == example.diff, "\(lines)")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func aTagOnlyProjectWithBareTagsIsTaggedBare() throws {
        let repo = try TemporaryRepository()
        try repo.git("tag", "-a", "2.1.5", "-m", "2.1.5")
        try repo.write("main.go", "package main\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Faster start")
        let bump = try repo.shiplane(["bump", "patch"])
        #expect(bump.status == 0, "\(bump.all)")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "2.1.6")
    }

    @Test func theChangelogLinksTheReleaseToItsTagAsTheRepositoryWritesIt() throws {
        let repo = try TemporaryRepository()
        try repo.write("package.json", Self.package215)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: tide tables")
        try repo.git("tag", "2.1.5")
        try repo.write("tides.js", "// fixed\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix: high tide at midnight")
        try repo.git("remote", "add", "origin", "https://github.com/acme/tides.git")
        let notes = try repo.shiplane(["changelog", "--version", "2.1.6"])
        #expect(notes.status == 0, "\(notes.all)")
        #expect(notes.stdout.contains("[2.1.6]: https://github.com/acme/tides/compare/2.1.5...2.1.6"), "\(notes.stdout)")
    }

    @Test func theInitBetaLaneTagsAsTheRepositoryDoesAndWorksWithoutConventionalCommits() throws {
        let repo = try AppVersionTests.repository("android-kotlin")
        try repo.git("tag", "3.1")
        try repo.write("app/src/main/Feature.kt", "// offline maps\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "Offline maps")
        #expect(try repo.shiplane(["init", "--commit"]).status == 0)
        let lane = repo.read("Lanes/Beta.swift") ?? ""
        #expect(lane.contains("var bump: VersionBump = .patch"), "\(lane)")
        #expect(lane.contains("try lane.addGitTag(lane.releaseTagName(version))"), "\(lane)")
        let beta = try repo.shiplane(["beta"])
        #expect(beta.status == 0, "\(beta.all)")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "3.1.1")
        #expect(try repo.git("log", "-1", "--format=%s").hasPrefix("Version bump to 3.1.1 ("))
    }
}
