import Foundation
internal import Git

/// A package's release commit put on top of origin's newer branch (another package's release
/// landed first): the branch moved from `commit` to `copy`, and each of the release's tags from
/// the tag object naming `commit` to one naming `copy`.
package struct ReleaseReplayed: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "git.release-replayed"
    /// The release commit as the run made it.
    package var commit: String
    /// Origin's branch tip it was put on.
    package var base: String
    /// The copy on top of `base`, once made.
    package var copy: String?
    /// The tags moved with it.
    package var tags: [MovedTag]

    /// A tag moved from the release commit to its copy.
    package struct MovedTag: Codable, Equatable, Sendable {
        /// Its name.
        package var name: String
        /// The tag object that named the release commit.
        package var before: String
        /// The tag object that names the copy, once made.
        package var after: String?
    }

    /// In the repository.
    package var reach: EffectReach { .local }

    /// Moves each tag back to its earlier object while it holds the one this effect made, and
    /// the branch, the index and the work tree back to `commit` while HEAD is at the copy.
    /// - Throws: when a tag or the branch moved since (it is left as it is and named).
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let repository = try context.repository()
        var moved: [String] = []
        for tag in tags {
            guard let after = tag.after.flatMap(ObjectID.init(hex:)), let before = ObjectID(hex: tag.before) else { continue }
            if try !git({ try repository.restoreTag(name: tag.name, to: before, ifPointsAt: after) }) { moved.append("tag \(tag.name)") }
        }
        if let copy = copy.flatMap(ObjectID.init(hex:)), let commit = ObjectID(hex: commit) {
            if try !git({ try repository.unreplayHeadCommit(copy, back: commit) }) { moved.append("HEAD (no longer at \(copy.short))") }
        }
        guard moved.isEmpty else {
            throw ShiplaneError("\(moved.joined(separator: " and ")) moved since the release commit was put on top of origin's branch, so it was left as it is",
                                suggestion: "look at `git log -1` and `git tag -n`; move them back by hand if they are this run's")
        }
    }
}
