import Foundation
internal import Git

/// A commit on `branch` (nil: on a detached HEAD) on top of `parent`; `commit` is filled in once
/// it exists. Records written before detached commits existed always name a branch, and decode.
package struct CommitMade: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "git.commit"
    /// The branch the commit went on; nil when HEAD was detached and moved to the commit.
    package var branch: String?
    /// The commit it sits on (empty on an unborn branch).
    package var parent: String
    /// Its message.
    package var message: String
    /// The commit's id, once made.
    package var commit: String?
    /// The index entries of the committed paths before the commit staged them, so that an undo
    /// leaves the index as the run found it (nil in records written before it was kept).
    package var indexBefore: [IndexEntryBefore]?

    /// A path's index entry as it was: its mode and object, or neither when the index lacked it.
    package struct IndexEntryBefore: Codable, Equatable, Sendable {
        /// The path relative to the work tree root.
        package var path: String
        /// The entry's mode, nil when the index held no entry for the path.
        package var mode: UInt32?
        /// The object staged, nil when the index held no entry for the path.
        package var object: String?

        /// Describes one entry.
        package init(path: String, mode: UInt32?, object: String?) {
            self.path = path
            self.mode = mode
            self.object = object
        }
    }

    /// Describes a commit.
    package init(branch: String?, parent: String, message: String, commit: String?, indexBefore: [IndexEntryBefore]? = nil) {
        self.branch = branch
        self.parent = parent
        self.message = message
        self.commit = commit
        self.indexBefore = indexBefore
    }

    /// In the repository.
    package var reach: EffectReach { .local }

    /// Moves the branch (or the detached HEAD) back to `parent` while HEAD is still the run's
    /// commit, then puts the committed paths' index entries back as they were before the run
    /// staged them (each only while the index still stages the work tree's file, as the run did).
    /// - Throws: when HEAD left the branch (or, detached, moved elsewhere) or the branch moved on.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .intended { context.removeStaleGitLocks([branch.map { "refs/heads/\($0).lock" }, "index.lock", "HEAD.lock"].compactMap { $0 }) }
        let repository = try context.repository()
        try dropCommit(in: repository)
        try restoreIndex(in: repository)
    }

    /// The index entries before the commit, for `indexBefore`, read before `paths` are staged.
    static func indexEntries(of paths: [String], in repository: Repository) throws -> [IndexEntryBefore] {
        let entries = try git { try repository.indexEntries(paths) }
        return paths.map { path in
            IndexEntryBefore(path: path, mode: entries[path]?.mode, object: entries[path]?.id.hex)
        }
    }

    private func restoreIndex(in repository: Repository) throws {
        guard let indexBefore, !indexBefore.isEmpty else { return }
        var before: [String: IndexEntry] = [:]
        for entry in indexBefore {
            if let mode = entry.mode, let object = entry.object.flatMap(ObjectID.init(hex:)) {
                before[entry.path] = IndexEntry(path: entry.path, mode: mode, id: object)
            }
        }
        _ = try git {
            try repository.restoreIndexEntries(indexBefore.map(\.path), to: before) { path, current in
                // Staged by the run: the index holds the work tree's file as it is (or its removal).
                let file = repository.workTreeObject(path)
                return current.map { $0.id == file } ?? (file == nil)
            }
        }
    }

    private func dropCommit(in repository: Repository) throws {
        let place = branch ?? "the detached HEAD"
        let state = try git { try repository.head() }
        if case .unborn(let name) = state, name == branch, parent.isEmpty { return }
        let head: ObjectID
        switch (state, branch) {
        case (.branch(let name, let commit), let branch?) where name == branch: head = commit
        case (.detached(let commit), nil): head = commit
        default: throw ShiplaneError("HEAD is no longer on \(place): the release commit is left as it is")
        }
        if head.hex == parent { return }
        let ours: Bool
        if let commit {
            ours = head.hex == commit
        } else {
            // The commit was being made when the run stopped: it is ours if it sits right on the
            // recorded parent with the recorded message.
            let read = try git { try repository.commitParentsAndMessage(head) }
            ours = (read.parents.first?.hex ?? "") == parent && read.message.trimmingCharacters(in: .whitespacesAndNewlines)
                == message.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard ours, try git({ try repository.undoCommit(head) }) else {
            throw ShiplaneError("\(place) moved on after the release commit: the commit is kept")
        }
    }
}

/// A tag pointing at `target`: `object` is the tag object (or the commit, for a lightweight tag)
/// once it exists; `replaced` is the object the tag pointed at before, when the run moved it.
package struct TagWritten: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "git.tag"
    /// The tag's name.
    package var name: String
    /// The commit it names.
    package var target: String
    /// The tag object (or commit) it points at, once made.
    package var object: String?
    /// What it pointed at before a forced move; nil for a new tag.
    package var replaced: String?

    /// Describes a tag written.
    package init(name: String, target: String, object: String?, replaced: String?) {
        self.name = name
        self.target = target
        self.object = object
        self.replaced = replaced
    }

    /// In the repository.
    package var reach: EffectReach { .local }

    /// Deletes the tag, or puts a moved tag back where it was, while it still points where the
    /// run put it.
    /// - Throws: when the tag was moved since.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .intended { context.removeStaleGitLocks(["refs/tags/\(name).lock"]) }
        let repository = try context.repository()
        guard let tag = try git({ try repository.tag(named: name) }) else { return }
        if let replaced, tag.object.hex == replaced { return }
        let ours = object.map { tag.object.hex == $0 } ?? (tag.target.hex == target)
        guard ours else { throw ShiplaneError("tag \(name) was moved after Shiplane wrote it: kept") }
        let done: Bool
        if let replaced, let previous = ObjectID(hex: replaced) {
            done = try git { try repository.restoreTag(name: name, to: previous, ifPointsAt: tag.object) }
        } else {
            done = try git { try repository.deleteTag(name: name, ifPointsAt: tag.object) }
        }
        guard done else { throw ShiplaneError("tag \(name) was moved after Shiplane wrote it: kept") }
    }
}

/// Refs pushed to a remote: others may have them from here on.
package struct RefsPushed: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "git.push"
    /// The remote's name.
    package var remote: String
    /// The refs pushed (`refs/heads/main`, `refs/tags/v1.2.0`): before the remote answers, every
    /// ref sent; once it answered, the ones it accepted.
    package var refs: [String]
    /// The refs the remote refused, once it answered (nil when it refused none).
    package var refused: [String]?
    /// The object each ref was sent with (`refs/tags/v1.2.0` → its id), and the one the remote held
    /// when it was sent (absent: none): a push cut short is proved never to land when the remote
    /// holds a third object under every ref (`UnlandedPush`). Nil in records older than them.
    package var sent: [String: String]?
    package var before: [String: String]?

    /// Describes a push.
    package init(remote: String, refs: [String], refused: [String]? = nil, sent: [String: String]? = nil, before: [String: String]? = nil) {
        self.remote = remote
        self.refs = refs
        self.refused = refused
        self.sent = sent
        self.before = before
    }

    /// On a remote.
    package var reach: EffectReach { .remote }

    /// Never undone: others may already have fetched the refs.
    /// - Throws: `EffectStays`, always.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let refusedNote = refused.map { " (\(remote) refused \($0.joined(separator: ", ")): push it once \(remote) accepts it)" } ?? ""
        throw EffectStays("pushed \(refs.joined(separator: ", ")) to \(remote): others may have it, so it stays" + refusedNote)
    }
}
