import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The tests that come with the `Store` contract: every store in `Stores.all` runs them, against a
/// scripted double (`RecordingHTTPClient`) that fails the test on any request it was not told to
/// expect. A store added as one folder and one line is held to one registration, to a preflight
/// that names what is missing and never the secret, to one cheap access check, to undos that reach
/// the API the run used, to uploads that send nothing before its preflight passed and nothing
/// of a package whose bytes are not its artifact's, and to a lookup of earlier work.
@Suite("Store contract: every store, the same behaviours", .offThePool)
struct StoreContractTests {
    /// What a test needs of a store that the contract cannot make: working credentials for `api`
    /// (and a token service at `tokenURL`), the request `checkAccess` sends, a package file, and the
    /// lane call that uploads it.
    struct Fixture: Sendable {
        var environment: @Sendable (_ api: String, _ tokenURL: String) -> [String: String]
        /// The method and URL prefix of the one request `checkAccess` sends, and a 200 answer to it.
        var access: @Sendable (_ api: String, _ tokenURL: String) -> (method: HTTPRequestMethod, url: String, answer: String)
        var makePackage: @Sendable (_ path: String) throws -> Void
        var upload: @Sendable (_ lane: LaneContext, _ package: any ArtifactConvertible) async throws -> Void
        /// The answers to the earlier-work lookup of the fixture's package (`found`: the store
        /// holds it), as (method, URL prefix, status, JSON); and the id the lookup then names.
        var lookup: @Sendable (_ api: String, _ tokenURL: String, _ found: Bool, _ sha256: String) -> (answers: [(HTTPRequestMethod, String, Int, String)], id: String)
        /// The store's stand-in holding an earlier upload of the package at `path` (relative to
        /// `folder`): one the store holds (`held`: Apple's build, a Play edit left open with the
        /// bundle) or one left unfinished.
        var earlier: @Sendable (_ held: Bool, _ folder: String, _ path: String) async throws -> EarlierStandIn
        /// Writes the metadata folder the listing and submit calls read, under `folder`.
        var writeMetadata: @Sendable (_ folder: String) throws -> Void
        /// Runs the store's `updateListing` through the contract in a step of `lane`; `bad`: with
        /// an option its preflight refuses.
        var updateListing: @Sendable (_ lane: LaneContext, _ bad: Bool) async throws -> Void
        /// Runs the store's `submit` (App Review, a Play rollout) the same way.
        var submit: @Sendable (_ lane: LaneContext, _ bad: Bool) async throws -> Void
    }

    /// A started stand-in holding an earlier upload.
    struct EarlierStandIn: Sendable {
        var environment: [String: String]
        /// How many times a package was sent to it since it was set up.
        var packagesSent: @Sendable () -> Int
        /// Whether the earlier, unfinished upload is still there.
        var earlierLeft: @Sendable () -> Bool
        /// The store's id of the earlier, unfinished upload (empty when it holds the package).
        var earlierID: String
        /// Installs a hook called with each write request ("METHOD path") as it arrives, before it is handled.
        var watchWrites: @Sendable (_ hook: @escaping @Sendable (String) -> Void) -> Void
        var stop: @Sendable () -> Void
    }

    static let api = "https://store.example/api"
    static let tokenURL = "https://store.example/token"

