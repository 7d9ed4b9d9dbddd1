import Foundation
import Testing
import Shiplane
@testable import ShiplaneCLI

/// A project with no version file (Go, SwiftPM, a Cargo workspace): its version is its tags.
@Suite("Tag-only versioning: the highest release tag reachable from HEAD, bumped by tagging", .offThePool)
struct TagOnlyVersionTests {
    /// main: feat → (v1.2.0, nightly) → fix; a side branch carries v9.0.0, not reachable from main.
    func tagOnlyRepository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("main.go", "package main\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: first")
        try repo.git("tag", "-a", "v1.2.0", "-m", "Release 1.2.0")
        try repo.git("tag", "nightly")
        try repo.git("tag", "v1.1.0", "HEAD~1")
        try repo.git("checkout", "-q", "-b", "side")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: side work")
        try repo.git("tag", "v9.0.0")
        try repo.git("checkout", "-q", "main")
        try repo.git("commit", "-q", "--allow-empty", "-m", "fix: a bug")
        return repo
    }

    @Test func theVersionIsTheHighestReachableReleaseTagAndIgnoredTagsAreNamed() throws {
        let repo = try tagOnlyRepository()
        let result = try repo.shiplane(["version"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.hasPrefix("1.2.0\n"), "\(result.stdout)")
        #expect(result.stdout.contains("v1.2.0: no version file"))
        #expect(result.stdout.contains("nightly (not a SemVer version such as v1.2.3)"))
        #expect(result.stdout.contains("v9.0.0 (not reachable from HEAD)"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try repo.shiplane(["version", "--json"]).stdout.utf8)) as? [String: Any])
        #expect(json["origin"] as? String == "tags")
        #expect(json["versionTag"] as? String == "v1.2.0")
        #expect((json["ignoredTags"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["nightly", "v9.0.0"])
    }

    @Test func beforeTheFirstTagTheVersionIsZeroAndSaysSo() throws {
        let repo = try TemporaryRepository()
        let result = try repo.shiplane(["version"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.hasPrefix("0.0.0\n"))
        #expect(result.stdout.contains("no release tag yet, so the version starts at 0.0.0"))
    }

    @Test func bumpTagsHeadAndCommitsNothing() throws {
        let repo = try tagOnlyRepository()
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "auto"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.2.0 → 1.2.1"))
        #expect(try repo.git("rev-parse", "HEAD") == head, "no release commit: nothing was written")
        #expect(try repo.git("rev-parse", "v1.2.1^{commit}") == head)
        #expect(try repo.git("cat-file", "-t", "v1.2.1") == "tag", "an annotated tag")
        #expect(try repo.git("status", "--porcelain").isEmpty)
        try repo.git("fsck", "--strict")
        #expect(try repo.shiplane(["version"]).stdout.hasPrefix("1.2.1\n"))
    }

    @Test func bumpCommitTagPushesOnlyTheTagWhenNothingIsWritten() throws {
        let repo = try tagOnlyRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: more")
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "auto", "--commit", "--tag", "--push"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("nothing was written, so there is nothing to commit"))
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try origin.git("rev-parse", "v1.3.0^{commit}") == head)
        #expect(try origin.git("rev-parse", "main") == head)
        try origin.git("fsck", "--strict")
    }

    @Test func aDryRunOfATagOnlyBumpWritesNothing() throws {
        let repo = try tagOnlyRepository()
        let tags = try repo.git("tag")
        let result = try repo.shiplane(["bump", "minor", "--dry-run"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.2.0 → 1.3.0"))
        #expect(result.stdout.contains("would tag"), "\(result.stdout)")
        #expect(try repo.git("tag") == tags)
    }
}

@Suite("Changelog: release commits left out, subjects with no known type kept whole", .offThePool)
struct ChangelogSubjectTests {
    @Test func releaseCommitsAreLeftOutAndUnknownTypesStayWholeUnderOther() throws {
        let repo = try TemporaryRepository()
        try repo.git("tag", "v1.0.0")
        for message in ["feat: wings", "branch: add --dry-run to the branch check", "chore(release): 1.1.0", "Version bump to 1.1.0", "chore: tidy"] {
            try repo.git("commit", "-q", "--allow-empty", "-m", message)
        }
        let result = try repo.shiplane(["changelog"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("### Other"))
        #expect(result.stdout.contains("- branch: add --dry-run to the branch check"), "\(result.stdout)")
        #expect(!result.stdout.contains("1.1.0"), "Shiplane's own release commits are never listed: \(result.stdout)")
        #expect(!result.stdout.contains("Miscellaneous"))
    }
}

@Suite("Colour: NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE and --no-color", .offThePool)
struct ColorDecisionTests {
    @Test(arguments: [
        (false, false, [String: String](), false),
        (true, false, [:], true),
        (true, true, [:], false),
        (true, false, ["NO_COLOR": "1"], false),
        (true, false, ["NO_COLOR": ""], true),
        (false, false, ["FORCE_COLOR": "1"], true),
        (false, false, ["FORCE_COLOR": "3"], true),
        (false, false, ["FORCE_COLOR": "0"], false),
        (false, false, ["FORCE_COLOR": ""], false),
        (false, false, ["CLICOLOR_FORCE": "1"], true),
        (false, false, ["FORCE_COLOR": "1", "NO_COLOR": "1"], false),
        (false, true, ["FORCE_COLOR": "1"], false),
        (true, false, ["TERM": "dumb"], false),
        (true, false, ["CLICOLOR": "0"], false),
        (false, false, ["FORCE_COLOR": "1", "TERM": "dumb"], true),
    ])
    func decides(isTerminal: Bool, flag: Bool, environment: [String: String], expected: Bool) {
        #expect(Terminal.usesColor(isTerminal: isTerminal, noColorFlag: flag, environment: environment) == expected)
    }

    @Test func forceColorColoursAPipeAndNoColorWins() throws {
        let repo = try versionedRepository()
        // The test environment sets NO_COLOR=1; an empty NO_COLOR counts as unset (no-color.org).
        let forced = try repo.shiplane(["bump", "patch", "--dry-run"], environment: ["FORCE_COLOR": "1", "NO_COLOR": ""])
        #expect(forced.status == 0, "\(forced.all)")
        #expect(forced.stdout.contains("\u{1B}["), "FORCE_COLOR colours output into a pipe")
        let plain = try repo.shiplane(["bump", "patch", "--dry-run"], environment: ["FORCE_COLOR": "1", "NO_COLOR": "1"])
        #expect(!plain.all.contains("\u{1B}["))
        let piped = try repo.shiplane(["bump", "patch", "--dry-run"], environment: ["NO_COLOR": ""])
        #expect(!piped.all.contains("\u{1B}["), "a pipe gets no colour by default")
    }
}

/// Test stand-ins for the release lane's two keys: an OpenPGP key named as the release key (gpg
/// made it) and an Ed25519 provenance key (openssl made it), in `root/keys`, with the public keys
/// beside them (`release.gpg`, `release.asc`). The caller stops the GnuPG home's agent.
private func releaseKeys(in root: String) throws -> (variables: [String: String], keys: String, gnupgHome: String) {
    let keys = root + "/keys"
    try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
    let home = try makeGPGHome(in: root, user: "Shiplane releases")
    let gpg = ["PATH": "/usr/bin:/bin", "GNUPGHOME": home]
    let secret = try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--export-secret-keys"], in: keys, environment: gpg).stdout
    #expect(try runProgram("/usr/bin/gpg", ["--batch", "--export", "--output", keys + "/release.gpg"], in: keys, environment: gpg).status == 0)
    #expect(try runProgram("/usr/bin/gpg", ["--batch", "--armor", "--export", "--output", keys + "/release.asc"], in: keys, environment: gpg).status == 0)
    #expect(try runTool(["openssl", "genpkey", "-algorithm", "ed25519", "-out", keys + "/attest.pem"]).status == 0)
    let attestation = try String(contentsOfFile: keys + "/attest.pem", encoding: .utf8)
    return (["SHIPLANE_GPG_KEY": secret, "SHIPLANE_ATTESTATION_KEY": attestation], keys, home)
}

@Suite("Shiplane releases itself with its own lane", .offThePool)
struct SelfReleaseTests {
    @Test func theReleaseLaneOfThisRepositoryRunsOnAClone() throws {
        let repo = try TemporaryRepository(commit: false)
        // A clone of this repository's committed history (the work tree as committed).
        _ = try runProgram("/usr/bin/git", ["clone", "-q", "--no-hardlinks", packageRoot, repo.path + "/clone"], in: repo.root,
                           environment: isolatedEnvironment(home: repo.root + "/home"))
        let clone = repo.path + "/clone"
        let environment = isolatedEnvironment(home: repo.root + "/home")
        // The lane releases from main: the clone is on main whatever branch this checkout is on.
        _ = try runProgram("/usr/bin/git", ["checkout", "-q", "-B", "main"], in: clone, environment: environment)
        let before = try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: clone, environment: environment).stdout
        // The SBOM reads Package.resolved (not committed): a checkout that was ever built has one,
        // and the bundle's build makes it in a real run.
        try FileManager.default.copyItem(atPath: packageRoot + "/Package.resolved", toPath: clone + "/Package.resolved")
        // The keys the release signs with are checked first, dry run included: without them it
        // stops before the bundle's build, naming each and how to set it, or --unsigned.
        let keyless = try runProgram(shiplaneBinary, ["release", "--bump", "minor", "--dry-run"], in: clone, environment: environment)
        #expect(keyless.status == 1 && keyless.all.contains("SHIPLANE_GPG_KEY is not set") && keyless.all.contains("SHIPLANE_ATTESTATION_KEY is not set"),
                "\(keyless.all)")
        #expect(keyless.all.contains("openssl genpkey -algorithm ed25519") && keyless.all.contains("pass --unsigned"), "\(keyless.all)")
        #expect(!keyless.all.contains("Scripts/bundle"), "it stops before the bundle's build: \(keyless.all)")
        let (keyVariables, _, home) = try releaseKeys(in: repo.root)
        defer { stopGPGAgent(home) }
        let gpgOnly = ["SHIPLANE_GPG_KEY": keyVariables["SHIPLANE_GPG_KEY"] ?? ""]
        let oneKey = try runProgram(shiplaneBinary, ["release", "--bump", "minor", "--dry-run"], in: clone, environment: environment.merging(gpgOnly) { $1 })
        #expect(oneKey.status == 1 && oneKey.all.contains("SHIPLANE_ATTESTATION_KEY is not set") && !oneKey.all.contains("SHIPLANE_GPG_KEY is not set"),
                "only the missing key is named: \(oneKey.all)")
        #expect(!oneKey.all.contains("PRIVATE KEY"), "no key is printed")
        // --unsigned: no keys needed, nothing signed, and it says so.
        let unsignedDry = try runProgram(shiplaneBinary, ["release", "--bump", "minor", "--dry-run", "--unsigned"], in: clone, environment: environment)
        #expect(unsignedDry.status == 0, "\(unsignedDry.all)")
        #expect(unsignedDry.all.contains("--unsigned: the bundle is released without SHA256SUMS.asc and without provenance"), "\(unsignedDry.all)")
        #expect(!unsignedDry.stdout.contains("would sign") && !unsignedDry.stdout.contains("▸ provenance"), "\(unsignedDry.stdout)")
        let dry = try runProgram(shiplaneBinary, ["release", "--bump", "minor", "--dry-run"], in: clone, environment: environment.merging(keyVariables) { $1 })
        #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
        #expect(dry.stdout.contains("would sign .build-bundle/dist/SHA256SUMS") && dry.stdout.contains("▸ provenance"), "\(dry.stdout)")
        #expect(dry.stdout.contains("Sources/Shiplane/Shiplane.swift"), "the version constant is the version file: \(dry.stdout)")
        #expect(dry.stdout.contains("would run: Scripts/bundle --output .build-bundle/dist"), "\(dry.stdout)")
        #expect(dry.stdout.contains("would run: Scripts/bundle --check --output .build-bundle/dist"), "\(dry.stdout)")
        // What users download is planned too, signed with the keys the dry run checks (none here).
        #expect(dry.stdout.contains("is not there yet: a real run hashes it once a command of the lane has made it"), "\(dry.stdout)")
        #expect(dry.stdout.contains("(not built in a dry run)"), "no made-up digest in the plan: \(dry.stdout)")
        // --no-bundle: the bundle's release build takes 15-25 minutes (see bundleFailureStopsTheRelease).
        let real = try runProgram(shiplaneBinary, ["release", "--bump", "minor", "--no-bundle"], in: clone, environment: environment)
        #expect(real.status == 0, "\(real.stdout)\(real.stderr)")
        let show = try runProgram("/usr/bin/git", ["show", "--name-only", "--format=%s", "HEAD"], in: clone, environment: environment).stdout
        #expect(show.hasPrefix("chore(release): ") && show.contains("CHANGELOG.md") && show.contains("Sources/Shiplane/Shiplane.swift"), "\(show)")
        let parent = try runProgram("/usr/bin/git", ["rev-parse", "HEAD~1"], in: clone, environment: environment).stdout
        #expect(parent == before)
        let tags = try runProgram("/usr/bin/git", ["tag", "--points-at", "HEAD"], in: clone, environment: environment).stdout
        #expect(tags.hasPrefix("v"), "\(tags)")
    }

    /// The lane builds and checks the bundle after the bump and before it commits: a failing
    /// `Scripts/bundle` (here a stand-in committed in the clone) rolls the bump back, and nothing is
    /// committed or tagged; a bundle that builds lets the release go on.
    @Test func aBundleThatFailsStopsTheReleaseBeforeItsCommit() throws {
        let repo = try TemporaryRepository(commit: false)
        _ = try runProgram("/usr/bin/git", ["clone", "-q", "--no-hardlinks", packageRoot, repo.path + "/clone"], in: repo.root,
                           environment: isolatedEnvironment(home: repo.root + "/home"))
        let clone = repo.path + "/clone"
        let environment = isolatedEnvironment(home: repo.root + "/home")
        // The lane releases from main: the clone is on main whatever branch this checkout is on.
        _ = try runProgram("/usr/bin/git", ["checkout", "-q", "-B", "main"], in: clone, environment: environment)
        func git(_ arguments: String...) throws -> String {
            try runProgram("/usr/bin/git", arguments, in: clone, environment: environment).stdout
        }
        func standIn(_ body: String) throws {
            try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: clone + "/Scripts/bundle"))
            chmod(clone + "/Scripts/bundle", 0o755)
            _ = try git("commit", "-q", "-am", "test: a stand-in for Scripts/bundle")
        }
        try standIn("echo \"bundle $*\"; [ \"$1\" = --check ] && { echo 'the lane did not compile from the interfaces' >&2; exit 1; }; exit 0")
        let before = try git("rev-parse", "HEAD")
        let version = try String(contentsOfFile: clone + "/Sources/Shiplane/Shiplane.swift", encoding: .utf8)
        // The keys are there (without them the run would stop before the bundle's build).
        let (keyVariables, keys, home) = try releaseKeys(in: repo.root)
        defer { stopGPGAgent(home) }
        let withKeys = environment.merging(keyVariables) { $1 }
        let failed = try runProgram(shiplaneBinary, ["release", "--bump", "minor"], in: clone, environment: withKeys)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(failed.all.contains("Scripts/bundle --check --output .build-bundle/dist"), "\(failed.all)")
        #expect(try git("rev-parse", "HEAD") == before, "nothing committed")
        #expect(try git("tag", "--points-at", "HEAD").isEmpty, "nothing tagged")
        #expect(try String(contentsOfFile: clone + "/Sources/Shiplane/Shiplane.swift", encoding: .utf8) == version, "the bump is rolled back")
        #expect(try git("status", "--porcelain").isEmpty)

        // A bundle that builds: the stand-in writes a tarball, and the Package.resolved its build
        // would have resolved. The release then makes what users download: the SBOM, the signed
        // provenance, SHA256SUMS over the three, and its OpenPGP signature by the release key.
        try standIn("""
        case "$1" in
          --name) echo shiplane-9.9.9-linux-x86_64.tar.gz ;;
          --check) echo "bundle $*" ;;
          --output) echo "bundle $*" && mkdir -p .build-bundle/dist && printf 'the bundle' > .build-bundle/dist/shiplane-9.9.9-linux-x86_64.tar.gz &&
            printf '%s\\n' '{"pins":[{"identity":"yams","kind":"remoteSourceControl","location":"https://github.com/jpsim/Yams.git","state":{"revision":"3d6871d5b4a5cd519adf233fbb576e0a2af71c17","version":"5.4.0"}}],"version":2}' > Package.resolved ;;
        esac
        """)
        let attestation = keyVariables["SHIPLANE_ATTESTATION_KEY"] ?? ""

        // Without the keys, the run stops before anything: no bundle built, nothing committed or tagged.
        let keyless = try runProgram(shiplaneBinary, ["release", "--bump", "minor"], in: clone, environment: environment)
        #expect(keyless.status == 1, "\(keyless.all)")
        #expect(keyless.all.contains("SHIPLANE_ATTESTATION_KEY is not set"), "\(keyless.all)")
        #expect(!keyless.all.contains("bundle --output"), "the bundle is not built: \(keyless.all)")
        #expect(try git("status", "--porcelain").isEmpty)
        let unreleased = try git("rev-parse", "HEAD")
        #expect(try git("tag", "--points-at", "HEAD").isEmpty, "nothing tagged")

        let built = try runProgram(shiplaneBinary, ["release", "--bump", "minor"], in: clone, environment: withKeys)
        #expect(built.status == 0, "\(built.all)")
        #expect(try git("tag", "--points-at", "HEAD").hasPrefix("v"))
        #expect(try git("rev-parse", "HEAD~1") == unreleased)
        #expect(!built.all.contains(attestation) && !built.all.contains("PRIVATE KEY"), "no key is printed")
        let dist = clone + "/.build-bundle/dist"
        let listed = try String(contentsOfFile: dist + "/SHA256SUMS", encoding: .utf8)
        for name in ["shiplane-9.9.9-linux-x86_64.tar.gz", "shiplane-9.9.9-linux-x86_64.cdx.json", "shiplane-9.9.9-linux-x86_64.intoto.jsonl"] {
            #expect(listed.contains("  " + name + "\n"), "SHA256SUMS names \(name): \(listed)")
        }
        // What the README's install snippet runs: gpgv with the release key alone, then sha256sum.
        let gpgv = try runProgram("/usr/bin/gpgv", ["--keyring", keys + "/release.gpg", "SHA256SUMS.asc", "SHA256SUMS"], in: dist, environment: environment)
        #expect(gpgv.status == 0 && gpgv.stderr.contains("Good signature from \"Shiplane releases\""), "\(gpgv.all)")
        #expect(try runProgram("/usr/bin/sha256sum", ["-c", "SHA256SUMS"], in: dist, environment: environment).status == 0)
        let sbom = try String(contentsOfFile: dist + "/shiplane-9.9.9-linux-x86_64.cdx.json", encoding: .utf8)
        #expect(sbom.contains("pkg:swift/github.com/jpsim/Yams@5.4.0"), "the SBOM names the packages the bundle is built from")
        // And the whole chain, as `shiplane verify` checks a download folder.
        #expect(try runTool(["openssl", "pkey", "-in", keys + "/attest.pem", "-pubout", "-out", keys + "/attest.pub.pem"]).status == 0)
        let tagged = try git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
        let chain = ["verify", dist, "--gpg-key", keys + "/release.asc", "--attestation-key", keys + "/attest.pub.pem"]
        let verified = try runProgram(shiplaneBinary, chain + ["--commit", tagged], in: clone, environment: environment)
        #expect(verified.status == 0, "\(verified.all)")
        #expect(verified.stdout.contains("its DSSE envelope is signed by the attestation key given")
                && verified.stdout.contains("its source is commit \(tagged)"), "\(verified.all)")
        // Another commit, or another provenance key: each is a problem naming the file (exit 1).
        let other = unreleased.trimmingCharacters(in: .whitespacesAndNewlines)
        let otherCommit = try runProgram(shiplaneBinary, chain + ["--commit", other], in: clone, environment: environment)
        #expect(otherCommit.status == 1 && otherCommit.all.contains("its source is not commit \(other)"), "\(otherCommit.all)")
        #expect(try runTool(["openssl", "genpkey", "-algorithm", "ed25519", "-out", keys + "/other.pem"]).status == 0)
        #expect(try runTool(["openssl", "pkey", "-in", keys + "/other.pem", "-pubout", "-out", keys + "/other.pub.pem"]).status == 0)
        let otherKey = try runProgram(shiplaneBinary, ["verify", dist, "--gpg-key", keys + "/release.asc", "--attestation-key", keys + "/other.pub.pem"],
                                      in: clone, environment: environment)
        #expect(otherKey.status == 1 && otherKey.all.contains("its DSSE signature does not verify with the attestation key"), "\(otherKey.all)")

        // The envelope pretty-printed (as a `.intoto.json` often is) reads the same: its whole
        // text is the document, not its first line. (A copy without the OpenPGP signature, its
        // SHA256SUMS made again for the new bytes.)
        let pretty = repo.root + "/pretty"
        try FileManager.default.copyItem(atPath: dist, toPath: pretty)
        try FileManager.default.removeItem(atPath: pretty + "/SHA256SUMS.asc")
        let statement = pretty + "/shiplane-9.9.9-linux-x86_64.intoto.jsonl"
        let reformatted = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statement))),
                                                     options: [.prettyPrinted])
        try reformatted.write(to: URL(fileURLWithPath: statement))
        let resummed = try runProgram("/bin/sh", ["-c", "sha256sum shiplane-9.9.9-linux-x86_64.* > SHA256SUMS"], in: pretty, environment: environment)
        #expect(resummed.status == 0, "\(resummed.all)")
        let prettyVerified = try runProgram(shiplaneBinary, ["verify", pretty, "--attestation-key", keys + "/attest.pub.pem", "--commit", tagged],
                                            in: clone, environment: environment)
        #expect(prettyVerified.status == 0 && prettyVerified.stdout.contains("its DSSE envelope is signed by the attestation key given")
                && prettyVerified.stdout.contains("its source is commit \(tagged)"), "\(prettyVerified.all)")

        // --unsigned, without keys: the bundle, its SBOM and SHA256SUMS over the two; no
        // provenance and no OpenPGP signature, and the run says so.
        try FileManager.default.removeItem(atPath: dist)
        _ = try git("commit", "-q", "--allow-empty", "-m", "fix: something to release")
        let unsigned = try runProgram(shiplaneBinary, ["release", "--bump", "patch", "--unsigned"], in: clone, environment: environment)
        #expect(unsigned.status == 0, "\(unsigned.all)")
        #expect(unsigned.all.contains("--unsigned: the bundle is released without SHA256SUMS.asc and without provenance"), "\(unsigned.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dist).sorted()
                == ["SHA256SUMS", "shiplane-9.9.9-linux-x86_64.cdx.json", "shiplane-9.9.9-linux-x86_64.tar.gz"])
        #expect(try runProgram("/usr/bin/sha256sum", ["-c", "SHA256SUMS"], in: dist, environment: environment).status == 0)
        #expect(try git("tag", "--points-at", "HEAD").hasPrefix("v"))
    }
}

