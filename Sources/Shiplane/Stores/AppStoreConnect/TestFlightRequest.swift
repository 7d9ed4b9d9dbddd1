import Foundation

/// What to upload to TestFlight and what to do with the build once Apple has processed it.
package struct TestFlightRequest: Sendable {
    /// The IPA to upload.
    package var ipa: String
    /// The IPA's SHA-256 when the upload's package check has just read it (lowercase hex); nil
    /// reads the file.
    package var sha256: String?
    /// "What to Test", shown to testers; nil leaves it as it is.
    package var whatsNew: String?
    /// The language of "What to Test" (`en-US`).
    package var locale: String
    /// "What to Test" per locale (`["en-US": …, "de-DE": …]`, as `storeNotes(for: .testFlight)`
    /// returns it), set beside `whatsNew`.
    package var localizedWhatsNew: [String: String] = [:]
    /// Beta group names the build is added to once processed.
    package var groups: [String]
    /// True to submit the build for external beta review once processed.
    package var submitForBetaReview: Bool
    /// Export compliance (`usesNonExemptEncryption`); nil leaves it to the Info.plist or App Store Connect.
    package var usesNonExemptEncryption: Bool?
    /// Longest wait for Apple's processing, in seconds.
    package var processingTimeout: Double
    /// Seconds between two looks at the processing state.
    package var pollInterval: Double
    /// How many upload parts are sent at once.
    package var uploadConcurrency: Int
    /// When set, preflight refuses an IPA with another version or build number (a stale artifact).
    package var expectedVersion: String?
    /// The build number the IPA must have, when set; see `expectedVersion`.
    package var expectedBuildNumber: String?

    /// Creates a request to upload `ipa`; the defaults wait up to an hour for processing.
    package init(ipa: String, whatsNew: String? = nil, locale: String = "en-US", groups: [String] = [],
                submitForBetaReview: Bool = false, usesNonExemptEncryption: Bool? = nil,
                processingTimeout: Double = 3600, pollInterval: Double = 30, uploadConcurrency: Int = 4,
                expectedVersion: String? = nil, expectedBuildNumber: String? = nil) {
        self.expectedVersion = expectedVersion
        self.expectedBuildNumber = expectedBuildNumber
        self.ipa = ipa
        self.whatsNew = whatsNew
        self.locale = locale
        self.groups = groups
        self.submitForBetaReview = submitForBetaReview
        self.usesNonExemptEncryption = usesNonExemptEncryption
        self.processingTimeout = processingTimeout
        self.pollInterval = pollInterval
        self.uploadConcurrency = uploadConcurrency
    }

    /// How many times the processing state is read before giving up.
    var maxPolls: Int { max(1, Int((max(0, processingTimeout) / max(0.001, pollInterval)).rounded(.up))) }
}

/// What preflight found: the IPA's metadata, the app, the groups, and what an earlier run left.
package struct TestFlightPlan: Sendable {
    /// What the IPA says about itself: bundle ID, version, build number, platform.
    package var metadata: IPAMetadata
    /// The app's App Store Connect id.
    package var appID: String
    /// The app's name, when App Store Connect gave it.
    package var appName: String?
    /// Group name → id, for the groups asked for.
    package var groupIDs: [(name: String, id: String)]
    /// Where the upload starts, as the `Store` contract's `uploadStart` decided from what App
    /// Store Connect holds: the build (unchanged), an upload being processed (waited for), an
    /// unfinished one (deleted and replaced).
    package var start: StoreUploadStart

    /// What a dry run says would happen.
    package var summary: String {
        let what = "\(metadata.bundleID) \(metadata.version) (\(metadata.buildNumber)), \(ByteCountText.file(metadata.fileSize))"
        let groups = groupIDs.isEmpty ? "" : ", then add it to \(groupIDs.map(\.name).joined(separator: ", "))"
        switch start {
        case .fresh: return "would upload \(what) to App Store Connect app \(appID)\(groups)"
        case .replace(let earlier): return "would delete the unfinished build upload \(earlier.id) and upload \(what)\(groups)"
        case .carryOn(let earlier): return "would wait for build upload \(earlier.id) (\(what)) already being processed\(groups)"
        case .unchanged(let earlier): return "build \(earlier.id) (\(what)) is already on App Store Connect: would not upload it again\(groups)"
        }
    }
}
