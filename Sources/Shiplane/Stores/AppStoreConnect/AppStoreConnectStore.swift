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
        BuildUploadCreated.self, BuildUploadReplaced.self, AppStoreLocalizationUpdated.self, AppStoreListingCreated.self, AppStoreMediaSetCreated.self, AppStoreMediaUploaded.self,
        AppStoreMediaDeleted.self, AppStoreMediaReordered.self, AppStorePreviewFrameChanged.self,
        AppStoreBuildAttached.self, AppStoreReviewDetailChanged.self, AppStoreReleaseTypeChanged.self, AppStorePhasedReleaseChanged.self,
        AppStoreReviewSubmissionCreated.self, AppStoreReviewItemAdded.self, AppStoreSubmittedForReview.self,
    ] }
    package static let pointOfNoReturn = "a build Apple accepted cannot be deleted, and a version submitted for review stays submitted: both stay, and rollback says so"

    /// Every upload sets the IPA from its package.
    package static var defaultUploadOptions: TestFlightRequest { TestFlightRequest(ipa: "") }

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

    package static let buildSeries = BuildSeries.apple

    package static func buildNumberApp(named source: StoreBuildNumberSource, in current: AgreedVersion) -> String? {
        source.appStoreBundleID ?? IncrementBuildNumberFromStores.bundleID(in: current)
    }

    package static func sayLatest(_ latest: String?, version: String) -> String {
        "App Store Connect: " + (latest.map { "latest build of \(version) is \($0)" } ?? "no build of \(version) yet")
    }

    /// The highest build number uploaded for `version` of the app with bundle ID `app`.
    package func latestBuildNumber(app: String, version: String) async throws -> String? {
        guard let found = try await client.app(bundleID: app) else {
            throw ShiplaneError("App Store Connect has no app \(app)", suggestion: "create the app in App Store Connect, or name the right bundle ID")
        }
        return try await client.latestBuildNumber(appID: found.id, version: version)
    }

    /// Reads one app: the key is accepted when Apple answers.
    package func checkAccess() async throws {
        _ = try await client.get("/v1/apps", query: [("limit", "1")], as: ASCDocument<[ASCResource<ASCApp>]>.self, operation: "read apps")
    }

    /// The build or build upload App Store Connect holds for the IPA's app, version, build number
    /// and platform (what a re-run, here or in a fresh clone, carries on from); nil when none, or
    /// when the key's team has no app with the IPA's bundle ID.
    package func earlierUpload(of package: StorePackage, state: StoreResumeState) async throws -> StoreEarlierUpload? {
        let metadata = try IPAMetadata.read(ipa: package.file)
        guard let app = try await client.app(bundleID: metadata.bundleID) else { return nil }
        let label = "build \(metadata.version) (\(metadata.buildNumber))"
        func accepted(_ id: String) -> StoreEarlierUpload { StoreEarlierUpload(state: .accepted, id: id, summary: "\(label) is on App Store Connect") }
        if let build = try await client.build(appID: app.id, version: metadata.version, buildNumber: metadata.buildNumber, platform: metadata.platform) {
            return accepted(build.id)
        }
        let uploads = try await client.buildUploads(appID: app.id, version: metadata.version, buildNumber: metadata.buildNumber,
                                                    platform: metadata.platform)
        for upload in uploads {
            switch upload.attributes?.state?.state {
            case "COMPLETE":
                if let buildID = upload.relatedID("build") { return accepted(buildID) }
                fallthrough
            case "PROCESSING":
                return StoreEarlierUpload(state: .inProgress, id: upload.id, summary: "\(label) was uploaded and App Store Connect is processing it")
            case "AWAITING_UPLOAD":
                return StoreEarlierUpload(state: .unfinished, id: upload.id, summary: "an upload of \(label) was begun and never finished")
            default:
                continue   // FAILED: a new upload may be made
            }
        }
        return nil
    }
}