@Suite("Release commits: only the subjects Shiplane writes", .offThePool)
struct ReleaseCommitSubjectTests {
    @Test(arguments: [
        ("chore(release): 1.3.0", true), ("chore(release): v1.3.0", true), ("chore(release): core-v1.3.0", true),
        ("chore(release): cli@0.4.1", true), ("chore(release): 1.5.0 (8)", true), ("Version bump to 1.5.0 (8)", true),
        ("chore(release): rename the notes option", false), ("chore(release): 1.3.0 was broken", false),
        ("chore(release)!: drop 1.x support", false), ("Version bump to the latest toolchain", false),
    ])
    func onlyShiplanesOwnSubjectsAreReleaseCommits(summary: String, expected: Bool) {
        #expect(ChangelogConfiguration.isReleaseCommit(summary) == expected)
    }
}

@Suite("changelog --all is written a release at a time, and equals the lane API's text", .offThePool)
struct StreamedChangelogTests {
    @Test func theStreamedOutputEqualsTheWholeText() throws {
        let repo = try TemporaryRepository()
        for (index, message) in ["feat: one", "fix: two", "feat(api)!: three", "docs: four", "Update README"].enumerated() {
            try repo.git("commit", "-q", "--allow-empty", "-m", message)
            if index % 2 == 1 { try repo.git("tag", "-a", "v0.\(index).0", "-m", "r") }
        }
        try repo.git("remote", "add", "origin", "git@github.com:acme/rocket.git")
        try repo.write("Lanes/Notes.swift", """
        import Foundation
        import Shiplane
        struct Notes: Lane {
            func run(_ lane: LaneContext) async throws {
                try Data(try lane.changelog(since: .all).utf8).write(to: URL(fileURLWithPath: "/\(repo.root.dropFirst())/all.md"))
                try Data(try lane.changelog(since: .all, format: .json).utf8).write(to: URL(fileURLWithPath: "/\(repo.root.dropFirst())/all.json"))
            }
        }
        """)
        let lane = try repo.shiplane(["notes"])
        #expect(lane.status == 0, "\(lane.all)")
        let markdown = try repo.shiplane(["changelog", "--all"])
        #expect(markdown.status == 0)
        #expect(markdown.stdout == (try String(contentsOfFile: repo.root + "/all.md", encoding: .utf8)))
        let json = try repo.shiplane(["changelog", "--all", "--json"])
        #expect(json.stdout == (try String(contentsOfFile: repo.root + "/all.json", encoding: .utf8)) + "\n")
        #expect(markdown.stdout.contains("## [0.3.0]") && json.stdout.contains("\"tagName\" : \"v0.3.0\""))
        // No commit at all in the selection (no merge commits): an error, and nothing on stdout.
        for format in [[], ["--json"]] {
            let empty = try repo.shiplane(["changelog", "--all", "--merges", "only"] + format)
            #expect(empty.status != 0, "\(empty.all)")
            #expect(empty.stdout.isEmpty, "nothing written before the error: \(empty.stdout)")
        }
    }
}
