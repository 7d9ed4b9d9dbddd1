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
    package static var effects: [any Effect.Type] { [PlayEditOpened.self, PlayEditChanged.self, PlayEditReplaced.self] }
    package static let pointOfNoReturn = "a committed edit stays: its release is on the track and its listing is live (halt a rollout in Play Console), and rollback says so"

    /// Every upload sets the bundle from its package; by default a completed release on the internal track.
    package static var defaultUploadOptions: PlayStoreRequest { PlayStoreRequest(bundle: "") }

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

    package static let buildSeries = BuildSeries.android

    package static func buildNumberApp(named source: StoreBuildNumberSource, in current: AgreedVersion) -> String? {
        source.playPackageName ?? IncrementBuildNumberFromStores.packageName(in: current)
    }

    package static func sayLatest(_ latest: String?, version: String) -> String {
        "Google Play: " + (latest.map { "highest versionCode in any track is \($0)" } ?? "no release in any track yet")
    }

    /// The highest version code in any release of any track of package `app` (the version plays
    /// no part: a version code is the app's, not the version's), read through a private edit.
    package func latestBuildNumber(app: String, version: String) async throws -> String? {
        let client = self.client.packageName == app ? self.client : self.client.forPackage(app)
        let edit = try await client.insertEdit()
        let codes: Set<Int64>
        do {
            codes = try await client.versionCodesInTracks(editID: edit)
        } catch {
            try? await client.deleteEdit(edit)
            throw error
        }
        try await client.deleteEdit(edit)
        return codes.max().map(String.init)
    }

    /// Exchanges the key for an access token (kept for the requests that follow).
    package func checkAccess() async throws {
        _ = try await client.accessToken()
    }

    /// What Google Play holds of the bundle: an edit an earlier run left open (the resume record
    /// in `state`) with the bundle's SHA-256 among its bundles (in progress) or without it
    /// (unfinished), or the bundle in a release on a track (accepted; read through a private
    /// edit, deleted again); nil when none of these.
    package func earlierUpload(of package: StorePackage, state: StoreResumeState) async throws -> StoreEarlierUpload? {
        let manifest = try AndroidBundleManifest.read(bundle: package.file)
        let client = self.client.packageName == manifest.packageName ? self.client : self.client.forPackage(manifest.packageName)
        let recordName = "play-\(manifest.packageName)"
        let sha256 = (package.checkedSHA256 ?? package.artifact.sha256).lowercased()
        if let record = state.read(PlayStorePublisher.EditRecord.self, name: recordName), record.packageName == manifest.packageName,
           try await client.editExists(record.editID) {
            if let bundle = try await client.bundles(editID: record.editID).first(where: { $0.sha256?.lowercased() == sha256 }) {
                return StoreEarlierUpload(state: .inProgress, id: record.editID,
                                          summary: "version code \(bundle.versionCode.map(String.init) ?? "?") of \(manifest.packageName) is in edit \(record.editID), not committed yet")
            }
            return StoreEarlierUpload(state: .unfinished, id: record.editID,
                                      summary: "edit \(record.editID) of \(manifest.packageName), left open by an earlier run, does not hold this bundle")
        }
        guard let code = manifest.versionCode else { return nil }
        let edit = try await client.insertEdit()
        var released: Bool
        do {
            // This very bundle (its SHA-256, as Google lists the app's bundles) in a release; a
            // version code used by another bundle is no earlier upload of this one.
            let codes = try await client.versionCodesInTracks(editID: edit)
            // The upload's preflight, in a new edit, sees the same tracks: it takes these.
            client.memo.keep(codes, GooglePlayClient.trackCodesMemo)
            released = codes.contains(code)
            if released {
                released = try await client.bundles(editID: edit).contains { $0.versionCode == code && $0.sha256?.lowercased() == sha256 }
            }
        } catch {
            try? await client.deleteEdit(edit)
            throw error
        }
        try await client.deleteEdit(edit)
        guard released else { return nil }
        return StoreEarlierUpload(state: .accepted, id: String(code), summary: "version code \(code) of \(manifest.packageName) is in a release on Google Play")
    }
}
