import Foundation
import Testing
@testable import Shiplane

private let podLane = #"""
import Shiplane

struct Pods: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.pushPodspec(lane.environment["PODSPEC"] ?? "Rocket.podspec", version: lane.environment["VERSION"] ?? "1.2.0",
                                   trunk: lane.environment["TRUNK"] ?? "", specsRepo: lane.environment["SPECS"])
    }
}
"""#

private let rubyPodspec = """
Pod::Spec.new do |s|
  s.name         = 'Rocket'
  s.version      = '1.2.0'
  s.summary      = 'Rockets, "quoted" and #{not interpolated}.'
  s.homepage     = 'https://github.com/acme/rocket'
  s.license      = { :type => 'MIT', :file => 'LICENSE' }
  s.author       = { 'Acme' => 'dev@acme.test' }
  s.source       = { :git => 'https://github.com/acme/rocket.git', :tag => "v#{s.version}" }
  s.ios.deployment_target = '13.0'
  s.osx.deployment_target = '10.15'
  s.swift_version = '5.9'
  s.source_files = 'Sources/Rocket/**/*.swift'
  s.dependency 'Alamofire', '~> 5.0'
  s.subspec 'Core' do |core|
    core.source_files = 'Sources/Core/**/*.swift'
    core.ios.frameworks = 'UIKit'
  end
end

