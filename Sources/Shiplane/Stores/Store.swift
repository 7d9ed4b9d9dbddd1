import Foundation

/// One app store (App Store Connect, Google Play, …): the credentials it takes and how they are
/// checked, the package it takes among the run's artifacts, its lane actions (upload a build,
/// update the listing from a folder, submit or roll out), the effects those record and what
/// stays once a change is past the point of no return. Each store is one folder that implements
/// it, listed once in `Stores.all`; the catalog and the record name none of them.
///
/// A value is the store bound to one set of credentials for one step or one undo (`connect`):
/// its actions and its effects' undos reach the store's API through it.
///
/// What every store's actions keep to, which `StoreContractTests` check for each one:
/// - **Preflight reads only** and reports every problem at once (`StorePreflightError`), the
///   credentials' problems among them (`credentials(from:workingDirectory:problems:)`), never
///   the secret; a dry run stops there.
/// - **A package is an artifact.** `upload(_:options:in:)` takes the run's artifacts, picks the
///   store's package among them (`packages(among:)`: `.ipa`, `.aab`) and checks its SHA-256
///   against the artifact's record before anything is sent (`StorePackageChanged`); only then
///   does the store's `send` run. A lane that passes a path gets an artifact made from it
///   (`artifact(for:in:)`): the run's record of that file when the run made it.
/// - **Earlier work is found, not redone**, in one place: every `send` starts from
///   `uploadStart(of:state:)`, which asks `earlierUpload(of:state:)` what the store already holds
///   of a package (Apple's build or build upload by app, version and build; a Play
///   edit left open through `StoreResumeState`, kept under the git folder so a fresh clone's
///   retry reads the record's copy of it, or a version code already on a track).
/// - **Every change is an `Effect` written down before it happens**, with one undo that first
///   checks the store is as the run left it (the upload still awaiting its file, the edit still
///   open, a field still holding the run's value) and otherwise leaves it; once a change is past
///   the point of no return it stays (`pointOfNoReturn`) and rollback says so.
package protocol Store: Sendable {
    /// The store's credentials, read from the environment.
    associatedtype Credentials: Sendable
    /// What an upload takes beside its package: TestFlight's groups and notes, Play's track and status.
    associatedtype UploadOptions: Sendable
    /// What an upload gives back: the TestFlight build, the Play version code.
    associatedtype Uploaded: Sendable
    /// What a listing update takes: the metadata folder and the version or app it is for.
    associatedtype ListingOptions: Sendable
    /// What a listing update gives back: the number of changes made (in a dry run, that would be made).
    associatedtype ListingResult: Sendable
    /// What a submission or rollout takes: App Review's version and build, a Play track's release change.
    associatedtype SubmitOptions: Sendable
    /// What a submission or rollout gives back: whether Apple got it for review, the Play changes made.
    associatedtype Submitted: Sendable

    /// The store's name in records and tests (`appStoreConnect`).
    static var kind: String { get }
    /// The store's name as people write it ("App Store Connect").
    static var displayName: String { get }
    /// The environment variables that configure the store, the one that selects it first.
    static var configuration: [String] { get }
    /// The variable that points the store's API elsewhere (a stand-in, a proxy).
    static var apiURLVariable: String { get }
    /// What the credentials are called in messages ("the App Store Connect key").
    static var credentialsName: String { get }
    /// What to set to give the credentials, for messages ("GOOGLE_PLAY_SERVICE_ACCOUNT_JSON").
    static var credentialsHint: String { get }
    /// The file extensions of the packages the store takes (`ipa`, `aab`).
    static var packageExtensions: [String] { get }
    /// The store's lane actions: upload a build, update the listing, submit or roll out.
    static var actions: [any DocumentedAction.Type] { get }
    /// The effect types the store's folder declares, so any process reads a record back.
    static var effects: [any Effect.Type] { get }
    /// What stays once the store took a change past the point of no return, as rollback says it.
    static var pointOfNoReturn: String { get }
    /// The options of an upload that asks for nothing beyond its package.
    static var defaultUploadOptions: UploadOptions { get }

    /// Reads the credentials from `variables` (files relative to `workingDirectory`). Sends nothing.
    /// - Throws: `StoreCredentialsError` or `ValidationFailure` naming what is missing or
    ///   unusable, never the secret.
    static func readCredentials(_ variables: [String: String], workingDirectory: String) throws -> Credentials
    /// The store for `credentials` (and `app`, where its API is per app: Play's package name),
    /// the API base from `apiURLVariable` in `variables` when set. Sends nothing.
    static func connect(_ credentials: Credentials, app: String?, variables: [String: String], transport: HTTPTransport,
                        now: @escaping @Sendable () -> Date) -> Self

    /// The API base the store value talks to, without a trailing slash (recorded in its effects).
    var apiBaseURL: String { get }
    /// One cheap authenticated request, so preflight reports a refused key with the other problems.
    /// - Throws: `StoreAPIError` when the store refuses the credentials.
    func checkAccess() async throws

    /// Uploads `package` in `step` with `options`: preflight (reads only, every problem at once,
    /// a dry run stops there), each change recorded as an effect before it happens, and earlier
    /// work carried on. `upload(_:options:in:)` calls it once the package is picked and checked.
    /// - Throws: `StorePreflightError` before anything is sent; store and transport errors after.
    static func send(_ package: StorePackage, options: UploadOptions, in step: StepContext) async throws -> Uploaded

    /// Brings the store's listing in line with a metadata folder (fastlane's `deliver` or
    /// `supply` layout) in `step`: preflight reads only and reports every problem at once (a dry
    /// run prints the difference and stops there); each write is an effect recorded before it
    /// happens, whose undo first checks the store still holds the run's value.
    /// - Throws: `StorePreflightError` before anything is written; store and transport errors after.
    static func updateListing(_ options: ListingOptions, in step: StepContext) async throws -> ListingResult

    /// Sends what the store holds to its users in `step`: App Review's submission, a Play track's
    /// promotion or staged rollout. Same rules as `updateListing`; what is past the store's point
    /// of no return stays (`pointOfNoReturn`).
    /// - Throws: `StorePreflightError` before anything is written; store and transport errors after.
    static func submit(_ options: SubmitOptions, in step: StepContext) async throws -> Submitted

    /// The project's build-number series the store's builds count (`.apple`, `.android`).
    static var buildSeries: BuildSeries { get }
    /// The store's app for `incrementBuildNumber(.fromStores)`: the one `source` names, else as the
    /// project's files name it; nil when neither does.
    static func buildNumberApp(named source: StoreBuildNumberSource, in current: AgreedVersion) -> String?
    /// The sentence the step logs about `latest` ("App Store Connect: latest build of 1.4.0 is 45").
    static func sayLatest(_ latest: String?, version: String) -> String

    /// The highest build number the store holds for `version` of `app` (Apple: that version's
    /// builds; Google Play: the version codes on any track), nil before the first. Reads only (a
    /// Play edit opened to read the tracks is deleted again).
    /// - Throws: `ShiplaneError` when the store has no such app; store and transport errors.
    func latestBuildNumber(app: String, version: String) async throws -> String?

    /// What the store already holds of `package`, for this store value's credentials: nil when
    /// nothing; the build, an upload being processed, or one left unfinished. Writes nothing a
    /// user sees (Play's look at its tracks goes through a private edit deleted again).
    /// - Throws: `StorePackageError` for an unreadable package; store and transport errors.
    func earlierUpload(of package: StorePackage, state: StoreResumeState) async throws -> StoreEarlierUpload?
}

