import Foundation
internal import Git

/// Commits exactly the files this run's release steps changed: version files, build numbers,
/// and CHANGELOG.md when `writeChangelog` ran.
///
/// Refuses when other files are dirty (listing them) unless `allowOtherChanges`; the other files
/// are then left uncommitted. Author and committer come from git config (`user.name`,
/// `user.email`), overridden by `GIT_AUTHOR_*` and `GIT_COMMITTER_*` as git does. Rollback moves
/// the branch back, if HEAD is still this commit.
public struct CommitVersionBump: Action {
    public static let name = "commitVersionBump"
    public var message: String?
    public var allowOtherChanges: Bool

    public init(message: String? = nil, allowOtherChanges: Bool = false) {
        self.message = message
        self.allowOtherChanges = allowOtherChanges
    }

    public var options: [StepOption] {
        (message.map { [StepOption("message", $0)] } ?? []) + (allowOtherChanges ? [StepOption("allowOtherChanges", "true")] : [])
    }

    /// Returns the new commit's id (in a dry run, `nil`).
    public func run(in step: StepContext) throws -> String? {
        let lane = step.lane
        let root = lane.workingDirectory + "/"
        let changed = lane.state.changedReleaseFiles.map { $0.hasPrefix(root) ? String($0.dropFirst(root.count)) : $0 }
        guard !changed.isEmpty else {
            throw ShiplaneError(
                "no version file or changelog was changed in this run: there is nothing to commit",
                suggestion: "call bumpVersion, incrementBuildNumber or writeChangelog before commitVersionBump"
            )
        }
        let repository = try lane.repository()
        if case .detached(let commit) = try git({ try repository.head() }) {
            throw RepositoryProblem.detachedHead(commit: commit.short)
        }
        let text = try message ?? "Version bump to \(lane.agreedVersion(of: lane.versionFiles(nil)).version)"
        if !allowOtherChanges {
            let others = try git { try repository.status() }.filter { !changed.contains($0.path) }
            // The real tree is read in a dry run too: the overlay's version files are not dirty on
            // disk, so what shows is exactly what would stop the real run.
            if !others.isEmpty {
                throw ShiplaneError(
                    "other files are dirty: the version bump commit would not be the only change",
                    info: [("files", others.prefix(20).map { "\($0.shortCode) \($0.path)" }.joined(separator: "\n"))],
                    suggestion: "commit or stash them first, or pass allowOtherChanges: true (they stay uncommitted)"
                )
            }
        }
        if step.isDryRun {
            step.note("would commit \(changed.joined(separator: ", ")): \(text)")
            return nil
        }
        let variables = lane.environment.variables
        let commit = try git {
            let author = try repository.signature(environment: variables, role: .author)
            let committer = try repository.signature(environment: variables, role: .committer)
            return try repository.commit(paths: changed, message: text, author: author, committer: committer)
        }
        lane.state.clearReleaseFiles()
        step.registerUndo("drop commit \(commit.short) (\(text))") {
            guard try repository.undoCommit(commit) else {
                throw ShiplaneError("HEAD moved on after \(commit.short): the commit is kept")
            }
        }
        step.note("\(commit.short) \(text)")
        return commit.hex
    }
}

extension LaneContext {
    /// Commits the files this run's version steps changed; returns the commit id.
    @discardableResult
    public func commitVersionBump(
        message: String? = nil, allowOtherChanges: Bool = false, file: String = #fileID, line: Int = #line
    ) throws -> String? {
        try run(CommitVersionBump(message: message, allowOtherChanges: allowOtherChanges), file: file, line: line)
    }
}
