import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// `lane.provenance(…, attestOnGitHub: true)` stores the envelope as a GitHub artifact attestation
/// (a Sigstore bundle, `POST /repos/{owner}/{repo}/attestations`) once, and `shiplane verify
/// --github-attestations` reads them back (`GET /repos/{owner}/{repo}/attestations/{subject_digest}`),
/// against the GitHub stand-in whose attestation routes follow GitHub's OpenAPI description.
@Suite("provenance stored as GitHub attestations, and verify reading them", .offThePool)
struct GitHubAttestationTests {
    static let lane = #"""
    import Shiplane

    struct Attest: Lane {
        @Flag var github = false

        func run(_ lane: LaneContext) async throws {
            let sums = try lane.checksums(["dist/rocket-1.0.0.tar.gz"], to: "dist/SHA256SUMS")
            try lane.provenance(for: ["dist/rocket-1.0.0.tar.gz"], to: "dist/rocket-1.0.0.intoto.jsonl", attestOnGitHub: github)
            _ = sums
        }
    }
    """#

    struct Setup {
        var repo: TemporaryRepository
        var github: FakeGitHub
        var attestations: FakeGitHubAttestations
        var key: String
        var environment: [String: String]
    }

    func setUp() async throws -> Setup {
        let repo = try repositoryWithLanes(["Lanes/Attest.swift": Self.lane])
        try repo.write("dist/rocket-1.0.0.tar.gz", "archive bytes of rocket 1.0.0")
        try repo.write(".gitignore", "dist/SHA256SUMS\ndist/*.intoto.jsonl\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "release files")
        let key = try makeSSHKey(["-t", "ed25519"], named: "attest", in: repo.root)
        let github = FakeGitHub()
        let attestations = FakeGitHubAttestations()
        github.attestations = attestations
        try await github.start()
        let environment = ["SHIPLANE_ATTESTATION_KEY": try String(contentsOfFile: key, encoding: .utf8), "GITHUB_API_URL": github.baseURL,
                           "GITHUB_TOKEN": github.token, "GITHUB_REPOSITORY": "acme/rocket"]
        return Setup(repo: repo, github: github, attestations: attestations, key: key, environment: environment)
    }

    func postCount(_ github: FakeGitHub) -> Int { github.log.filter { $0 == "POST /repos/acme/rocket/attestations" }.count }

    @Test func theEnvelopeIsStoredOnceAsASigstoreBundleAndADryRunStoresNothing() async throws {
        let setup = try await setUp()
        defer { setup.github.stop() }
        let dry = try await setup.repo.shiplaneAsync(["attest", "--github", "--dry-run"], environment: setup.environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.all.contains("would store dist/rocket-1.0.0.intoto.jsonl as an attestation of acme/rocket"), "\(dry.all)")
        #expect(setup.attestations.all.isEmpty && postCount(setup.github) == 0)

        let run = try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment)
        #expect(run.status == 0, "\(run.all)")
        #expect(!run.all.contains(setup.github.token))
        let stored = try #require(setup.attestations.all.first)
        #expect(setup.attestations.all.count == 1)
        #expect(stored.bundle["mediaType"] as? String == "application/vnd.dev.sigstore.bundle.v0.3+json")
        let fingerprint = try runProgram("/usr/bin/ssh-keygen", ["-l", "-f", setup.key + ".pub"], in: setup.repo.root, environment: ["PATH": "/usr/bin:/bin"])
            .stdout.split(separator: " ").dropFirst().first.map(String.init)
        let material = try #require(stored.bundle["verificationMaterial"] as? [String: Any])
        #expect((material["publicKey"] as? [String: Any])?["hint"] as? String == fingerprint)
        let file = try #require(FileManager.default.contents(atPath: setup.repo.path + "/dist/rocket-1.0.0.intoto.jsonl"))
        let written = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        let envelope = try #require(stored.bundle["dsseEnvelope"] as? [String: Any])
        #expect(envelope["payload"] as? String == written["payload"] as? String)
        #expect((envelope["signatures"] as? [[String: Any]])?.first?["sig"] as? String == (written["signatures"] as? [[String: Any]])?.first?["sig"] as? String)
        #expect(stored.digests == [SHA256.hex(of: Array("archive bytes of rocket 1.0.0".utf8))])

        // Again: the list finds the same statement, and nothing is sent.
        let again = try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(setup.attestations.all.count == 1 && postCount(setup.github) == 1, "\(setup.github.log)")
        #expect(setup.github.log.contains { $0.hasPrefix("GET /repos/acme/rocket/attestations/sha256:") })
        #expect(setup.attestations.violations.isEmpty, "\(setup.attestations.violations)")
    }

    /// GitHub stores the bundle and the answer is lost: the run stops past its point of no return;
    /// the same command again lists GitHub's attestations, finds it, and sends nothing.
    /// The bundle Shiplane makes fits the Sigstore bundle layout (protobuf-specs' Bundle,
    /// VerificationMaterial, Envelope) the stand-in checks every upload against, and the check
    /// names what breaks it.
    @Test func theBundleFitsTheSigstoreBundleLayout() throws {
        let envelope: [String: Any] = ["payload": Data("{\"_type\":\"https://in-toto.io/Statement/v1\"}".utf8).base64EncodedString(),
                                       "payloadType": "application/vnd.in-toto+json",
                                       "signatures": [["sig": Data([1, 2, 3]).base64EncodedString(), "keyid": "SHA256:abc"]]]
        let bundle = SigstoreBundle.bundle(envelope: envelope)
        #expect(FakeGitHubAttestations.sigstoreBundleProblems(bundle) == [])
        var both = bundle
        var material = bundle["verificationMaterial"] as? [String: Any] ?? [:]
        material["certificate"] = ["rawBytes": "AAAA"]
        both["verificationMaterial"] = material
        #expect(FakeGitHubAttestations.sigstoreBundleProblems(both).contains { $0.contains("publicKey and certificate") })
        var unsigned = bundle
        unsigned["dsseEnvelope"] = ["payload": "not base64!", "payloadType": "application/vnd.in-toto+json", "signatures": [] as [Any], "extra": 1]
        let problems = FakeGitHubAttestations.sigstoreBundleProblems(unsigned)
        #expect(problems.contains("bundle.dsseEnvelope.payload must be base64"), "\(problems)")
        #expect(problems.contains("bundle.dsseEnvelope.signatures must be a non-empty array"), "\(problems)")
        #expect(problems.contains { $0.contains("bundle.dsseEnvelope.extra") }, "\(problems)")
        var none = bundle
        none["dsseEnvelope"] = nil
        none["mediaType"] = "application/json"
        #expect(FakeGitHubAttestations.sigstoreBundleProblems(none).count == 2)
    }

    @Test func aLostAnswerIsNotUploadedTwice() async throws {
        let setup = try await setUp()
        defer { setup.github.stop() }
        setup.github.inject(FakeGitHub.Fault(method: "POST", pathContains: "/attestations", remaining: 1, action: .dropResponse))
        let cut = try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment)
        #expect(cut.status != 0, "\(cut.all)")
        #expect(setup.attestations.all.count == 1)
        let again = try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(setup.attestations.all.count == 1 && postCount(setup.github) == 1, "\(setup.github.log)")
        #expect(setup.attestations.violations.isEmpty, "\(setup.attestations.violations)")
    }

    /// GitHub refuses the bundle (403: the token lacks attestations: write): nothing was stored,
    /// the point of no return the step passed is taken back, and the run rolls back its files.
    @Test func aRefusedUploadLeavesNothingStored() async throws {
        let setup = try await setUp()
        defer { setup.github.stop() }
        setup.github.failNext(1, method: "POST", path: "/attestations", status: 403,
                              headers: ["x-accepted-github-permissions": "attestations=write"],
                              body: #"{"message":"Resource not accessible by integration"}"#, contentType: "application/json")
        let refused = try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment)
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("attestations=write"), "\(refused.all)")
        #expect(setup.attestations.all.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: setup.repo.path + "/dist/rocket-1.0.0.intoto.jsonl"), "rolled back")
    }

    @Test func theUndoSaysTheAttestationStaysForGitHubHasNoDelete() async throws {
        let effect = GitHubAttestationUploaded(repository: "acme/rocket", subjectDigest: "sha256:ab", file: "dist/a.intoto.jsonl", id: 7)
        #expect(effect.reach == .permanent)
        let context = EffectContext(workTree: "/", environment: LaneEnvironment(variables: [:]), fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                                    retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
        await #expect(throws: EffectStays.self) { try await effect.undo(in: context, status: .done) }
        #expect(Features.effects.contains { $0 == GitHubAttestationUploaded.self })
    }

    /// verify ADDRESS --github-attestations: each released file's attestations, read from GitHub,
    /// must name it and be signed by the key given; none, or one by another key, is a problem.
    @Test func verifyReadsTheAttestationsOfEachReleasedFile() async throws {
        let setup = try await setUp()
        defer { setup.github.stop() }
        #expect(try await setup.repo.shiplaneAsync(["attest", "--github"], environment: setup.environment).status == 0)
        let id = setup.github.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "rocket-1.0.0.intoto.jsonl"] {
            setup.github.addAsset(releaseID: id, name: name, bytes: Array(try #require(FileManager.default.contents(atPath: setup.repo.path + "/dist/" + name))))
        }
        let head = try setup.repo.git("rev-parse", "HEAD")
        setup.github.setCommit(head, forRef: "v1.0.0")
        let tmp = setup.repo.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let environment = ["GITHUB_API_URL": setup.github.baseURL, "GITHUB_TOKEN": setup.github.token, "TMPDIR": tmp]
        let address = "\(setup.github.baseURL)/acme/rocket/releases/tag/v1.0.0"
        let good = try await setup.repo.shiplaneAsync(["verify", address, "--forge", "github", "--github-attestations", "--attestation-key", setup.key + ".pub"],
                                                      environment: environment)
        #expect(good.status == 0, "\(good.all)")
        #expect(good.stdout.contains("GitHub attestation 1 names it with its SHA-256"), "\(good.all)")
        #expect(good.stdout.contains("GitHub attestation 1 is signed by the attestation key given"), "\(good.all)")
        #expect(good.stdout.contains("GitHub attestation 1's source is commit \(head)"), "\(good.all)")

        // Another key's attestation only: it does not check out.
        let other = try makeSSHKey(["-t", "ed25519"], named: "other", in: setup.repo.root)
        let bad = try await setup.repo.shiplaneAsync(["verify", address, "--forge", "github", "--github-attestations", "--attestation-key", other + ".pub"],
                                                     environment: environment)
        #expect(bad.status == 1, "\(bad.all)")
        #expect(bad.stderr.contains("rocket-1.0.0.tar.gz: no attestation GitHub holds for it checks out"), "\(bad.all)")

        // A repository that holds none.
        let empty = FakeGitHub()
        empty.attestations = FakeGitHubAttestations()
        try await empty.start()
        defer { empty.stop() }
        let emptyID = empty.addRelease(tag: "v1.0.0", draft: false)
        for name in ["rocket-1.0.0.tar.gz", "SHA256SUMS", "rocket-1.0.0.intoto.jsonl"] {
            empty.addAsset(releaseID: emptyID, name: name, bytes: Array(try #require(FileManager.default.contents(atPath: setup.repo.path + "/dist/" + name))))
        }
        empty.setCommit(head, forRef: "v1.0.0")
        let none = try await setup.repo.shiplaneAsync(
            ["verify", "\(empty.baseURL)/acme/rocket/releases/tag/v1.0.0", "--forge", "github", "--github-attestations", "--attestation-key", setup.key + ".pub"],
            environment: ["GITHUB_API_URL": empty.baseURL, "GITHUB_TOKEN": empty.token, "TMPDIR": tmp])
        #expect(none.status == 1, "\(none.all)")
        #expect(none.stderr.contains("GitHub holds no attestation of it"), "\(none.all)")
        #expect(setup.attestations.violations.isEmpty && empty.attestations?.violations.isEmpty == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }
}
