import Foundation

/// App Store Connect as a `Store`: an API key (`AppStoreConnectCredentials`), IPAs, TestFlight
/// uploads, the App Store listing and its submission for review.
package struct AppStoreConnectStore: Store {
    package static let kind = "appStoreConnect"
    package static let displayName = AppStoreConnectClient.service
    package static let configuration = [
        AppStoreConnectCredentials.keyIDVariable, AppStoreConnectCredentials.issuerIDVariable,
        AppStoreConnectCredentials.privateKeyVariable, AppStoreConnectCredentials.privateKeyPathVariable,
    ]
    package static let apiURLVariable = AppStoreConnectCredentials.apiURLVariable
    package static let credentialsName = "the App Store Connect key"
    package static let credentialsHint = "\(AppStoreConnectCredentials.keyIDVariable), \(AppStoreConnectCredentials.issuerIDVariable) and the key"
    package static let packageExtensions = ["ipa"]
    package static var actions: [any DocumentedAction.Type] { [UploadToTestFlight.self, UpdateAppStoreMetadata.self, SubmitToAppStore.self] }
    package static var effects: [any Effect.Type] { [
        BuildUploadCreated.self, AppStoreLocalizationUpdated.self, AppStoreListingCreated.self, AppStoreMediaSetCreated.self, AppStoreMediaUploaded.self,
        AppStoreMediaDeleted.self, AppStoreMediaReordered.self, AppStorePreviewFrameChanged.self,
        AppStoreBuildAttached.self, AppStoreReviewDetailChanged.self, AppStoreReleaseTypeChanged.self, AppStorePhasedReleaseChanged.self,
        AppStoreReviewSubmissionCreated.self, AppStoreReviewItemAdded.self, AppStoreSubmittedForReview.self,
    ] }
    package static let pointOfNoReturn = "a build Apple accepted cannot be deleted, and a version submitted for review stays submitted: both stay, and rollback says so"

    /// The client every App Store Connect request goes through.
    package let client: AppStoreConnectClient

    package static func readCredentials(_ variables: [String: String], workingDirectory: String) throws -> AppStoreConnectCredentials {
        try AppStoreConnectCredentials.fromEnvironment(variables, workingDirectory: workingDirectory)
    }

    package static func connect(_ credentials: AppStoreConnectCredentials, app: String?, variables: [String: String], transport: HTTPTransport,
                                now: @escaping @Sendable () -> Date) -> AppStoreConnectStore {
        AppStoreConnectStore(client: AppStoreConnectClient(credentials: credentials, environment: variables, transport: transport,
                                                           now: now, version: ShiplaneVersion.current))
    }

    package var apiBaseURL: String { client.apiBaseURL }

    /// Reads one app: the key is accepted when Apple answers.
    package func checkAccess() async throws {
        _ = try await client.get("/v1/apps", query: [("limit", "1")], as: ASCDocument<[ASCResource<ASCApp>]>.self, operation: "read apps")
    }
}
