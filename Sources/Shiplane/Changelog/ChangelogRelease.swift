import Foundation

/// The commits of one release (or of the unreleased work), with what identifies the release.
package struct ChangelogRelease: Sendable, Hashable, Codable {
    /// The title shown in the heading: a version such as `1.2.0`, or `Unreleased`.
    package var title: String
    /// The tag the release points to (`v1.2.0`); nil for unreleased work.
    package var tagName: String?
    /// The release date; nil for unreleased work.
    package var date: Date?
    /// The tag of the release before this one, for the compare link; nil for the first release.
    package var previousTagName: String?
    /// The commits in the release, in the order the git layer gives them (newest first).
    package var commits: [ChangelogCommit]

    /// The title used for work that has no release yet.
    package static let unreleasedTitle = "Unreleased"

    /// Creates a release.
    package init(
        title: String,
        tagName: String? = nil,
        date: Date? = nil,
        previousTagName: String? = nil,
        commits: [ChangelogCommit]
    ) {
        self.title = title
        self.tagName = tagName
        self.date = date
        self.previousTagName = previousTagName
        self.commits = commits
    }

    /// True when this release has no tag yet.
    package var isUnreleased: Bool { tagName == nil }

    /// The link for the heading: the compare view from the previous tag (to `HEAD` when
    /// unreleased), or the tag itself for a first release; nil without links.
    package func compareURL(links: RemoteLinks?) -> String? {
        guard let links else { return nil }
        switch (previousTagName, tagName) {
        case let (previous?, tag?): return links.compareURL(from: previous, to: tag)
        case let (previous?, nil): return links.compareURL(from: previous, to: "HEAD")
        case let (nil, tag?): return links.tagURL(tag)
        case (nil, nil): return nil
        }
    }
}
