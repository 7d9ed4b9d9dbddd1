import Foundation

/// A build upload this run created on App Store Connect (`api`: the API base; `label`: the version
/// and build). Written down before the create call with `uploadID` nil: a run killed before the
/// answer came leaves an upload still awaiting its file, found again by app, version and build.
package struct BuildUploadCreated: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "appstoreconnect.buildUpload"
    /// The API base URL.
    package var api: String
    /// The upload's id, once Apple answered.
    package var uploadID: String?
    /// The version and build number, for messages.
    package var label: String
    /// The app's id.
    package var appID: String?
    /// The marketing version.
    package var version: String?
    /// The build number.
    package var buildNumber: String?
    /// The platform (IOS, MAC_OS, TV_OS, VISION_OS); nil in records written before it was kept.
    package var platform: String?

    /// Describes a build upload.
    package init(api: String, uploadID: String?, label: String, appID: String?, version: String?, buildNumber: String?, platform: String? = nil) {
        self.api = api
        self.uploadID = uploadID
        self.label = label
        self.appID = appID
        self.version = version
        self.buildNumber = buildNumber
        self.platform = platform
    }

    /// On App Store Connect.
    package var reach: EffectReach { .service }

    /// Deletes the upload, unless Apple has accepted the build (a build cannot be deleted); with
    /// no id, the upload of that app, version, build number and platform that still awaits its
    /// file (every page of the list, filtered as the API allows). When no such upload exists the
    /// create call never landed and nothing is deleted.
    /// - Throws: `EffectStays` for an accepted build, or one Apple is processing; an error when
    ///   the key is not set or Apple refuses.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreConnectStore.forUndo(api: api, in: context, staying: "the build upload for \(label) stays", hint: ", or delete it by hand").client
        guard let uploadID else {
            // Asked for, but the answer was lost: only an upload still awaiting its file is this run's.
            if let appID, let version, let buildNumber {
                let found = try await client.deleteUnfinishedUploads(appID: appID, version: version, buildNumber: buildNumber, platform: platform)
                if found.deleted.isEmpty, !found.accepted.isEmpty {
                    throw EffectStays("App Store Connect has build upload \(found.accepted.joined(separator: ", ")) for \(label), which it is processing or has accepted; a build cannot be deleted, so it stays (expire it in TestFlight if testers must not get it; the next upload needs a new build number)")
                }
            }
            return
        }
        // Once Apple has made the build, it cannot be deleted: say so rather than delete the upload record under it.
        if let upload = try? await client.buildUpload(id: uploadID), upload.attributes?.state?.state == "COMPLETE" {
            throw EffectStays("App Store Connect accepted build \(label); a build cannot be deleted, so it stays (expire it in TestFlight if testers must not get it; the next upload needs a new build number)")
        }
        try await client.deleteBuildUpload(id: uploadID)
    }
}
