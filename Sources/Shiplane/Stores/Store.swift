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
/// - **A package is an artifact.** `packages(among:)` picks the store's packages (`.ipa`, `.aab`)
///   from the run's artifacts.
/// - **Earlier work is found, not redone.** A re-run finds what an earlier run started (Apple's
///   build uploads by app, version and build; a Play edit through `StoreResumeState`, kept under
///   the git folder so a fresh clone's retry reads the record's copy of it).
/// - **Every change is an `Effect` written down before it happens**, with one undo that first
///   checks the store is as the run left it (the upload still awaiting its file, the edit still
///   open, a field still holding the run's value) and otherwise leaves it; once a change is past
///   the point of no return it stays (`pointOfNoReturn`) and rollback says so.
package protocol Store: Sendable {
    /// The store's credentials, read from the environment.
    associatedtype Credentials: Sendable

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
}

/// Every store, listed once: the action catalog and the record's effect types come from here. A
/// new store is one folder and one line in this list.
package enum Stores {
    /// The stores, in the order the catalog shows their actions.
    package static var all: [any Store.Type] { [
        AppStoreConnectStore.self, GooglePlayStore.self,
    ] }
}