/// A store's package, picked among the run's artifacts and checked: the artifact and its file.
package struct StorePackage: Sendable, Equatable {
    /// The artifact, its `sha256` the bytes that will be sent.
    package var artifact: Artifact
    /// Its file's absolute path.
    package var file: String
    /// The file's SHA-256 as `checkedPackage` read it just now (nil when the file was missing):
    /// the store's `send` uses it instead of reading a large package again.
    package var checkedSHA256: String?

    package init(artifact: Artifact, file: String, checkedSHA256: String? = nil) {
        self.artifact = artifact
        self.file = file
        self.checkedSHA256 = checkedSHA256
    }
}

/// Where an upload starts, decided in one place (`Store.uploadStart(of:state:)`) from what the
/// store already holds of its package (`earlierUpload`).
package enum StoreUploadStart: Sendable, Equatable {
    /// Nothing earlier: upload.
    case fresh
    /// The store has the package for good: report it unchanged, send it not again.
    case unchanged(StoreEarlierUpload)
    /// An earlier upload is on its way: wait for it or carry it on, never send the package again.
    case carryOn(StoreEarlierUpload)
    /// An earlier upload was begun and never finished: replace it with a new one.
    case replace(StoreEarlierUpload)
}

/// What a store already holds of a package, as an earlier run (here or on another machine) left it.
package struct StoreEarlierUpload: Sendable, Equatable {
    /// How far the earlier upload got.
    package enum State: String, Sendable {
        /// The store has the build for good (Apple accepted it; the version code is on a Play track).
        case accepted
        /// Still on its way: Apple is processing it, or it sits in a Play edit not yet committed.
        case inProgress
        /// Begun but never finished sending: a new upload replaces it.
        case unfinished
    }

    /// How far it got.
    package var state: State
    /// The store's id for it: the build, the build upload or the edit.
    package var id: String
    /// What it is, for messages ("build 1.2.0 (42) is on App Store Connect").
    package var summary: String

    package init(state: State, id: String, summary: String) {
        self.state = state
        self.id = id
        self.summary = summary
    }
}

