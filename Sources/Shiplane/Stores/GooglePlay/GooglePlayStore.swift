import Foundation

/// Google Play as a `Store`: a service account key (`GooglePlayServiceAccount`), Android App
/// Bundles, uploads to a track and the listing, each through one edit committed at the end.
package struct GooglePlayStore: Store {
    package static let kind = "googlePlay"
    package static let displayName = GooglePlayClient.service
    package static let configuration = [GooglePlayServiceAccount.variable]
    package static let apiURLVariable = GooglePlayServiceAccount.apiURLVariable
    package static let credentialsName = "the service account"
    package static let credentialsHint = GooglePlayServiceAccount.variable
    package static let packageExtensions = ["aab"]
    package static var actions: [any DocumentedAction.Type] { [UploadToPlayStore.self, UpdatePlayStore.self] }
    package static var effects: [any Effect.Type] { [PlayEditOpened.self, PlayEditChanged.self] }
    package static let pointOfNoReturn = "a committed edit stays: its release is on the track and its listing is live (halt a rollout in Play Console), and rollback says so"

    /// The client every Google Play request goes through, for one app.
    package let client: GooglePlayClient

    package static func readCredentials(_ variables: [String: String], workingDirectory: String) throws -> GooglePlayServiceAccount {
        try GooglePlayServiceAccount.fromEnvironment(variables, workingDirectory: workingDirectory)
    }

    package static func connect(_ credentials: GooglePlayServiceAccount, app: String?, variables: [String: String], transport: HTTPTransport,
                                now: @escaping @Sendable () -> Date) -> GooglePlayStore {
        GooglePlayStore(client: GooglePlayClient(account: credentials, packageName: app ?? "", environment: variables, transport: transport, now: now))
    }

    package var apiBaseURL: String { client.apiBaseURL }

    /// Exchanges the key for an access token (kept for the requests that follow).
    package func checkAccess() async throws {
        _ = try await client.accessToken()
    }
}