"""

@Suite("CocoaPods trunk: the shiplane binary pushes a podspec to a trunk stand-in", .serialized, .offThePool)
struct CocoaPodsTrunkTests {
    private func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Rocket.podspec", rubyPodspec)
        try repo.write("Lanes/Pods.swift", podLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a pod")
        return repo
    }

    /// A Ruby podspec is read with ruby into CocoaPods' JSON form and pushed with the token; the
    /// re-run finds the version on trunk and sends nothing; the token never shows.
    @Test func aRubyPodspecIsPushedAsJSONAndTheRerunReportsUnchanged() async throws {
        let trunk = FakeTrunk(token: "trunk-session-token-0123456789abcdef")
        try await trunk.start()
        defer { trunk.stop() }
        let repo = try repository()
        let environment = ["TRUNK": trunk.baseURL, "COCOAPODS_TRUNK_TOKEN": trunk.token]
        let dry = try await repo.shiplaneAsync(["--dry-run", "pods"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("would push Rocket 1.2.0 to \(trunk.baseURL)/api/v1/pods"), "\(dry.all)")
        #expect(trunk.pushes == 0)

        let pushed = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        #expect(!pushed.all.contains(trunk.token) && !(repo.read(".git/shiplane/run.json") ?? "").contains(trunk.token))
        let spec = try #require(trunk.spec("Rocket", "1.2.0"), "\(trunk.log)")
        #expect(spec["summary"] as? String == "Rockets, \"quoted\" and #{not interpolated}.")
        #expect(spec["authors"] as? [String: String] == ["Acme": "dev@acme.test"])
        #expect(spec["platforms"] as? [String: String] == ["ios": "13.0", "osx": "10.15"])
        #expect(spec["swift_versions"] as? [String] == ["5.9"])
        #expect(spec["dependencies"] as? [String: [String]] == ["Alamofire": ["~> 5.0"]])
        #expect((spec["source"] as? [String: String])?["tag"] == "v1.2.0")
        let core = (spec["subspecs"] as? [[String: Any]])?.first
        #expect(core?["name"] as? String == "Core" && (core?["ios"] as? [String: Any])?["frameworks"] as? [String] == ["UIKit"])
        #expect(trunk.violations.isEmpty, "\(trunk.violations)")

        let again = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("Rocket 1.2.0 is already on trunk: unchanged, nothing sent"), "\(again.all)")
        #expect(trunk.pushes == 1)
    }

    /// The lane program SIGKILLed while trunk has taken the version but not yet answered: past the
    /// point of no return (exit 75, the record stays), and the same command again finds the version
    /// on trunk and pushes nothing.
    @Test func killedWhileTrunkAnswersThenRunAgainPushesNothing() async throws {
        let trunk = FakeTrunk(token: "trunk-session-token-0123456789abcdef")
        trunk.answerDelay = 20
        try await trunk.start()
        defer { trunk.stop() }
        let repo = try repository()
        let environment = repo.environment.merging(["TRUNK": trunk.baseURL, "COCOAPODS_TRUNK_TOKEN": trunk.token]) { $1 }
        let run = try SupervisedRun(["pods"], in: repo.path, environment: environment)
        run.wait { trunk.spec("Rocket", "1.2.0") != nil }
        #expect(trunk.spec("Rocket", "1.2.0") != nil, "trunk took the version")
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 75, "past the point of no return: resumable\n\(all)")
        #expect(repo.read(".git/shiplane/run.json")?.contains("cocoapods.trunk") == true)
        #expect(!(repo.read(".git/shiplane/run.json") ?? "").contains(trunk.token) && !all.contains(trunk.token))
        trunk.answerDelay = 0

        let again = try await repo.shiplaneAsync(["pods"], environment: ["TRUNK": trunk.baseURL, "COCOAPODS_TRUNK_TOKEN": trunk.token])
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("Rocket 1.2.0 is already on trunk: unchanged, nothing sent"), "\(again.all)")
        #expect(trunk.pushes == 1)
        #expect(trunk.violations.isEmpty, "\(trunk.violations)")
    }

    /// A private specs repository (a bare repository): the podspec's JSON committed at
    /// `Rocket/1.2.0/Rocket.podspec.json` on master and pushed through libgit2, read back with the
    /// `git` command; the dry run and the re-run send nothing.
    @Test func aPrivateSpecsRepositoryGetsThePodspecCommittedAndPushed() async throws {
        let specs = try TemporaryRepository(branch: "master", bare: true)
        let seed = try TemporaryRepository(branch: "master")
        try seed.git("remote", "add", "origin", specs.path)
        try seed.git("push", "-q", "origin", "master")
        let start = try specs.git("rev-parse", "master")
        let repo = try repository()
        let environment = ["SPECS": specs.path]
        let dry = try await repo.shiplaneAsync(["--dry-run", "pods"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("would commit Rocket/1.2.0/Rocket.podspec.json on master of \(specs.path)"), "\(dry.all)")
        #expect(try specs.git("rev-parse", "master") == start)

        let pushed = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        let json = try specs.git("show", "master:Rocket/1.2.0/Rocket.podspec.json")
        let spec = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(spec["name"] as? String == "Rocket" && spec["version"] as? String == "1.2.0")
        #expect(try specs.git("log", "-1", "--format=%s", "master") == "[Add] Rocket (1.2.0)")
        #expect(try specs.git("rev-parse", "master^") == start, "one commit on top of the branch, not forced")

        let again = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already holds this podspec: unchanged, nothing sent"), "\(again.all)")
        #expect(try specs.git("rev-list", "--count", "master") == "2")
    }

    /// A subspec depending on a subspec the pod does not have stops the run before anything is
    /// sent, in a dry run and a real one alike: exit 2 (usage), the subspec and the fix named, no
    /// request to trunk (not even the session's), no run record left.
    @Test func aBadSubspecStopsTheRunBeforeAnythingIsSent() async throws {
        let trunk = FakeTrunk(token: "trunk-session-token-0123456789abcdef")
        try await trunk.start()
        defer { trunk.stop() }
        let repo = try repository()
        try repo.write("Rocket.podspec", rubyPodspec.replacingOccurrences(of: "core.ios.frameworks = 'UIKit'", with: "core.ios.frameworks = 'UIKit'\n    core.dependency 'Rocket/Networking'"))
        try repo.git("commit", "-q", "-am", "chore: the pod's core needs networking")
        let head = try repo.git("rev-parse", "HEAD")
        for arguments in [["--dry-run", "pods"], ["pods"]] {
            let run = try await repo.shiplaneAsync(arguments, environment: ["TRUNK": trunk.baseURL, "COCOAPODS_TRUNK_TOKEN": trunk.token])
            #expect(run.status == 2, "\(run.all)")
            #expect(run.all.contains("Rocket.podspec: Rocket/Core depends on Rocket/Networking, which is not a subspec of Rocket (its subspecs: Rocket/Core): fix the name or add the subspec"), "\(run.all)")
            #expect(trunk.log.isEmpty, "\(trunk.log)")
            #expect(repo.read(".git/shiplane/run.json") == nil)
            #expect(try repo.git("rev-parse", "HEAD") == head)
        }
    }

    /// A podspec of another version, a JSON podspec missing what trunk requires, a missing or
    /// wrong token and another owner's pod: each a clear error, nothing pushed.
    @Test func theVersionTheTokenAndTrunksRefusalsAreClearErrors() async throws {
        let trunk = FakeTrunk(token: "trunk-session-token-0123456789abcdef")
        trunk.othersPods = ["Taken"]
        try await trunk.start()
        defer { trunk.stop() }
        let repo = try repository()
        var environment = ["TRUNK": trunk.baseURL, "COCOAPODS_TRUNK_TOKEN": trunk.token, "VERSION": "1.3.0"]
        let wrongVersion = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(wrongVersion.status != 0)
        #expect(wrongVersion.all.contains("Rocket.podspec says version 1.2.0, but the release is 1.3.0"), "\(wrongVersion.all)")
        #expect(wrongVersion.all.contains("source tag v1.2.0 is not the release's"), "\(wrongVersion.all)")

        try repo.write("Rocket.podspec.json", #"{"name": "Rocket", "version": "1.3.0", "source": {"git": "https://github.com/acme/rocket.git", "tag": "1.3.0"}}"#)
        environment["PODSPEC"] = "Rocket.podspec.json"
        environment["COCOAPODS_TRUNK_TOKEN"] = nil
        let incomplete = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(incomplete.status != 0)
        for problem in ["has no summary", "has no homepage", "has no license", "has no author(s)", "COCOAPODS_TRUNK_TOKEN is not set"] {
            #expect(incomplete.all.contains(problem), "\(problem)\n\(incomplete.all)")
        }

        try repo.write("Taken.podspec.json", #"{"name": "Taken", "version": "1.3.0", "summary": "s", "homepage": "https://x.test", "license": "MIT", "authors": "A", "source": {"git": "https://x.test/t.git", "tag": "1.3.0"}}"#)
        environment["PODSPEC"] = "Taken.podspec.json"
        environment["COCOAPODS_TRUNK_TOKEN"] = "not-the-session-token-0987654321"
        let wrongToken = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(wrongToken.status != 0)
        #expect(wrongToken.all.contains("Authentication token is invalid or unverified") && wrongToken.all.contains("set COCOAPODS_TRUNK_TOKEN"), "\(wrongToken.all)")
        #expect(!wrongToken.all.contains("not-the-session-token-0987654321"))

        environment["COCOAPODS_TRUNK_TOKEN"] = trunk.token
        let taken = try await repo.shiplaneAsync(["pods"], environment: environment)
        #expect(taken.status != 0)
        #expect(taken.all.contains("You are not allowed to push new versions for this pod") && taken.all.contains("pod trunk add-owner"), "\(taken.all)")
        #expect(taken.status != 75, "a refused push published nothing: the run is not past its point of no return\n\(taken.all)")
        #expect(repo.read(".git/shiplane/run.json") == nil, "the run finished (rolled back), no record left")
        #expect(trunk.spec("Taken", "1.3.0") == nil && trunk.spec("Rocket", "1.3.0") == nil)
        #expect(trunk.violations.isEmpty, "\(trunk.violations)")
    }
}