extension Store {
    /// Whether `variables` configure the store: any of its variables is set and not blank.
    package static func isConfigured(in variables: [String: String]) -> Bool {
        configuration.contains { !(variables[$0] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// The credentials from `variables`, or nil with each of their problems added to `problems`
    /// (one `StoreCredentialsError` a line), for a preflight that reports everything at once.
    package static func credentials(from variables: [String: String], workingDirectory: String, problems: inout [any Error]) -> Credentials? {
        do {
            return try readCredentials(variables, workingDirectory: workingDirectory)
        } catch let failure as ValidationFailure {
            problems += failure.problems.map { StoreCredentialsError($0, suggestion: failure.suggestion) }
        } catch {
            problems.append(error)
        }
        return nil
    }

    /// The store an undo reaches: the API the run used (`api`), the credentials of the process
    /// undoing it (the run itself, the supervisor, or `shiplane rollback`).
    /// - Throws: when the credentials are not set here: `staying` ("the build upload for 1.2 (3)
    ///   stays") says what stays, and the error says how to undo it later (`hint` added).
    package static func forUndo(api: String, app: String? = nil, in context: EffectContext, staying: String, hint: String = "") throws -> Self {
        let variables = context.environment.variables.merging([apiURLVariable: api]) { $1 }
        let credentials: Credentials
        do {
            credentials = try readCredentials(variables, workingDirectory: context.workTree)
        } catch {
            throw ShiplaneError("\(staying): \(credentialsName) is not set here (\(describe(error)))",
                                suggestion: "set \(credentialsHint), then run `shiplane rollback`" + hint)
        }
        return connect(credentials, app: app, variables: variables, transport: context.transport(), now: { Date() })
    }

    /// The artifacts among `artifacts` that are packages of this store, in the run's order.
    package static func packages(among artifacts: [Artifact]) -> [Artifact] {
        artifacts.filter { artifact in packageExtensions.contains { artifact.name.lowercased().hasSuffix("." + $0) } }
    }

    // MARK: - Upload

    /// Where an upload of `package` starts: the one resume mechanism of every store's `send`.
    /// `earlierUpload` says what the store holds; this decides: accepted → unchanged,
    /// in progress → carry on, unfinished → replace, nothing → fresh.
    /// - Throws: what `earlierUpload` throws.
    package func uploadStart(of package: StorePackage, state: StoreResumeState) async throws -> StoreUploadStart {
        guard let earlier = try await earlierUpload(of: package, state: state) else { return .fresh }
        switch earlier.state {
        case .accepted: return .unchanged(earlier)
        case .inProgress: return .carryOn(earlier)
        case .unfinished: return .replace(earlier)
        }
    }

    /// Deletes the unfinished upload `earlier` (what `uploadStart` said to replace) in `step`:
    /// said in the step's output, written down as `effect` before the delete (its undo says
    /// there is nothing to restore), then `delete`d.
    /// - Throws: when the record cannot be written (nothing is deleted), or what `delete` throws.
    package static func deleteUnfinished<E: Effect>(_ earlier: StoreEarlierUpload, as effect: E, in step: StepContext,
                                                    delete: () async throws -> Void) async throws {
        step.log("deleting \(earlier.id), left unfinished by an earlier run (\(earlier.summary)): it is replaced by a new upload")
        let handle = try step.record(effect, "leave deleted \(earlier.id) (\(earlier.summary)): nothing to restore")
        try await delete()
        step.done(handle)
    }

    /// Uploads the store's package among `artifacts` (the run's, or those a lane passed): picks it,
    /// checks its bytes against the artifact's SHA-256, then `send`s it.
    /// - Throws: `StorePreflightError` when there is not exactly one package among `artifacts`, or
    ///   its file no longer holds the recorded bytes (`StorePackageChanged`): nothing is sent.
    package static func upload(_ artifacts: [Artifact], options: UploadOptions, in step: StepContext) async throws -> Uploaded {
        try await send(try checkedPackage(among: artifacts, in: step), options: options, in: step)
    }

    /// The one package of this store among `artifacts`, its digest checked against the file now.
    /// An artifact with no digest yet (a path the run did not make) gets the file's.
    /// - Throws: `StorePreflightError` with what to do; a missing file is left to `send`'s preflight.
    package static func checkedPackage(among artifacts: [Artifact], in step: StepContext) throws -> StorePackage {
        let found = packages(among: artifacts)
        let kinds = packageExtensions.map { "." + $0 }.joined(separator: " or ")
        guard found.count == 1, var artifact = found.first else {
            let problem = found.isEmpty
                ? ShiplaneError("no \(kinds) among the artifacts given (\(artifacts.map(\.name).joined(separator: ", ")))",
                                suggestion: "build the package and pass its path, or register it with lane.artifact(\"path\")")
                : ShiplaneError("\(found.count) \(kinds) packages among the artifacts (\(found.map(\.path).joined(separator: ", ")))",
                                suggestion: "pass the one to upload")
            throw StorePreflightError(target: displayName, problems: [problem])
        }
        let file = step.resolve(artifact.path)
        guard FileManager.default.fileExists(atPath: file) else { return StorePackage(artifact: artifact, file: file) }
        let now: String
        do { now = try FileDigest.sha256(of: file) } catch { throw StorePreflightError(target: displayName, problems: [error]) }
        if artifact.sha256.isEmpty {
            artifact.sha256 = now
        } else if now != artifact.sha256.lowercased() {
            throw StorePreflightError(target: displayName, problems: [StorePackageChanged(path: artifact.path, recorded: artifact.sha256, found: now)])
        }
        return StorePackage(artifact: artifact, file: file, checkedSHA256: now)
    }

    /// The artifact for a package a lane passed: an `Artifact` as it is; a path as the run's own
    /// artifact at that file when the run made it (so its recorded digest is checked), else a new
    /// artifact whose digest `checkedPackage` reads from the file.
    /// - Throws: `ValidationFailure` for a value that is neither.
    package static func artifact(for file: any ArtifactConvertible, in step: StepContext) throws -> Artifact {
        if let artifact = file as? Artifact { return artifact }
        let path = try ArtifactInputs.paths([file])[0]
        let absolute = step.resolve(path)
        if let made = step.lane.state.artifacts.last(where: { step.resolve($0.path) == absolute }) { return made }
        return Artifact(kind: .binary, path: step.relativeArtifactPath(absolute), sha256: "")
    }
}

/// Every store, listed once: the action catalog and the record's effect types come from here. A
/// new store is one folder and one line in this list.
package enum Stores {
    /// The stores, in the order the catalog shows their actions.
    package static var all: [any Store.Type] { [
        AppStoreConnectStore.self, GooglePlayStore.self,
    ] }
}
