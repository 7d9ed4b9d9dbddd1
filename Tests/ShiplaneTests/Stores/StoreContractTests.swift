import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The tests that come with the `Store` contract: every store in `Stores.all` runs them, against a
/// scripted double (`RecordingHTTPClient`) that fails the test on any request it was not told to
/// expect. A store added as one folder and one line is held to one registration, to a preflight
/// that names what is missing and never the secret, to one cheap access check, to undos that reach
/// the API the run used, and to uploads that send nothing before its preflight passed.
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
        var upload: @Sendable (_ lane: LaneContext, _ package: String) async throws -> Void
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
                _ = try await lane.uploadToTestFlight(ipa: package, usesNonExemptEncryption: false, processingTimeout: 1, pollInterval: 0.001)
            }),
        GooglePlayStore.kind: Fixture(
            environment: { api, tokenURL in
                ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": StoreFixtures.serviceAccountJSON(tokenURL: tokenURL), "GOOGLE_PLAY_API_URL": api]
            },
            access: { _, tokenURL in (.post, tokenURL, #"{"access_token": "ya29.contract-token", "expires_in": 3600}"#) },
            makePackage: { try StoreFixtures.makeAAB(at: $0) },
            upload: { lane, package in _ = try await lane.uploadToPlayStore(bundle: package) }),
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
}
