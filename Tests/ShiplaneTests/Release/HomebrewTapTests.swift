import Foundation
import Testing
@testable import Shiplane

/// A lane that publishes a formula for four archives (macOS and Linux, ARM and Intel) to the tap
/// `TAP` names, version `VERSION`; `FAIL=1` fails the lane after it.
struct HomebrewTapLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = lane.environment["VERSION"] ?? "1.2.0"
        try await lane.homebrewFormula(
            "shiplane-demo", tap: lane.environment["TAP"] ?? "", files: HomebrewTapTests.artifacts(version: version), version: version,
            downloadURL: "https://example.com/releases/download/v\(version)/{name}",
            description: HomebrewTapTests.description, homepage: "https://example.com/shiplane-demo", license: "MIT",
            binary: "demo")
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

@Suite("Homebrew tap: formulae rendered, checked by Ruby, pushed to git http-backend", .serialized, .offThePool)
struct HomebrewTapTests {
    static let token = "ghp_TapToken_90e1c3b7aa"
    /// Quotes, a backslash, an interpolation, a newline and non-ASCII: all must stay text in Ruby.
    static let description = "Ships \"demo\" releases: \\ #{system('id')} #$x — fast\nand safe"

    /// A checksum file, a Windows archive and the four archives a formula holds.
    static func artifacts(version: String) -> [Artifact] {
        let platforms = [("macos", "arm64"), ("macos", "x86_64"), ("linux", "aarch64"), ("linux", "x86_64"), ("windows", "x86_64")]
        var made = platforms.map { os, arch in
            let name = "demo-\(version)-\(os)-\(arch).tar.gz"
            return Artifact(kind: .archive, path: "dist/" + name, sha256: SHA256.hex(of: Array((name).utf8)), os: os, arch: arch)
        }
        made.append(Artifact(kind: .checksums, path: "dist/SHA256SUMS", sha256: String(repeating: "0", count: 64)))
        return made
    }

    /// The url → sha256 pairs a formula for `version` must hold.
    static func expectedPairs(version: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for artifact in artifacts(version: version) where artifact.kind == .archive && artifact.os != "windows" {
            pairs["https://example.com/releases/download/v\(version)/\(artifact.name)"] = artifact.sha256
        }
        return pairs
    }

    // MARK: - Ruby as the oracle

