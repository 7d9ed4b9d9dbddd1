import Foundation

/// A release's status on a Play track.
public enum PlayReleaseStatus: String, Sendable, CaseIterable {
    /// Visible only in Play Console until someone rolls it out.
    case draft
    /// Staged rollout to `rolloutFraction` of users.
    case inProgress
    /// A staged rollout that was stopped.
    case halted
    /// Out to every user of the track.
    case completed
}

/// How a commit treats Google's review (the `edits.commit` query parameters).
package struct PlayReviewOptions: Sendable, Equatable {
    /// Sends `changesNotSentForReview=true`: the committed changes wait in Play Console until
    /// someone sends them for review there (Google requires it for some apps, and says so).
    package var changesNotSentForReview: Bool
    /// Sends `changesInReviewBehavior=CANCEL_IN_REVIEW_AND_SUBMIT`: changes already in review are
    /// cancelled and sent again with these. Off by default: the commit then fails (ERROR_IF_IN_REVIEW)
    /// instead of cancelling a review.
    package var cancelChangesInReview: Bool

    /// Creates the options; by default changes are sent for review and a review in progress is never cancelled.
    package init(changesNotSentForReview: Bool = false, cancelChangesInReview: Bool = false) {
        self.changesNotSentForReview = changesNotSentForReview
        self.cancelChangesInReview = cancelChangesInReview
    }
}

/// The release written to a track.
struct PlayRelease: Sendable {
    var name: String?
    var versionCodes: [Int64]
    var status: PlayReleaseStatus
    var userFraction: Double?
    var notes: [String: String]
}

/// What to upload to Google Play and which track's release it becomes.
package struct PlayStoreRequest: Sendable {
    /// The `.aab` file to upload.
    package var bundle: String
    /// The bundle's SHA-256 when the upload's package check has just read it (lowercase hex); nil
    /// reads the file.
    package var sha256: String?
    /// Read from the bundle's manifest when nil.
    package var packageName: String?
    /// The track the release goes to: internal, alpha, beta, production or a custom track.
    package var track: String
    /// Release notes per language ("en-US": "...").
    package var releaseNotes: [String: String]
    /// The release's status on the track.
    package var status: PlayReleaseStatus
    /// The share of users for a staged rollout (0 < fraction < 1), with status inProgress or halted.
    package var rolloutFraction: Double?
    /// The release's name in Play Console; Google uses the version name when nil.
    package var releaseName: String?
    /// Bundles larger than this go up as a resumable upload in `chunkSize` parts.
    package var resumableThreshold: Int64
    /// The size of one part of a resumable upload, in bytes.
    package var chunkSize: Int64
    /// How the commit treats Google's review.
    package var review: PlayReviewOptions

    /// Creates a request to upload `bundle` to `track`; by default a completed release on the internal track.
    package init(bundle: String, packageName: String? = nil, track: String = "internal", releaseNotes: [String: String] = [:],
                status: PlayReleaseStatus = .completed, rolloutFraction: Double? = nil, releaseName: String? = nil,
                resumableThreshold: Int64 = 8 << 20, chunkSize: Int64 = 64 << 20, review: PlayReviewOptions = PlayReviewOptions()) {
        self.review = review
        self.bundle = bundle
        self.packageName = packageName
        self.track = track
        self.releaseNotes = releaseNotes
        self.status = status
        self.rolloutFraction = rolloutFraction
        self.releaseName = releaseName
        self.resumableThreshold = resumableThreshold
        self.chunkSize = chunkSize
    }

    /// The problems in the request itself, before anything is read from Google.
    func problems() -> [String] {
        var found: [String] = []
        if track.trimmingCharacters(in: .whitespaces).isEmpty { found.append("the track is empty (internal, alpha, beta, production or a custom track)") }
        if let fraction = rolloutFraction {
            if !(fraction > 0 && fraction < 1) { found.append("rolloutFraction \(fraction) is not between 0 and 1 (exclusive)") }
            if status != .inProgress && status != .halted {
                found.append("rolloutFraction needs status .inProgress (or .halted); it is .\(status.rawValue)")
            }
        } else if status == .inProgress || status == .halted {
            found.append("status .\(status.rawValue) needs a rolloutFraction")
        }
        for (language, text) in releaseNotes {
            if !LanguageTag.looksLikePlayLanguage(language) {
                found.append("release notes language \"\(language)\" is not a language tag like en-US")
            }
            if text.count > 500 { found.append("release notes for \(language) are \(text.count) characters; Google Play takes at most 500") }
        }
        return found
    }
}

/// What preflight found: the bundle, the package, the edit to use and whether the bundle is already in it.
package struct PlayStorePlan: Sendable {
    /// What the bundle's manifest says: package name, version code and name.
    package var manifest: AndroidBundleManifest
    /// The package name used.
    package var packageName: String
    /// The id of the edit the upload goes into.
    package var editID: String
    /// When Google said that edit expires (seconds since 1970), recorded for the undo's compare-and-swap.
    package var editExpiry: String?
    /// True when the edit was opened by this run (rollback deletes it); false when an earlier run's edit is resumed.
    package var createdEdit: Bool
    /// The version code of this very bundle when an earlier run already uploaded it to the edit.
    package var uploadedVersionCode: Int64?
    /// The bundle's SHA-256, in hex.
    package var sha256: String
    /// The edit an earlier run left open without this bundle, deleted when the upload begins.
    package var replacedEdit: String?
    /// What Google Play already has of this very bundle in a release: nothing is uploaded.
    package var unchanged: StoreEarlierUpload?
}