    /// Every registered store's fixture, by kind: a store without one fails `everyStoreIsRegisteredOnce`.
    static let fixtures: [String: Fixture] = [
        AppStoreConnectStore.kind: Fixture(
            environment: { api, _ in StoreFixtures.appleEnvironment(apiURL: api) },
            access: { api, _ in (.get, api + "/v1/apps?limit=1", #"{"data": []}"#) },
            makePackage: { try StoreFixtures.makeIPA(at: $0) },
            upload: { lane, package in
                _ = try await lane.uploadToTestFlight(ipa: package, usesNonExemptEncryption: false, processingTimeout: 5, pollInterval: 0.001)
            },
            lookup: { api, _, found, _ in
                let build = #"{"type": "builds", "id": "build-9", "attributes": {"version": "42", "processingState": "VALID"}}"#
                return ([
                    (.get, api + "/v1/apps?", 200, #"{"data": [{"type": "apps", "id": "app-1", "attributes": {"bundleId": "com.acme.rocket", "name": "Rocket"}}]}"#),
                    (.get, api + "/v1/builds?", 200, #"{"data": [\#(found ? build : "")], "links": {}}"#),
                    (.get, api + "/v1/apps/app-1/buildUploads?", 200, #"{"data": [], "links": {}}"#),
                ], "build-9")
            },
            earlier: { held, _, _ in
                let apple = try FakeAppStoreConnect()
                try await apple.start()
                let unfinished = held ? "" : apple.addUpload(version: "1.4.0", build: "42", state: "AWAITING_UPLOAD")
                if held { _ = apple.addBuild(version: "1.4.0", build: "42") }
                return EarlierStandIn(environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL),
                                      packagesSent: { apple.log.filter { $0 == "POST /v1/buildUploads" }.count },
                                      earlierLeft: { !unfinished.isEmpty && apple.allUploads[unfinished] != nil }, earlierID: unfinished,
                                      watchWrites: { hook in apple.lock.withLock { apple.writeHook = hook } }, stop: { apple.stop() })
            },
            writeMetadata: { folder in try writeFile(URL(fileURLWithPath: folder), "fastlane/metadata/en-US/description.txt", "Fast rockets\n") },
            updateListing: { lane, bad in
                try await lane.run(ContractListing<AppStoreConnectStore>(listing: AppStoreListingUpdate(
                    bundleID: "com.acme.rocket", version: "1.4.0", platform: bad ? "ANDROID" : "IOS", screenshotsPath: nil, appPreviewsPath: nil)))
            },
            submit: { lane, bad in
                try await lane.run(ContractSubmit<AppStoreConnectStore>(submission: AppStoreSubmission(
                    bundleID: "com.acme.rocket", version: "1.4.0", platform: "IOS", build: nil, metadataPath: "fastlane/metadata",
                    releaseType: bad ? "SOMETIMES" : "MANUAL", earliestReleaseDate: nil, phasedRelease: nil, submit: false)))
            }),
        GooglePlayStore.kind: Fixture(
            environment: { api, tokenURL in
                ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": StoreFixtures.serviceAccountJSON(tokenURL: tokenURL), "GOOGLE_PLAY_API_URL": api]
            },
            access: { _, tokenURL in (.post, tokenURL, #"{"access_token": "ya29.contract-token", "expires_in": 3600}"#) },
            makePackage: { try StoreFixtures.makeAAB(at: $0) },
            upload: { lane, package in _ = try await lane.uploadToPlayStore(bundle: package) },
            lookup: { api, tokenURL, found, sha256 in
                let edits = api + "/androidpublisher/v3/applications/com.acme.rocket/edits"
                let release = #"{"track": "internal", "releases": [{"versionCodes": ["\#(found ? 42 : 41)"], "status": "completed"}]}"#
                var answers: [(HTTPRequestMethod, String, Int, String)] = [
                    (.post, tokenURL, 200, #"{"access_token": "ya29.contract-token", "expires_in": 3600}"#),
                    (.post, edits, 200, #"{"id": "edit-7", "expiryTimeSeconds": "1900000000"}"#),
                    (.get, edits + "/edit-7/tracks", 200, #"{"kind": "androidpublisher#tracksListResponse", "tracks": [\#(release)]}"#),
                    (.delete, edits + "/edit-7", 204, ""),
                ]
                if found {
                    // The version code on a track is this very bundle: Google lists it with its SHA-256.
                    answers.append((.get, edits + "/edit-7/bundles", 200,
                                    #"{"kind": "androidpublisher#bundlesListResponse", "bundles": [{"versionCode": 42, "sha256": "\#(sha256)"}]}"#))
                }
                return (answers, "42")
            },
            earlier: { held, folder, path in
                let play = try FakeGooglePlay()
                try await play.start()
                try writeFile(URL(fileURLWithPath: folder), "secrets/play.json", StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL))
                let environment = ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": folder + "/secrets/play.json", "GOOGLE_PLAY_API_URL": play.baseURL]
                // An earlier run stopped before its commit (held: the bundle is in its edit) or
                // during the bundle's upload (unfinished: the edit holds nothing), its edit left open.
                play.fail(10, method: "POST", path: held ? ":commit" : "/upload/androidpublisher", status: held ? 503 : 400)
                _ = await runStoreLane(try lane(ShipToPlay.self, ["--bundle", path]), folder: folder, variables: environment, rollback: false)
                play.lock.withLock { play.faults.removeAll() }
                let sent: @Sendable () -> Int = { play.log.filter { $0.contains("bundles?uploadType") }.count }
                let before = sent()
                return EarlierStandIn(environment: environment, packagesSent: { sent() - before },
                                      earlierLeft: { !play.openEdits.isEmpty }, earlierID: held ? "" : play.openEdits.keys.sorted().joined(),
                                      watchWrites: { hook in play.lock.withLock { play.writeHook = hook } }, stop: { play.stop() })
            },
            writeMetadata: { folder in try writeFile(URL(fileURLWithPath: folder), "fastlane/metadata/android/en-US/title.txt", "Rocket\n") },
            updateListing: { lane, bad in
                try await lane.run(ContractListing<GooglePlayStore>(listing: PlayStoreUpdate(packageName: "com.acme.rocket", track: bad ? " " : nil)))
            },
            submit: { lane, bad in
                try await lane.run(ContractSubmit<GooglePlayStore>(submission: PlayTrackChange(
                    packageName: "com.acme.rocket", track: "production", rollout: .fraction(bad ? 1.5 : 0.2))))
            }),
    ]

    static var kinds: [String] { Stores.all.map { $0.kind } }

    static func store(_ kind: String) throws -> any Store.Type {
        try #require(Stores.all.first { $0.kind == kind })
    }

    /// Each store once, with its own name, variables, packages, actions and effects, all of them
    /// in the catalog and the record's list; what stays past the point of no return said.
    @Test func everyStoreIsRegisteredOnce() {
        let stores = Stores.all
        #expect(Set(stores.map { $0.kind }).count == stores.count)
        #expect(Set(stores.map { $0.displayName }).count == stores.count)
        #expect(Set(stores.compactMap { $0.configuration.first }).count == stores.count)
        #expect(Set(stores.flatMap { $0.packageExtensions }).count == stores.flatMap { $0.packageExtensions }.count)
        let catalog = Set(Features.actions.map { $0.name })
        let recorded = Features.effects.map { $0.kind }
        var effectKinds: [String] = []
        for store in stores {
            #expect(Self.fixtures[store.kind] != nil, "\(store.displayName) has no fixture in StoreContractTests: add one")
            #expect(!store.configuration.isEmpty && !store.packageExtensions.isEmpty && !store.actions.isEmpty && !store.effects.isEmpty,
                    "\(store.displayName)")
            #expect(store.pointOfNoReturn.contains("stay"), "\(store.displayName): \(store.pointOfNoReturn)")
            #expect(store.configuration.contains { store.credentialsHint.contains($0) }, "\(store.displayName): \(store.credentialsHint)")
            for action in store.actions {
                #expect(catalog.contains(action.name), "\(action.name) is not in the catalog")
                #expect(action.documentation.domain == "Stores", "\(action.name)")
                #expect(!action.documentation.rollback.isEmpty, "\(action.name) says nothing of its rollback")
            }
            for effect in store.effects {
                // A store's record names are its own: `appstoreconnect.buildUpload`, `googleplay.edit`.
                #expect(effect.kind.hasPrefix(store.kind.lowercased() + "."), "\(store.displayName): \(effect.kind)")
                #expect(recorded.filter { $0 == effect.kind }.count == 1, "\(effect.kind) is not in the record's list once")
                effectKinds.append(effect.kind)
            }
        }
        #expect(Set(effectKinds).count == effectKinds.count)
    }

    /// With none of its variables set, a store is not configured, and its credentials' problems
    /// name what to set; no request is involved.
    @Test(arguments: kinds)
    func withoutCredentialsThePreflightSaysWhatToSet(kind: String) throws {
        let store = try Self.store(kind)
        let first = store.configuration[0]
        let configured = [store.isConfigured(in: ["PATH": "/usr/bin"]), store.isConfigured(in: [first: "x"]), store.isConfigured(in: [first: "  \n"])]
        #expect(configured == [false, true, false])
        var problems: [any Error] = []
        let read = store.readsCredentials(from: [:], problems: &problems)
        #expect(!read)
        #expect(!problems.isEmpty && problems.allSatisfy { $0 is StoreCredentialsError }, "\(problems)")
        let text = problems.map { allText($0) }.joined(separator: "\n")
        #expect(text.contains(store.configuration[0]), "\(store.displayName): \(text)")
    }

    /// Credentials that are set but unusable are named as such, and the secret never appears.
    @Test(arguments: kinds)
    func anUnusableSecretIsNamedNeverShown(kind: String) throws {
        let store = try Self.store(kind)
        let secret = "contract-secret-7f3a9c1e5b"
        var variables: [String: String] = [:]
        for name in store.configuration where !name.hasSuffix("_PATH") { variables[name] = "-----BEGIN PRIVATE KEY-----\n\(secret)\n-----END PRIVATE KEY-----" }
        var problems: [any Error] = []
        let read = store.readsCredentials(from: variables, problems: &problems)
        #expect(!read)
        #expect(!problems.isEmpty)
        let text = problems.map { allText($0) }.joined(separator: "\n")
        #expect(!text.contains(secret), "\(store.displayName): \(text)")
    }

    /// `checkAccess` sends the one request it is scripted for: a 200 passes, a 401 is the store's
    /// refusal (`StoreAPIError`) with what to do; nothing else is sent.
    @Test(arguments: kinds, [200, 401])
    func theAccessCheckIsOneRequest(kind: String, status: Int) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        let access = fixture.access(Self.api, Self.tokenURL)
        let http = RecordingHTTPClient()
        http.respond(access.method, access.url, status: status,
                     json: status == 200 ? access.answer : #"{"errors": [{"code": "NOT_AUTHORIZED", "title": "refused"}], "error": "invalid_grant"}"#)
        let transport = HTTPTransport(sender: http, retryPolicy: RetryPolicy(baseDelay: 0.01))
        var thrown: (any Error)?
        do { try await store.checksAccess(fixture.environment(Self.api, Self.tokenURL), transport: transport) } catch { thrown = error }
        if status == 200 {
            #expect(thrown == nil, "\(store.displayName): \(allText(thrown))")
        } else {
            let refusal = try #require(thrown as? StoreAPIError, "\(store.displayName): \(String(describing: thrown))")
            #expect(refusal.status == 401 && refusal.suggestion != nil, "\(allText(refusal))")
        }
        #expect(http.requests.count == 1, "\(store.displayName): \(http.requests.map { "\($0.method) \($0.url)" })")
        #expect(http.unscriptedRequests.isEmpty)
    }

    /// An undo reaches the API the run recorded, not the one this process's environment names;
    /// without credentials it says what stays and how to undo it later, sending nothing.
    @Test(arguments: kinds)
    func anUndoReachesTheRecordedAPIOrSaysWhatStays(kind: String) throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        let http = RecordingHTTPClient()
        func context(_ variables: [String: String]) -> EffectContext {
            EffectContext(workTree: "/", environment: LaneEnvironment(variables: variables), fileSystem: LiveFileSystem(), http: http,
                          retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
        }
        let elsewhere = fixture.environment("https://elsewhere.example/api", Self.tokenURL)
        let reached = try store.undoAPI(recorded: Self.api, in: context(elsewhere))
        #expect(reached == Self.api)
        do {
            _ = try store.undoAPI(recorded: Self.api, in: context([:]))
            Issue.record("\(store.displayName): an undo without credentials went ahead")
        } catch let error as ShiplaneError {
            #expect(error.message.hasPrefix("the change stays: \(store.credentialsName) is not set here"), "\(error.message)")
            #expect(error.suggestion?.contains("shiplane rollback") == true && error.suggestion?.contains(store.configuration[0]) == true,
                    "\(String(describing: error.suggestion))")
        }
        #expect(http.requests.isEmpty)
    }

    /// Each store picks its own packages among a run's artifacts, and no artifact is two stores'.
    @Test func eachStorePicksItsOwnPackagesAmongTheArtifacts() {
        let artifacts = [
            Artifact(kind: .archive, path: "dist/rocket-1.2.0.tar.gz", sha256: String(repeating: "a", count: 64)),
            Artifact(kind: .binary, path: "build/Rocket.ipa", sha256: String(repeating: "b", count: 64)),
            Artifact(kind: .binary, path: "build/app-release.AAB", sha256: String(repeating: "c", count: 64)),
            Artifact(kind: .checksums, path: "dist/SHA256SUMS", sha256: String(repeating: "d", count: 64)),
        ]
        var picked: [String] = []
        for store in Stores.all {
            let packages = store.packages(among: artifacts)
            #expect(packages.count == 1, "\(store.displayName): \(packages.map(\.path))")
            picked += packages.map(\.path)
        }
        #expect(Set(picked).count == picked.count)
    }

    /// Through its lane call, a store's upload sends nothing while its preflight fails: without
    /// credentials the problems come back together (the package's among them) and not one request
    /// goes out; with credentials the store refuses, only the store's own hosts are asked, and
    /// the failure is the preflight's.
    @Test(arguments: kinds, [false, true])
    func anUploadSendsNothingBeforeItsPreflightPasses(kind: String, withCredentials: Bool) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        try await withTemporaryDirectory { folder in
            let package = folder.path + "/build/app." + store.packageExtensions[0]
            try fixture.makePackage(package)
            let http = RecordingHTTPClient()
            // Every request to the store's hosts is refused: the key is not accepted.
            http.respond { request in
                guard request.url.hasPrefix(Self.api) || request.url.hasPrefix(Self.tokenURL) else { return nil }
                return HTTPResponse(status: 401, headers: [("Content-Type", "application/json")],
                                    body: Array(#"{"errors": [{"code": "NOT_AUTHORIZED", "title": "refused"}], "error": "invalid_grant"}"#.utf8))
            }
            let variables = withCredentials ? fixture.environment(Self.api, Self.tokenURL) : [:]
            let lane = LaneContext(.init(workingDirectory: folder.path, environment: LaneEnvironment(variables: variables), http: http,
                                         retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
            var thrown: (any Error)?
            do { try await fixture.upload(lane, package) } catch { thrown = error }
            let preflight = try #require(Self.preflightError(thrown), "\(store.displayName): \(allText(thrown))")
            if withCredentials {
                #expect(!http.requests.isEmpty && http.requests.allSatisfy { $0.url.hasPrefix(Self.api) || $0.url.hasPrefix(Self.tokenURL) })
                #expect(preflight.allErrors.contains { ($0 as? StoreAPIError)?.status == 401 }, "\(allText(preflight))")
                #expect(http.requests.allSatisfy { $0.method == "GET" || $0.url.hasPrefix(Self.tokenURL) }, "only reads before the preflight passed")
            } else {
                #expect(http.requests.isEmpty, "\(http.requests.map(\.url))")
                #expect(preflight.allErrors.contains { $0 is StoreCredentialsError }, "\(allText(preflight))")
            }
            #expect(http.unscriptedRequests.isEmpty)
        }
    }

    /// A package whose file no longer holds its artifact's bytes is refused before one request
    /// goes out, whether the lane passes the artifact, its path (the run made that file, so its
    /// record counts) or the run's artifacts through the contract; the error names the file, both
    /// digests and what to do.
    @Test(arguments: kinds, ["artifact", "path", "contract"])
    func aChangedPackageIsRefusedBeforeAnythingIsSent(kind: String, passed: String) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        try await withTemporaryDirectory { folder in
            let relative = "build/app." + store.packageExtensions[0]
            try fixture.makePackage(folder.path + "/" + relative)
            // Nothing is scripted: any request fails the test.
            let http = RecordingHTTPClient()
            let lane = LaneContext(.init(workingDirectory: folder.path,
                                         environment: LaneEnvironment(variables: fixture.environment(Self.api, Self.tokenURL)), http: http,
                                         retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
            let artifact = try lane.artifact(relative)
            let handle = try #require(FileHandle(forWritingAtPath: folder.path + "/" + relative))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("re-signed".utf8))
            try handle.close()
            var thrown: (any Error)?
            do {
                switch passed {
                case "artifact": try await fixture.upload(lane, artifact)
                case "path": try await fixture.upload(lane, relative)
                default: try await store.uploadsThroughTheContract(lane.artifacts, lane: lane)
                }
            } catch { thrown = error }
            let preflight = try #require(Self.preflightError(thrown), "\(store.displayName): \(allText(thrown))")
            let changed = try #require(preflight.allErrors.lazy.compactMap { $0 as? StorePackageChanged }.first, "\(allText(preflight))")
            #expect(changed.path == relative && changed.recorded == artifact.sha256 && changed.found != artifact.sha256)
            #expect(changed.message.contains(relative) && changed.message.contains("nothing was sent"), "\(changed.message)")
            #expect(changed.suggestion?.contains("lane.artifact(\"\(relative)\")") == true, "\(String(describing: changed.suggestion))")
            #expect(http.requests.isEmpty, "\(store.displayName): \(http.requests.map { "\($0.method) \($0.url)" })")
        }
    }

    /// Through the contract, an upload takes exactly one of the store's packages among the
    /// artifacts: none, or two, is a preflight error that says so, with nothing sent.
    @Test(arguments: kinds, [0, 2])
    func anUploadTakesOnePackageAmongTheArtifacts(kind: String, count: Int) async throws {
        let store = try Self.store(kind)
        let http = RecordingHTTPClient()
        let lane = LaneContext(.init(workingDirectory: "/", environment: LaneEnvironment(variables: [:]), http: http,
                                     retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
        var artifacts = [Artifact(kind: .archive, path: "dist/rocket-1.2.0.tar.gz", sha256: String(repeating: "a", count: 64))]
        for index in 0..<count {
            artifacts.append(Artifact(kind: .binary, path: "build/app\(index)." + store.packageExtensions[0], sha256: String(repeating: "b", count: 64)))
        }
        var thrown: (any Error)?
        do { try await store.uploadsThroughTheContract(artifacts, lane: lane) } catch { thrown = error }
        let preflight = try #require(Self.preflightError(thrown), "\(store.displayName): \(allText(thrown))")
        let text = allText(preflight)
        #expect(text.contains("." + store.packageExtensions[0]), "\(text)")
        #expect(text.contains(count == 0 ? "no ." : "\(count) ."), "\(text)")
        #expect(http.requests.isEmpty)
    }

    /// The earlier-work lookup (what a re-run and a fresh clone's retry start from) finds what the
    /// store holds of a package, and finds nothing when it holds nothing, with only the requests
    /// scripted from the store's description (a Play edit opened to read the tracks is deleted again).
    @Test(arguments: kinds, [true, false])
    func theEarlierWorkLookupFindsWhatTheStoreHolds(kind: String, found: Bool) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        try await withTemporaryDirectory { folder in
            let file = folder.path + "/build/app." + store.packageExtensions[0]
            try fixture.makePackage(file)
            let http = RecordingHTTPClient()
            let script = fixture.lookup(Self.api, Self.tokenURL, found, try FileDigest.sha256(of: file))
            for (method, url, status, json) in script.answers { http.respond(method, url, status: status, json: json) }
            let transport = HTTPTransport(sender: http, retryPolicy: RetryPolicy(baseDelay: 0.01))
            let earlier = try await store.looksUp(file, variables: fixture.environment(Self.api, Self.tokenURL), transport: transport,
                                                  state: StoreResumeState(folder: folder.path + "/state"))
            if found {
                let earlier = try #require(earlier, "\(store.displayName) found nothing")
                #expect(earlier.state == .accepted && earlier.id == script.id, "\(earlier)")
            } else {
                #expect(earlier == nil, "\(String(describing: earlier))")
            }
            #expect(http.unscriptedRequests.isEmpty)
            let opened = http.requests.filter { $0.method == "POST" && $0.url.hasSuffix("/edits") }.count
            #expect(http.requests.filter { $0.method == "DELETE" }.count == opened, "every edit opened to look is deleted again")
        }
    }

    /// Every upload starts where the contract's `uploadStart` says, from `earlierUpload`, against
    /// the store's stand-in holding an earlier upload of the same package: one the store holds
    /// (Apple's build; a Play edit left open with the bundle) is carried on and the package is
    /// not sent again; one left unfinished (an Apple build upload awaiting its file; a Play edit
    /// left open without the bundle) is replaced by a new upload, and is gone: its deletion is an
    /// effect written down before the delete went out, said in the step's output, whose undo
    /// leaves it deleted and says there is nothing to restore.
    @Test(arguments: kinds, [true, false])
    func anUploadStartsFromTheEarlierUpload(kind: String, held: Bool) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        try await withTemporaryDirectory { folder in
            let relative = "build/app." + store.packageExtensions[0]
            try fixture.makePackage(folder.path + "/" + relative)
            let standIn = try await fixture.earlier(held, folder.path, relative)
            defer { standIn.stop() }
            #expect(held || standIn.earlierLeft(), "the fixture left no unfinished upload")
            var environment = LaneEnvironment(variables: ["SHIPLANE_HTTP_ATTEMPTS": "4", "SHIPLANE_HTTP_RETRY_DELAY": "0.01"])
            for (name, value) in standIn.environment { environment.set(name, value) }
            let reporter = RecordingReporter()
            let lane = LaneContext(.init(workingDirectory: folder.path, environment: environment, reporter: reporter))
            let journal = lane.state.journal
            // What the journal held when the delete of the earlier upload went out.
            let atDelete = LockedValue<[[String]]>([])
            let earlierID = standIn.earlierID
            standIn.watchWrites { request in
                guard !earlierID.isEmpty, request.hasPrefix("DELETE "), request.hasSuffix("/" + earlierID) else { return }
                let held = journal.descriptions
                atDelete.withLock { $0.append(held) }
            }
            try await fixture.upload(lane, relative)
            if held {
                #expect(standIn.packagesSent() == 0, "\(store.displayName) sent the package again")
            } else {
                #expect(standIn.packagesSent() == 1, "\(store.displayName)")
                #expect(!standIn.earlierLeft(), "\(store.displayName) left the unfinished upload beside the new one")
                let deletes = atDelete.withLock { $0 }
                #expect(deletes.count == 1, "\(store.displayName): one delete of \(earlierID)")
                #expect(deletes.first?.contains { $0.contains(earlierID) && $0.contains("nothing to restore") } == true,
                        "\(store.displayName): the delete went out before it was written down: \(deletes)")
                let said = reporter.events.compactMap { event -> String? in
                    if case .message(let text, _, _) = event { return text }
                    return nil
                }
                #expect(said.contains { $0.hasPrefix("deleting ") && $0.contains(earlierID) }, "\(store.displayName): \(said)")
                let rollback = await journal.rollback()
                let deletion = try #require(rollback.first { $0.description.contains(earlierID) }, "\(store.displayName): \(rollback)")
                #expect(deletion.stays == true && (deletion.error ?? "").contains("nothing to restore"), "\(deletion)")
            }
        }
    }

    /// The listing and submit operations keep the contract's preflight: without credentials and
    /// with an option the store refuses, both problems come back together and not one request
    /// goes out; with credentials the store refuses, only reads of the store's own hosts went out
    /// and the failure is the preflight's.
    @Test(arguments: kinds, ["listing", "submit"])
    func theListingAndSubmitPreflightsReadOnlyAndReportEveryProblem(kind: String, operation: String) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        let call = operation == "listing" ? fixture.updateListing : fixture.submit
        try await withTemporaryDirectory { folder in
            try fixture.writeMetadata(folder.path)
            let silent = RecordingHTTPClient()
            let bare = LaneContext(.init(workingDirectory: folder.path, environment: LaneEnvironment(variables: [:]), http: silent,
                                         retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
            var thrown: (any Error)?
            do { try await call(bare, true) } catch { thrown = error }
            let preflight = try #require(Self.preflightError(thrown), "\(store.displayName) \(operation): \(allText(thrown))")
            let problems = preflight.underlyingErrors
            #expect(problems.contains { $0 is StoreCredentialsError } && problems.contains { !($0 is StoreCredentialsError) },
                    "\(store.displayName) \(operation): every problem at once: \(allText(preflight))")
            #expect(silent.requests.isEmpty, "\(silent.requests.map(\.url))")

            let refusing = RecordingHTTPClient()
            refusing.respond { request in
                guard request.url.hasPrefix(Self.api) || request.url.hasPrefix(Self.tokenURL) else { return nil }
                return HTTPResponse(status: 401, headers: [("Content-Type", "application/json")],
                                    body: Array(#"{"errors": [{"code": "NOT_AUTHORIZED", "title": "refused"}], "error": "invalid_grant"}"#.utf8))
            }
            let lane = LaneContext(.init(workingDirectory: folder.path, environment: LaneEnvironment(variables: fixture.environment(Self.api, Self.tokenURL)),
                                         http: refusing, retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
            thrown = nil
            do { try await call(lane, false) } catch { thrown = error }
            let refused = try #require(Self.preflightError(thrown), "\(store.displayName) \(operation): \(allText(thrown))")
            #expect(refused.allErrors.contains { ($0 as? StoreAPIError)?.status == 401 }, "\(allText(refused))")
            #expect(!refusing.requests.isEmpty && refusing.requests.allSatisfy { $0.method == "GET" || $0.url.hasPrefix(Self.tokenURL) },
                    "only reads before the preflight passed: \(refusing.requests.map { "\($0.method) \($0.url)" })")
            #expect(refusing.unscriptedRequests.isEmpty)
        }
    }

    /// Everything outside the stores' folders that talks to a store (the build number from the
    /// stores, match's certificates and profiles and their undos) gets its client through the
    /// contract (`readCredentials`, `connect`, `forUndo`), never by making one itself.
    @Test func onlyTheStoresFoldersMakeStoreClients() throws {
        let root = packageRoot + "/Sources"
        let made = ["AppStoreConnectClient(credentials:", "GooglePlayClient(account:", "AppStoreConnectCredentials.fromEnvironment(",
                    "GooglePlayServiceAccount.fromEnvironment("]
        var found: [String] = []
        for relative in FileManager.default.subpaths(atPath: root) ?? [] where relative.hasSuffix(".swift") && !relative.hasPrefix("Shiplane/Stores/") {
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            for pattern in made where text.contains(pattern) { found.append("\(relative): \(pattern)") }
        }
        #expect(found.isEmpty, "reach the store through Stores.all / connect / forUndo instead: \(found)")
        // The check reads real files: the versioning and match sources are among them.
        #expect(FileManager.default.fileExists(atPath: root + "/Shiplane/Versioning/BuildNumberFromStores.swift"))
        // The build number from the stores loops over `Stores.all` through the contract: it names no store.
        let buildNumbers = try String(contentsOfFile: root + "/Shiplane/Versioning/BuildNumberFromStores.swift", encoding: .utf8)
        #expect(buildNumbers.contains("Stores.all") && !Stores.all.contains { buildNumbers.contains(String(describing: $0)) },
                "BuildNumberFromStores.swift names a store instead of asking each one in Stores.all")
    }

    /// The preflight's error, as thrown or inside the step's failure.
    static func preflightError(_ error: (any Error)?) -> StorePreflightError? {
        guard let error else { return nil }
        if let preflight = error as? StorePreflightError { return preflight }
        if let reportable = error as? any ReportableError {
            return reportable.allErrors.lazy.compactMap { $0 as? StorePreflightError }.first
        }
        return nil
    }
}

/// Calls through the contract with the store's own types (an existential's static members).
extension Store {
    static func readsCredentials(from variables: [String: String], problems: inout [any Error]) -> Bool {
        credentials(from: variables, workingDirectory: "/", problems: &problems) != nil
    }

    static func checksAccess(_ variables: [String: String], transport: HTTPTransport) async throws {
        let credentials = try readCredentials(variables, workingDirectory: "/")
        try await connect(credentials, app: "com.acme.rocket", variables: variables, transport: transport, now: { Date() }).checkAccess()
    }

    static func undoAPI(recorded api: String, in context: EffectContext) throws -> String {
        try forUndo(api: api, app: "com.acme.rocket", in: context, staying: "the change stays").apiBaseURL
    }

    static func uploadsThroughTheContract(_ artifacts: [Artifact], lane: LaneContext) async throws {
        try await lane.run(ContractUpload<Self>(artifacts: artifacts))
    }

    static func looksUp(_ file: String, variables: [String: String], transport: HTTPTransport, state: StoreResumeState) async throws -> StoreEarlierUpload? {
        let credentials = try readCredentials(variables, workingDirectory: "/")
        let store = connect(credentials, app: "com.acme.rocket", variables: variables, transport: transport, now: { Date() })
        let package = StorePackage(artifact: Artifact(kind: .binary, path: file, sha256: try FileDigest.sha256(of: file)), file: file)
        return try await store.earlierUpload(of: package, state: state)
    }
}

/// A step that updates the listing through the contract alone.
struct ContractListing<S: Store>: AsyncAction {
    static var name: String { "contractListing" }
    var listing: S.ListingOptions
    var options: [StepOption] { [] }

    func run(in step: StepContext) async throws {
        _ = try await S.updateListing(listing, in: step)
    }
}

/// A step that submits (or rolls out) through the contract alone.
struct ContractSubmit<S: Store>: AsyncAction {
    static var name: String { "contractSubmit" }
    var submission: S.SubmitOptions
    var options: [StepOption] { [] }

    func run(in step: StepContext) async throws {
        _ = try await S.submit(submission, in: step)
    }
}

/// A step that uploads through the contract alone: the store's default options, the artifacts given.
struct ContractUpload<S: Store>: AsyncAction {
    static var name: String { "contractUpload" }
    var artifacts: [Artifact]
    var options: [StepOption] { [] }

    func run(in step: StepContext) async throws {
        _ = try await S.upload(artifacts, options: S.defaultUploadOptions, in: step)
    }
}
