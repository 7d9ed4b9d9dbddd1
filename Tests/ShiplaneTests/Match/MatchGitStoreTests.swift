import Foundation
import Testing
@testable import Shiplane

/// `lane.match` / `shiplane match` with the store as a git repository (match's `git_url`):
/// served by `git http-backend` behind basic auth, read and checked with the `git` command and
/// the Ruby oracle of match's encryption.
@Suite("match store in a git repository: one commit pushed by compare and swap, rolled back with the run, a killed run finished from a fresh clone", .offThePool, .tags(.slow))
struct MatchGitStoreTests {
    static let password = "correct horse battery staple"
    static let token = "match-store-token-7f3a91"

    /// An empty bare repository `certificates.git` served over HTTP, and a folder for checks.
    final class Served: @unchecked Sendable {
        let holder: TemporaryRepository
        let bare: String
        let server: GitHTTPServer
        var url: String { server.url("certificates.git") }

        init() async throws {
            holder = try TemporaryRepository(commit: false)
            let root = holder.root + "/served"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            bare = root + "/certificates.git"
            try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "master", bare], in: root, environment: holder.environment)
            server = try await GitHTTPServer.start(projectRoot: root, username: "x-access-token", password: MatchGitStoreTests.token, environment: holder.environment)
        }

        func stop() { server.stop() }

        /// `git --git-dir=<the served repository> ARGUMENTS`; nil when it fails.
        func git(_ arguments: String...) throws -> String? {
            let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare] + arguments, in: holder.root, environment: holder.environment)
            return output.status == 0 ? output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        }

        /// A fresh `git clone` of the branch, decrypted in place by the Ruby oracle (fastlane's
        /// encryption); its files by path.
        func clonedAndDecryptedByRuby() throws -> (files: [String: Data], ruby: CommandOutput) {
            let folder = holder.root + "/clone-\(UUID().uuidString.prefix(8))"
            let cloned = try runProgram("/usr/bin/git", ["clone", "-q", "-b", "master", bare, folder], in: holder.root, environment: holder.environment)
            #expect(cloned.status == 0, "\(cloned.stderr)")
            var environment = holder.environment
            environment["MATCH_PASSWORD"] = MatchGitStoreTests.password
            let ruby = try runProgram("/usr/bin/env", ["ruby", packageRoot + "/Tests/ShiplaneTests/Fixtures/Match/match_oracle.rb", "decrypt-files", folder],
                                      in: holder.root, environment: environment)
            var files: [String: Data] = [:]
            for path in FileManager.default.subpaths(atPath: folder) ?? [] where !path.hasPrefix(".git") {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                    files[path] = FileManager.default.contents(atPath: folder + "/" + path)
                }
            }
            return (files, ruby)
        }
    }

    func environment(_ work: TemporaryRepository, _ fake: FakeAppStoreConnect) -> [String: String] {
        var extra = ["MATCH_PASSWORD": Self.password, "MATCH_GIT_BASIC_AUTHORIZATION": Data("x-access-token:\(Self.token)".utf8).base64EncodedString()]
        extra.merge(StoreFixtures.appleEnvironment(apiURL: fake.baseURL)) { $1 }
        return isolatedEnvironment(home: work.home, extra: extra)
    }

    /// What every finished run must leave: one certificate at Apple, its `.cer` and key in the
    /// store (the key the certificate's), the profile, match's version file and README, no key
    /// kept on a ref; fastlane's encryption decrypts every file.
    func expectConsistent(_ served: Served, _ fake: FakeAppStoreConnect) throws {
        let state = fake.lock.withLock { fake.signing }
        #expect(state.certificates.count == 1)
        let id = try #require(state.certificates.keys.first)
        #expect(try served.git("for-each-ref", "refs/shiplane/") == "")
        let (files, ruby) = try served.clonedAndDecryptedByRuby()
        #expect(ruby.status == 0, "\(ruby.stdout)\(ruby.stderr)")
        #expect(files["certs/development/\(id).cer"] == state.certificates[id]?.der)
        let key = try #require(files["certs/development/\(id).p12"])
        let certificate = try #require(files["certs/development/\(id).cer"].flatMap(SigningCertificate.init(der:)))
        #expect(try SigningKey(pem: String(decoding: key, as: UTF8.self)).publicKeyDigest == certificate.publicKeyDigest)
        #expect(files["profiles/development/Development_com.acme.rocket.mobileprovision"] == state.profiles.values.first?.content)
        #expect(files["match_version.txt"] == Data("2.237.0".utf8))
        #expect(files["README.md"] == Data(MatchStore.readmeText.utf8))
        #expect(files.count == 5, "\(files.keys.sorted())")
    }

    @Test("first use: match_version.txt and a README are added only where the store has none; a store's own README and version are kept")
    func firstUseFilesAreAddedOnlyWhereMissing() throws {
        let empty = MatchStore.firstUseFiles(current: { _ in nil })
        #expect(empty.map(\.path) == ["match_version.txt", "README.md"])
        #expect(empty.first?.data == Data("2.237.0".utf8))
        let readme = try #require(empty.last.map { String(decoding: $0.data, as: UTF8.self) })
        #expect(readme.contains("shiplane match appstore --readonly") && readme.contains("fastlane match appstore --readonly"))
        let held: [String: Data] = ["match_version.txt": Data("2.220.0".utf8), "README.md": Data("# our signing store\n".utf8)]
        #expect(MatchStore.firstUseFiles(current: { held[$0] }).isEmpty, "a store's own files are not replaced")
    }

    @Test("shiplane SIGKILLed mid-push (the repository took the store's commit, its answer held back): the same command from a fresh clone finds the store complete and changes nothing; one certificate, one commit, fastlane's code decrypts it")
    func killedMidPushFinishesFromAFreshClone() async throws {
        let setUp = try await GitMatchSetUp.start()
        defer { setUp.stop() }
        let (served, fake) = (setUp.served, setUp.fake)
        // Pushes: the certificate's key (1), the store's commit (2), the key's deletion (3).
        served.server.holdAnswer(toPush: 2, seconds: 20)
        let arguments = ["match", "development", "--store", served.url, "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]
        let first = try TemporaryRepository()
        let run = try SupervisedRun(arguments, in: first.path, environment: environment(first, fake))
        run.wait { ((try? served.git("rev-parse", "--verify", "-q", "refs/heads/master")) ?? nil) != nil }
        try run.killEverything()
        #expect(try served.git("rev-list", "--count", "master") == "1")
        #expect(try served.git("for-each-ref", "--format=%(refname)", "refs/shiplane/")?.hasPrefix("refs/shiplane/match-keys/DEVELOPMENT-") == true)

        let fresh = try TemporaryRepository()
        let again = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, fake))
        #expect(again.status == 0, "\(again.all)")
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1)
        #expect(fake.log.filter { $0 == "POST /v1/profiles" }.count == 1)
        #expect(try served.git("rev-list", "--count", "master") == "1")
        #expect(!again.all.contains(Self.password) && !again.all.contains(Self.token))
        try expectConsistent(served, fake)
    }

    @Test("shiplane SIGKILLed while Apple makes the certificate: the key was pushed first, so the same command from a fresh clone adopts that certificate; one POST, one commit")
    func killedBeforeTheStoreHeldItAdoptsFromAFreshClone() async throws {
        let setUp = try await GitMatchSetUp.start()
        defer { setUp.stop() }
        let (served, fake) = (setUp.served, setUp.fake)
        fake.answerLate(1, method: "POST", path: "/v1/certificates$", seconds: 30)
        let arguments = ["match", "development", "--store", served.url, "--app-identifier", "com.acme.rocket", "--device", "Ada=00008110-000000000002"]
        let first = try TemporaryRepository()
        let run = try SupervisedRun(arguments, in: first.path, environment: environment(first, fake))
        run.wait { fake.lock.withLock { !fake.signing.certificates.isEmpty } }
        try run.killEverything()
        #expect(try served.git("rev-parse", "--verify", "-q", "refs/heads/master") == nil)

        let fresh = try TemporaryRepository()
        let again = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, fake))
        #expect(again.status == 0, "\(again.all)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        #expect(again.all.contains("adopted certificate \(id)"))
        #expect(fake.log.filter { $0 == "POST /v1/certificates" }.count == 1)
        #expect(try served.git("rev-list", "--count", "master") == "1")
        try expectConsistent(served, fake)

        // A second run: nothing to make, nothing pushed.
        let third = try await runProgramAsync(shiplaneBinary, arguments, in: fresh.path, environment: environment(fresh, fake))
        #expect(third.status == 0, "\(third.all)")
        #expect(try served.git("rev-list", "--count", "master") == "1")
    }

    @Test("another machine's match pushes to the branch after this run read it: the store's push is refused before anything is sent (compare and swap), the run rolls back, and run again it commits on top of the other's commit")
    func aBranchThatMovedIsNeverOverwritten() async throws {
        let setUp = try await GitMatchSetUp.start()
        defer { setUp.stop() }
        let (served, fake) = (setUp.served, setUp.fake)
        // The key's push (the first) is held back while another writer makes the branch.
        served.server.holdAnswer(toPush: 1, seconds: 3)
        let arguments = ["match", "appstore", "--store", served.url, "--app-identifier", "com.acme.rocket"]
        let work = try TemporaryRepository()
        let run = try SupervisedRun(arguments, in: work.path, environment: environment(work, fake))
        run.wait { ((try? served.git("for-each-ref", "refs/shiplane/")) ?? nil)?.isEmpty == false }
        try served.holder.write("NOTES.md", "another machine's commit\n")
        try served.holder.git("add", "NOTES.md")
        try served.holder.git("commit", "-q", "-m", "Another machine")
        try served.holder.git("push", "-q", served.bare, "HEAD:refs/heads/master")
        let other = try #require(try served.git("rev-parse", "master"))
        let first = run.finish()
        #expect(first.status != 0)
        #expect(first.all.contains("moved on"), "\(first.all)")
        #expect(try served.git("rev-parse", "master") == other)
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.revoked.count == 1 })
        // The key pushed for the certificate goes with it (issue 43: the rollback left the ref before).
        #expect(try served.git("for-each-ref", "refs/shiplane/") == "", "the rolled-back run's key ref is deleted")

        let again = try await runProgramAsync(shiplaneBinary, arguments, in: work.path, environment: environment(work, fake))
        #expect(again.status == 0, "\(again.all)")
        #expect(try served.git("rev-parse", "master^") == other)
        #expect(try served.git("show", "master:NOTES.md") == "another machine's commit")
        #expect(fake.lock.withLock { fake.signing.certificates.count } == 1)
    }

    @Test("nuke on the match repository's URL: without --yes it lists the files and changes nothing; with it, SIGKILLed while the repository's answer to its one commit is held, the removal landed and the certificate is revoked; shiplane rollback pushes a commit that puts the three files back as they were (the revocation stays); nuke run again removes them for good")
    func nukeOnTheRepository() async throws {
        let setUp = try await GitMatchSetUp.start()
        defer { setUp.stop() }
        let (served, fake) = (setUp.served, setUp.fake)
        let work = try TemporaryRepository()
        let store = served.url
        let made = try await runProgramAsync(shiplaneBinary, ["match", "development", "--store", store, "--app-identifier", "com.acme.rocket",
                                                              "--device", "Ada=00008110-000000000002"], in: work.path, environment: environment(work, fake))
        #expect(made.status == 0, "\(made.all)")
        let id = try #require(fake.lock.withLock { fake.signing.certificates.keys.first })
        let filled = try #require(try served.git("rev-parse", "master"))
        let tree = try #require(try served.git("ls-tree", "-r", "master"))
        let names = { try served.git("ls-tree", "-r", "--name-only", "master")?.split(separator: "\n").map(String.init) ?? [] }
        #expect(try names().count == 5)

        let refused = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", store], in: work.path, environment: environment(work, fake))
        #expect(refused.status == 2, "\(refused.all)")
        #expect(refused.all.contains("remove certs/development/\(id).cer from the store") && refused.all.contains("revoke certificate \(id)"), "\(refused.all)")
        #expect(try served.git("rev-parse", "master") == filled, "nothing pushed without --yes")
        #expect(fake.lock.withLock { fake.signing.revoked.isEmpty })

        // The nuke's commit lands; the answer to its push is held, and shiplane is killed meanwhile.
        served.server.holdAnswer(toPushUpdating: "refs/heads/master", seconds: 30)
        let run = try SupervisedRun(["match", "nuke", "development", "--store", store, "--yes"], in: work.path, environment: environment(work, fake))
        run.wait { ((try? served.git("rev-parse", "master")) ?? nil) != filled }
        try run.killEverything()
        #expect(try served.git("rev-parse", "master^") == filled)
        #expect(try served.git("log", "-1", "--format=%s", "master") == "[shiplane] Removed development (nuke)")
        #expect(try names() == ["README.md", "match_version.txt"], "one commit removed the type's three files")
        #expect(fake.lock.withLock { fake.signing.revoked == [id] })

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: work.path, environment: environment(work, fake))
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains(Self.password) && !rollback.all.contains(Self.token))
        #expect(try served.git("ls-tree", "-r", "master") == tree, "the files are back as they were: \(rollback.all)")
        #expect(try served.git("rev-list", "--count", "master") == "3", "history kept: the fill, the nuke, its revert")
        #expect(try served.git("log", "-1", "--format=%s", "master")?.hasPrefix("[shiplane] Revert ") == true)
        #expect(fake.lock.withLock { fake.signing.revoked == [id] }, "the revocation stays")

        let nuked = try await runProgramAsync(shiplaneBinary, ["match", "nuke", "development", "--store", store, "--yes"], in: work.path, environment: environment(work, fake))
        #expect(nuked.status == 0, "\(nuked.all)")
        #expect(nuked.all.contains("revoked 0") && nuked.all.contains("removed 3 files"), "\(nuked.all)")
        #expect(try names() == ["README.md", "match_version.txt"])
        #expect(try served.git("rev-list", "--count", "master") == "4")
    }

    @Test("a lane that fails after match: the store's commit is reverted by a commit on top (history kept), the certificate revoked")
    func rollbackRevertsTheStoresCommit() async throws {
        let setUp = try await GitMatchSetUp.start()
        defer { setUp.stop() }
        let (served, fake) = (setUp.served, setUp.fake)
        let work = try TemporaryRepository()
        let variables = environment(work, fake)
        let lane = try MatchLaneForTest.parse(["--kind", "appstore", "--store", served.url, "--identifiers", "com.acme.rocket", "--fail-after"])
        let (result, messages) = await runStoreLane(lane, folder: work.path, variables: variables)
        #expect(result.failure != nil)
        let told = allText(result.failure) + messages.joined(separator: "\n")
        #expect(told.contains("pushed 5 files to \(served.url) (master)"), "\(told)")
        #expect(fake.lock.withLock { fake.signing.certificates.isEmpty && fake.signing.revoked.count == 1 })
        #expect(try served.git("rev-list", "--count", "master") == "2", "\(told)")
        #expect(try served.git("ls-tree", "-r", "--name-only", "master") == "")
        #expect(try served.git("log", "-1", "--format=%s", "master")?.hasPrefix("[shiplane] Revert ") == true)
        #expect(try served.git("for-each-ref", "refs/shiplane/") == "")
    }
}