    /// A minimal Formula DSL: evaluates the file and prints its class, desc, version and every
    /// url with the sha256 that follows it, as JSON.
    static let rubyStub = #"""
    require "json"
    class Formula
      @@seen = []
      def self.inherited(subclass) = @@seen << subclass
      def self.seen = @@seen
      def self.record = (@record ||= { "urls" => {}, "blocks" => [] })
      %w[desc homepage version license].each do |field|
        define_singleton_method(field) { |value| record[field] = value }
      end
      def self.url(value) = (@last_url = value; record["urls"][value] = nil)
      def self.sha256(value) = (record["urls"][@last_url] = value)
      %w[on_macos on_linux on_arm on_intel].each do |block|
        define_singleton_method(block) { |&body| record["blocks"] << block; body.call }
      end
      def self.test(&body) = (record["test"] = true)
    end
    load ARGV[0]
    klass = Formula.seen.last
    puts JSON.generate(klass.record.merge("class" => klass.name, "install" => klass.instance_methods(false).include?(:install)))
    """#

    /// `ruby -c` and the stub's reading of `formula`.
    static func readWithRuby(_ formula: String) throws -> [String: Any] {
        let folder = NSTemporaryDirectory() + "shiplane-formula-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(formula.utf8).write(to: URL(fileURLWithPath: folder + "/formula.rb"))
        try Data(rubyStub.utf8).write(to: URL(fileURLWithPath: folder + "/stub.rb"))
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let syntax = try runProgram("/usr/bin/env", ["ruby", "-c", "formula.rb"], in: folder, environment: environment)
        #expect(syntax.status == 0 && syntax.stdout.contains("Syntax OK"), "ruby -c: \(syntax.stdout) \(syntax.stderr)")
        let read = try runProgram("/usr/bin/env", ["ruby", "stub.rb", "formula.rb"], in: folder, environment: environment)
        guard read.status == 0, let object = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any] else {
            throw TestFailure("ruby could not read the formula: \(read.stderr)")
        }
        return object
    }

    // MARK: - Rendering

    @Test(arguments: [
        ("foo", "Foo"), ("foo-bar", "FooBar"), ("foo_bar.baz", "FooBarBaz"), ("python@3.12", "PythonAT312"), ("node@20", "NodeAT20"),
        ("libxml++", "Libxmlxx"), ("shiplane-demo", "ShiplaneDemo"), ("a-1b", "A1b"),
    ])
    func classNamesFollowHomebrew(name: String, expected: String) {
        #expect(HomebrewFormula.className(name) == expected)
    }

    @Test func aFormulaIsDeterministicMatchesItsGoldenFileAndRubyReadsBackEveryURLAndSHA256() throws {
        let artifacts = Self.artifacts(version: "1.2.0")
        let downloads = artifacts.compactMap { artifact -> HomebrewFormula.Download? in
            guard artifact.kind == .archive, let os = HomebrewFormula.os(artifact.os ?? "") ?? nil else { return nil }
            return .init(os: os, arch: HomebrewFormula.arch(artifact.arch ?? ""), url: "https://example.com/releases/download/v1.2.0/\(artifact.name)",
                         sha256: artifact.sha256)
        }
        let formula = HomebrewFormula(
            name: "shiplane-demo", desc: Self.description, homepage: "https://example.com/shiplane-demo", version: "1.2.0", license: "MIT",
            binary: "demo", testArguments: ["--version"], downloads: downloads)
        let text = formula.rendered()
        var shuffled = formula
        shuffled.downloads.reverse()
        #expect(shuffled.rendered() == text, "the order of the artifacts does not change a byte")
        try expectGolden(text, "homebrew-formula.rb")

        let read = try Self.readWithRuby(text)
        #expect(read["class"] as? String == "ShiplaneDemo")
        #expect(read["desc"] as? String == Self.description, "Ruby reads the description as the very text, nothing interpolated")
        #expect(read["version"] as? String == "1.2.0")
        #expect(read["license"] as? String == "MIT")
        #expect(read["install"] as? Bool == true && read["test"] as? Bool == true)
        #expect(read["urls"] as? [String: String] == Self.expectedPairs(version: "1.2.0"))
        #expect(read["blocks"] as? [String] == ["on_macos", "on_arm", "on_intel", "on_linux", "on_arm", "on_intel"])

        let universal = HomebrewFormula(name: "one", desc: "x", homepage: "https://x.org", version: "1", license: nil, binary: "one",
                                        testArguments: [], downloads: [.init(os: nil, arch: nil, url: "https://x.org/one.tgz", sha256: "ab")])
        #expect(try Self.readWithRuby(universal.rendered())["urls"] as? [String: String] == ["https://x.org/one.tgz": "ab"])
    }

    @Test(arguments: ["tab\there, bell \u{07}, DEL \u{7F}, CR\r", "#{1+1} #@x #$y \\#{z} \"q\" 'single' ${HOME}", "émoji 🍺 and 中文"])
    func rubyReadsAnyDescriptionBackAsTheVeryText(description: String) throws {
        let formula = HomebrewFormula(name: "t", desc: description, homepage: "https://x.org", version: "1", license: nil, binary: "t",
                                      testArguments: [description], downloads: [.init(os: nil, arch: nil, url: "https://x.org/t.tgz", sha256: "ab")])
        #expect(try Self.readWithRuby(formula.rendered())["desc"] as? String == description)
    }

    /// Every mistake in the call is named at once, before the tap is reached.
    @Test func everyProblemWithTheCallIsNamedAndNothingIsSent() async throws {
        struct BadLane: Lane {
            func run(_ lane: LaneContext) async throws {
                let twice = [Artifact(kind: .archive, path: "a.tar.gz", sha256: "aa", os: "macos", arch: "arm64"),
                             Artifact(kind: .archive, path: "b.tar.gz", sha256: "bb", os: "darwin", arch: "aarch64"),
                             Artifact(kind: .archive, path: "c.tar.gz", sha256: "cc", os: "plan9", arch: "x86_64")]
                try await lane.homebrewFormula("Bad Name", tap: "/nowhere", files: twice, version: "1.0.0", downloadURL: "https://x.org/",
                                               description: "d", homepage: "x.org")
            }
        }
        let context = LaneContext(.init(workingDirectory: NSTemporaryDirectory(), environment: LaneEnvironment(variables: [:]), reporter: RecordingReporter()))
        let result = await LaneRunner().run(BadLane(), in: context)
        let text = result.failure.map { allText(of: $0) } ?? ""
        for expected in ["Bad Name is not a formula name", "homepage x.org is not an http(s) URL", "downloadURL must hold {name}",
                         "c.tar.gz: os plan9 is not macos or linux", "macos arm: https://x.org/ and https://x.org/ — one archive per platform"] {
            #expect(text.contains(expected), "\(expected) in \(text)")
        }
        #expect(result.steps.allSatisfy { $0.name != "homebrewFormula" }, "no step ran")
    }

    // MARK: - The tap over HTTP

    /// A tap (`tap.git`, bare, with one commit on main) served by `git http-backend` behind basic auth.
    private func setUp() async throws -> (work: TemporaryRepository, bare: String, server: GitHTTPServer) {
        let work = try TemporaryRepository()
        let root = work.root + "/served"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", root + "/tap.git"], in: root, environment: work.environment)
        try work.git("push", "-q", root + "/tap.git", "main")
        let server = try await GitHTTPServer.start(projectRoot: root, username: "x-access-token", password: Self.token, environment: work.environment)
        return (work, root + "/tap.git", server)
    }

    private func run(_ server: GitHTTPServer, _ work: TemporaryRepository, extra: [String: String] = [:], dryRun: Bool = false) async -> LaneRunResult {
        var variables = [
            "TAP": server.url("tap.git"), "SHIPLANE_TAP_TOKEN": Self.token, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "",
            "GIT_AUTHOR_NAME": "Release Bot", "GIT_AUTHOR_EMAIL": "bot@example.com", "GIT_COMMITTER_NAME": "Release Bot",
            "GIT_COMMITTER_EMAIL": "bot@example.com",
        ]
        for (key, value) in extra { variables[key] = value }
        let folder = work.root + "/project"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables),
                                        reporter: RecordingReporter(), isDryRun: dryRun))
        return await LaneRunner().run(HomebrewTapLane(), in: context)
    }

    /// `git` reads the tap: main's commit, and the formula there (nil when absent).
    private func tap(_ bare: String, _ work: TemporaryRepository) throws -> (main: String, formula: String?, count: Int) {
        let main = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "rev-parse", "main"], in: work.root, environment: work.environment)
        let show = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "show", "main:Formula/shiplane-demo.rb"], in: work.root, environment: work.environment)
        let count = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "rev-list", "--count", "main"], in: work.root, environment: work.environment)
        return (main.stdout.trimmingCharacters(in: .whitespacesAndNewlines), show.status == 0 ? show.stdout : nil,
                Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
    }

    func leftoverClones() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []).filter { $0.hasPrefix("shiplane-tap-") }
    }

    @Test func theFormulaIsCommittedAndPushedAndARerunSendsNothing() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let before = try tap(bare, work)
        let result = await run(server, work)
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        let after = try tap(bare, work)
        #expect(after.count == 2)
        let formula = try #require(after.formula)
        let read = try Self.readWithRuby(formula)
        #expect(read["urls"] as? [String: String] == Self.expectedPairs(version: "1.2.0"), "every url and sha256 is the release's")
        #expect(read["version"] as? String == "1.2.0")
        let fsck = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "fsck", "--strict"], in: work.root, environment: work.environment)
        #expect(fsck.status == 0, "\(fsck.stderr)")
        let parent = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "rev-parse", "main^"], in: work.root, environment: work.environment)
        #expect(parent.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == before.main, "a fast-forward on the tap's history")
        let author = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "log", "-1", "--format=%an <%ae>|%s"], in: work.root, environment: work.environment)
        #expect(author.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Release Bot <bot@example.com>|shiplane-demo 1.2.0")
        let step = result.steps.first { $0.name == "homebrewFormula" }
        #expect(step?.note?.contains("Formula/shiplane-demo.rb → \(server.url("tap.git")) (main)") == true, "\(step?.note ?? "")")

        let again = await run(server, work)
        #expect(again.succeeded)
        #expect(again.steps.first { $0.name == "homebrewFormula" }?.note?.contains("already holds this formula: nothing sent") == true)
        #expect(try tap(bare, work).main == after.main, "nothing pushed: a push would have moved main to a new commit")
        #expect(leftoverClones().isEmpty)
    }

    @Test func aDryRunShowsTheExactFormulaAndSendsNothing() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let before = try tap(bare, work)
        let result = await run(server, work, extra: ["VERSION": "2.0.0"], dryRun: true)
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        let note = try #require(result.steps.first { $0.name == "homebrewFormula" }?.note)
        #expect(note.hasPrefix("would commit Formula/shiplane-demo.rb on main of \(server.url("tap.git"))"), "\(note)")
        let shown = String(note[note.index(after: try #require(note.firstIndex(of: "\n")))...])
        #expect(try Self.readWithRuby(shown)["urls"] as? [String: String] == Self.expectedPairs(version: "2.0.0"), "the formula shown is whole")
        #expect(!note.contains(Self.token))
        #expect(try tap(bare, work).main == before.main)

        let wrong = await run(server, work, extra: ["SHIPLANE_TAP_TOKEN": "ghp_wrong_5c1d"], dryRun: true)
        let text = wrong.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("refused the credentials"), "a dry run checks the tap's credentials: \(text)")
        #expect(!text.contains("ghp_wrong_5c1d"))
        #expect(leftoverClones().isEmpty)
    }

    @Test func aTapWhoseHookRefusesThePushIsAClearErrorWithNothingChanged() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let hook = bare + "/hooks/pre-receive"
        try Data("#!/bin/sh\necho 'formulae go through pull requests' >&2\nexit 1\n".utf8).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let before = try tap(bare, work)
        let result = await run(server, work)
        let text = result.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("\(server.url("tap.git")) refused the commit of Formula/shiplane-demo.rb on main"), "\(text)")
        #expect(text.contains("formulae go through pull requests"), "the hook's own words: \(text)")
        #expect(text.contains("nothing was changed in the tap"))
        #expect(try tap(bare, work).main == before.main)
        #expect(try tap(bare, work).formula == nil)
        #expect(leftoverClones().isEmpty)
    }

    @Test func aFailedLaneRevertsTheFormulaWithACommitOnTop() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let result = await run(server, work, extra: ["FAIL": "1"])
        #expect(!result.succeeded)
        let after = try tap(bare, work)
        #expect(after.count == 3, "the formula commit and its revert: history is not rewritten")
        #expect(after.formula == nil, "rolled back: the tap holds no formula")
        #expect(leftoverClones().isEmpty)
    }
}
