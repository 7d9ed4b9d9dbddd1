import Foundation
internal import Git

/// The run record kept on the remote, so a CI retry on a fresh clone finishes the release.
///
/// At the point of no return the push that publishes the release also pushes `refs/shiplane/run`,
/// a commit of its own holding the run's record as `run.json`, in the same push. A completed run deletes it. A run that
/// starts with no local record, in CI or not, looks for it on `origin` before its first effect
/// and, when it is the record of the same command at the same commit, resumes it.
package enum RemoteRunRecord {
    /// The ref that holds the record of a run of the whole repository, here and on the remote.
    package static let reference = "refs/shiplane/run"

    /// The ref that holds the record of a run releasing `scope`, a monorepo package on its own
    /// (`refs/shiplane/packages/core/run`), or the repository's (`reference`) for nil: N jobs
    /// releasing N packages each keep their own record, and a retry of one finds its own.
    package static func reference(scope: String?) -> String {
        scope.map { "refs/shiplane/packages/\($0)/run" } ?? reference
    }

    /// Where the local copies of package runs' records are.
    static let packageReferences = "refs/shiplane/packages/*/run"
    /// Where a fetched record lands locally.
    static let fetched = "refs/shiplane/fetched-run"

    /// When a run with no local record looks at the remote's record.
    package enum Look: Sendable, Equatable {
        /// At the start, before the lane runs (`SHIPLANE_REMOTE_RECORD=1`).
        case now
        /// In the background from the start, waited for before the run's first effect (and its
        /// first command): a lane that only reads never waits. The default, in CI or not.
        case beforeFirstEffect
        /// Never (`SHIPLANE_REMOTE_RECORD=0`).
        case never
    }

    /// When this run looks at the remote's record: `SHIPLANE_REMOTE_RECORD=1` at once, `=0` never,
    /// otherwise before its first effect.
    package static func look(environment: [String: String]) -> Look {
        switch environment["SHIPLANE_REMOTE_RECORD"] {
        case "0": .never
        case "1": .now
        default: .beforeFirstEffect
        }
    }

    /// The unfinished run recorded on `remote`, rebased onto this work tree, or nil when there is
    /// none. `head` is this checkout's HEAD commit, for the caller to compare.
    /// - Throws: when the remote cannot be reached or the record cannot be read.
    /// `ownHandle`: the caller runs this in a thread of its own, on a handle no one else uses (with
    /// a lock of its own, so the run's handle is not held while this waits for the network).
    /// `scope`: the package the run releases on its own (`RunRecord.packageScope`), whose record it looks for.
    package static func fetch(
        workTree: String, remote: String, environment: LaneEnvironment, ownHandle: Bool = false, scope: String? = nil
    ) throws -> (record: RunRecord, head: String)? {
        let reference = reference(scope: scope)
        func use<T>(_ body: () throws -> T) throws -> T {
            guard ownHandle else { return try git(body) }
            do {
                return try body()
            } catch let error as GitError {
                throw GitFailure(error)
            }
        }
        let repository = try RepositoryAccess.open(at: workTree)
        guard let url = try use({ try repository.remoteURL(named: remote) }) else { return nil }
        let credentials = Push.credentials(for: url, environment: environment)
        // A look of its own writes to a ref of its own: two looks at once must not meet.
        let destination = ownHandle ? fetched + "-look" : fetched
        guard try use({ try repository.fetchIfPresent(remote: remote, source: reference, destination: destination, credentials: credentials) }),
              let data = try use({ try repository.readFileReference(destination, name: "run.json") }) else { return nil }
        try? use { try repository.deleteReference(destination) }
        let record: RunRecord
        do {
            record = try RunStore.decoder.decode(RunRecord.self, from: data)
        } catch {
            throw ShiplaneError(
                "the run record on \(remote) (\(reference)) cannot be read: \(describe(error))",
                suggestion: "delete it with `git push \(remote) :\(reference)` if no release is in progress"
            )
        }
        let head: String
        switch try use({ try repository.head() }) {
        case .branch(_, let commit), .detached(let commit): head = commit.hex
        case .unborn: head = ""
        }
        var rebased = record.rebased(to: workTree)
        rebased.fetchedFromRemote = true
        return (rebased, head)
    }

    /// The record as the remote keeps it: marked unfinished and pushed, without the results of
    /// `sh` steps (a fresh clone runs commands again, and their output may hold anything), and
    /// with every secret the run knows redacted — the remote may be seen by many.
    static func snapshot(_ record: RunRecord, pointOfNoReturn: String, remote: String, redactor: SecretRedactor) throws -> Data {
        // No path of this machine: the work tree is `.` and every path under it is relative to it
        // (`./VERSION`); `fetch` moves them under the clone's work tree again.
        var copy = record.rebased(to: RunRecord.portableWorkTree)
        copy.pointOfNoReturn = copy.pointOfNoReturn ?? pointOfNoReturn
        copy.remoteRecord = remote
        copy.scope = record.packageScope
        copy.state = .unfinished
        // What a fresh clone does not need stays here: the machine, the process, the option values
        // (a clone recognises the same command by their digest).
        copy.host = ""
        copy.pid = 0
        copy.arguments = [record.argumentsDigest ?? RunRecord.argumentsDigest(record.arguments)]
        copy.argumentsDigest = nil
        // A file or folder outside the work tree is this machine's alone (a folder a lane copied
        // the release to, a file in /tmp): another clone has no such file to restore, and its
        // path would tell the remote how this machine is laid out. Its effects stay in the local
        // record only, where this machine's supervisor and `shiplane rollback` undo them; the
        // remote's copy leaves them out, and a step whose result or artifacts name such a path
        // is left without them (a clone runs it again, on its own files).
        var outside: Set<String> = []
        copy.effects = copy.effects.filter { entry in
            var paths: [String] = []
            _ = entry.effect.rebased { path in
                if path != RunRecord.portableWorkTree && !path.hasPrefix(RunRecord.portableWorkTree + "/") { paths.append(path) }
                return path
            }
            // A lane's own effect type moves no path (`Effect.rebased` by default): its fields
            // are read instead, and one that names a place on this machine outside the work tree
            // keeps the effect local as well (the work tree's own paths become relative below).
            paths += entry.effect.payload.strings.filter { isPathOutside($0, workTree: record.workTree) }
            outside.formUnion(paths)
            return paths.isEmpty
        }
        outside.formUnion(copy.steps.flatMap { $0.artifacts ?? [] }.map(\.path).filter { $0.hasPrefix("/") })
        copy.steps = copy.steps.map { step in
            var step = step
            let namesOutside = (step.artifacts ?? []).contains { $0.path.hasPrefix("/") }
                || outside.contains { path in step.output?.contains(path) == true }
            if namesOutside { (step.output, step.artifacts) = (nil, nil) }
            return step
        }
        // The remote's copy is written before a message goes: a clone cannot tell whether the
        // send began, so every message not yet done there may have been sent.
        copy.effects = copy.effects.map { effect in
            var effect = effect
            if effect.status == .intended && effect.note == nil { effect.note = RecordedEffect.sendUnderWay }
            return effect
        }
        copy.steps = copy.steps.map { step in
            var step = step
            // A command's output may hold anything; a result that held a secret is left out too,
            // so a fresh clone runs its step again instead of replaying a redacted value.
            if step.name == Sh.name || step.output.map({ redactor.redact($0) != $0 }) == true { step.output = nil }
            return step
        }
        var text = String(decoding: try RunStore.encoder.encode(copy), as: UTF8.self)
        // What names the work tree in words (an effect's description, a note) names it relatively too.
        if !record.workTree.isEmpty, record.workTree != RunRecord.portableWorkTree {
            text = text.replacingOccurrences(of: record.workTree + "/", with: "")
                .replacingOccurrences(of: "\"" + record.workTree + "\"", with: "\".\"")
        }
        // Words that still name a path outside it (a description, a note) name the file alone.
        for path in outside.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: path, with: "(outside the work tree)/" + (path as NSString).lastPathComponent)
        }
        return Data(redactor.redact(text).utf8)
    }

    /// Whether `value`, a string an effect recorded, names a place on this machine outside
    /// `workTree`: an absolute path that exists, or whose folder does (not the root folder alone,
    /// so an API path such as `/repos/acme/app` is not taken for one).
    static func isPathOutside(_ value: String, workTree: String) -> Bool {
        guard value.hasPrefix("/"), value != workTree, !value.hasPrefix(workTree + "/"), !value.contains("\n") else { return false }
        let folder = (value as NSString).deletingLastPathComponent
        return FileManager.default.fileExists(atPath: value) || (folder != "/" && FileManager.default.fileExists(atPath: folder))
    }

    /// Writes the run's record to the local `refs/shiplane/run`, ready to go out with a push.
    static func stage(_ recorder: RunRecorder, in repository: Repository, pointOfNoReturn: String, remote: String, environment: LaneEnvironment) throws {
        let snapshot = try recorder.snapshotForRemote(
            pointOfNoReturn: pointOfNoReturn, remote: remote, redactor: SecretRedactor(secrets: Array(environment.secretValues)))
        // Only Shiplane writes this ref, and this process holds the run lock: a lock file on it was
        // left by a run killed while writing it.
        let reference = reference(scope: recorder.current.packageScope)
        unlink(recorder.store.folder + "/../" + reference + ".lock")
        try git { try repository.writeFileReference(reference, name: "run.json", content: snapshot, message: "shiplane: run record") }
    }

    /// What origin shows of `record`'s run when it was finished elsewhere, or nil: the record went
    /// to its remote (the run passed a push), the remote holds no record of this run (none: a
    /// finished run deletes it; or another run's, which superseded it), and the remote has the
    /// release — a tag the run wrote, at its release commit, or its branch at that commit or past
    /// it. Such a local record is stale (a fresh clone finished the release); resuming it would
    /// send its messages again.
    /// - Throws: when the remote cannot be reached (the caller resumes as before).
    package static func finishedElsewhere(_ record: RunRecord, workTree: String, environment: LaneEnvironment) throws -> String? {
        guard let remote = record.remoteRecord, let release = record.releaseCommit, let releaseID = ObjectID(hex: release) else { return nil }
        let repository = try RepositoryAccess.open(at: workTree)
        guard let url = try git({ try repository.remoteURL(named: remote) }) else { return nil }
        let refs = try git { try repository.remoteReferences(remote: remote, credentials: Push.credentials(for: url, environment: environment)) }
        var holds = "no run record"
        if refs[reference(scope: record.packageScope)] != nil {
            guard let other = try fetch(workTree: workTree, remote: remote, environment: environment, scope: record.packageScope)?.record,
                  other.id != record.id else { return nil }
            holds = "the record of another run, `\(other.lane)`"
        }
        let written = record.effects.filter { $0.status != .undone }
        for tag in written.compactMap({ $0.effect.as(TagWritten.self) }) where refs["refs/tags/\(tag.name)"] == releaseID {
            return "\(remote) has \(tag.name) at \(releaseID.short) and \(holds)"
        }
        for branch in Set(written.compactMap { $0.effect.as(CommitMade.self)?.branch }) {
            guard let head = refs["refs/heads/\(branch)"] else { continue }
            let contains = head == releaseID || ((try? git { try repository.reachable([releaseID], from: head) })?.contains(releaseID) ?? false)
            if contains { return "\(remote)'s \(branch) has the release commit \(releaseID.short) and \(remote) has \(holds)" }
        }
        return nil
    }

    /// Brings a checkout at the commit an unfinished release started from forward to that
    /// release's commit, when origin's branch holds it: where a CI retries a job — at the commit
    /// that triggered the pipeline, the release commit's parent — after the killed attempt's push
    /// landed. The run then resumes at the release commit, as a fresh clone of the branch does,
    /// instead of stopping because the checkout is not at it. The release commit is fetched from
    /// origin's branch (into `refs/shiplane/catch-up`, forced: one a killed move left is
    /// overwritten, and deleted after); HEAD (its branch, or a detached HEAD) moves forward with the
    /// index and the work tree (`Repository.fastForwardHead`): a file the move writes that holds
    /// neither the start's version nor the release's — a change of someone's — stops it and
    /// nothing moves, while one at the release's version is a killed move's own work, finished now.
    /// - Returns: the release commit when this checkout moved to it; nil when the record is not of
    ///   a release started here, or origin's branch does not hold its commit (nothing changed).
    /// - Throws: when origin cannot be reached or the checkout cannot move.
    package static func catchUp(_ record: RunRecord, head: String, workTree: String, remote: String, environment: LaneEnvironment) throws -> String? {
        guard let release = record.releaseCommit, release != head, record.startCommit == head,
              let last = record.effects.reversed().lazy.filter({ $0.status != .undone }).compactMap({ $0.effect.as(CommitMade.self) }).first,
              last.commit == release, let branch = last.branch,
              let releaseID = ObjectID(hex: release), let headID = ObjectID(hex: head) else { return nil }
        let repository = try RepositoryAccess.open(at: workTree)
        guard let url = try git({ try repository.remoteURL(named: remote) }) else { return nil }
        let scratch = "refs/shiplane/catch-up"
        // Only Shiplane writes this ref, under the run lock: a lock file on it was left by a kill.
        if let store = try? RunStore.forWorkTree(workTree) { unlink(store.folder + "/../" + scratch + ".lock") }
        guard try git({ try repository.fetchIfPresent(
            remote: remote, source: "refs/heads/\(branch)", destination: scratch, credentials: Push.credentials(for: url, environment: environment)) })
        else { return nil }
        defer { try? git { try repository.deleteReference(scratch) } }
        let tip = try git { try repository.resolveCommit(scratch) }
        guard try git({ try repository.isAncestor(releaseID, of: tip) }),
              try git({ try repository.fastForwardHead(from: headID, to: releaseID) }) else { return nil }
        return release
    }

    /// Deletes this checkout's copy of the record (`refs/shiplane/run`), when there is one: after a
    /// stale local record was retired.
    package static func deleteLocalCopy(workTree: String, scope: String? = nil) {
        guard let repository = try? RepositoryAccess.open(at: workTree) else { return }
        try? git { try repository.deleteReference(reference(scope: scope)) }
    }

    /// Writes the run's record to `refs/shiplane/run` and pushes it (alone) to `remote`, replacing
    /// what is there: past the point of no return, the remote's copy follows the run.
    /// - Throws: when the record cannot be written or the remote refuses it.
    static func publish(_ recorder: RunRecorder, in repository: Repository, remote: String, environment: LaneEnvironment) throws {
        guard let url = try git({ try repository.remoteURL(named: remote) }) else { return }
        try stage(recorder, in: repository, pointOfNoReturn: recorder.current.pointOfNoReturn ?? "", remote: remote, environment: environment)
        let reference = reference(scope: recorder.current.packageScope)
        try git {
            try repository.push(
                remote: remote, refspecs: ["+\(reference):\(reference)"], credentials: Push.credentials(for: url, environment: environment))
        }
    }

    /// Deletes the record on `remote` and here (after a completed run, or a rollback) when the
    /// remote's is this run's (`runID`); a failure, or a record another run put there since, is
    /// returned as text for a warning, never thrown: the release itself is settled.
    ///
    /// Compare-and-swap: the remote's record is this run's when it is the very commit this run
    /// pushed (the local copy, `refs/shiplane/run`) or, when that copy is gone or newer (a record
    /// fetched from the remote, an update the remote did not take), a record that names this
    /// run's id. The deletion is sent from the value seen, and git's receive-pack deletes a ref
    /// only from the value the push names: a record that another clone's run (a CI retry that
    /// started over) put there in between is left as it is.
    ///
    /// A package run's record (`reference(scope:)`) is the one whose local copy holds `runID`.
    package static func remove(workTree: String, remote: String, environment: LaneEnvironment, runID: String) -> String? {
        var reference = reference
        do {
            let repository = try RepositoryAccess.open(at: workTree)
            reference = ownReference(runID: runID, in: repository)
            guard let url = try git({ try repository.remoteURL(named: remote) }) else { return nil }
            let credentials = Push.credentials(for: url, environment: environment)
            defer { try? git { try repository.deleteReference(reference) } }
            guard let theirs = try git({ try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false) })[reference] else {
                return nil
            }
            let pushed = try? git { try repository.resolveCommit(reference) }
            guard theirs == pushed || Self.runID(on: remote, reference: reference, at: theirs, in: repository, credentials: credentials) == runID else {
                return "\(remote)'s run record \(reference) (\(theirs.short)) is not the one this run pushed: another run replaced it, so it was left as it is"
            }
            switch try git({ try repository.compareAndSwap(remote: remote, [.delete(reference, expected: theirs)], credentials: credentials) }) {
            case .swapped:
                return nil
            case .refused(let outcome):
                return "\(remote) kept its run record \(reference) (\(outcome.refused.map(\.reason).joined(separator: ", "))): it changed while this run deleted it, so it was left as it is"
            case .moved:
                return "\(remote)'s run record \(reference) changed while this run deleted it (another run replaced it): left as it is"
            }
        } catch {
            return "could not delete the run record \(reference) on \(remote): \(describe(error)); delete it with `git push \(remote) :\(reference)`"
        }
    }

    /// The ref of the run `runID`'s record: a package's, when its local copy holds that run;
    /// else the repository's.
    private static func ownReference(runID: String, in repository: Repository) -> String {
        struct Identified: Decodable { var id: String }
        let names = (try? git { try repository.referenceNames(matching: packageReferences) }) ?? []
        for name in names {
            guard let data = try? git({ try repository.readFileReference(name, name: "run.json") }),
                  (try? RunStore.decoder.decode(Identified.self, from: data))?.id == runID else { continue }
            return name
        }
        return reference
    }

    /// The id of the run whose record `remote` holds at `value`, or nil when it cannot be read.
    private static func runID(on remote: String, reference: String, at value: ObjectID, in repository: Repository, credentials: PushCredentials) -> String? {
        struct Identified: Decodable { var id: String }
        let destination = fetched + "-owner"
        defer { try? git { try repository.deleteReference(destination) } }
        guard (try? git({ try repository.fetchIfPresent(remote: remote, source: reference, destination: destination, credentials: credentials) })) == true,
              (try? git({ try repository.resolveCommit(destination) })) == value,
              let data = try? git({ try repository.readFileReference(destination, name: "run.json") }) else { return nil }
        return (try? RunStore.decoder.decode(Identified.self, from: data))?.id
    }
}

extension RunRecord {
    /// The work tree of the record on the remote: its paths are relative to the checkout's root.
    static let portableWorkTree = "."

    /// The record with its paths moved from its work tree to `root` (a fresh clone elsewhere).
    package func rebased(to root: String) -> RunRecord {
        guard root != workTree, !workTree.isEmpty else { return self }
        let old = workTree + "/", new = root + "/"
        func move(_ path: String) -> String { path.hasPrefix(old) ? new + path.dropFirst(old.count) : path }
        var copy = self
        copy.workTree = root
        copy.effects = effects.map { entry in
            var entry = entry
            entry.effect = entry.effect.rebased(move)
            return entry
        }
        copy.steps = steps.map { step in
            var step = step
            step.output = step.output?.replacingOccurrences(of: "\"" + old, with: "\"" + new)
            return step
        }
        return copy
    }

    /// What the record on the remote keeps of a run's arguments: their SHA-256, never the values.
    static func argumentsDigest(_ arguments: [String]) -> String {
        "sha256:" + SHA256.hex(of: Data(arguments.joined(separator: "\u{0}").utf8))
    }

    /// True when this is the record of `lane` run with `arguments` (by their digest, for a record
    /// fetched from the remote).
    package func isRun(of lane: String, arguments: [String]) -> Bool {
        guard self.lane == lane else { return false }
        if self.arguments.count == 1, self.arguments[0].hasPrefix("sha256:"), fetchedFromRemote == true {
            return self.arguments[0] == Self.argumentsDigest(arguments)
        }
        if let argumentsDigest { return argumentsDigest == Self.argumentsDigest(arguments) }
        return self.arguments == arguments
    }

    /// The commit the recorded release started from: the parent of its first commit still made
    /// (not undone), or nil when it made none. A checkout at it is where a CI retry of the job
    /// stands (`RemoteRunRecord.catchUp` moves it forward to `releaseCommit`).
    package var startCommit: String? {
        effects.lazy.filter { $0.status != .undone }.compactMap { $0.effect.as(CommitMade.self) }.first?.parent
    }

    /// The release commit the record made, when it made one.
    package var releaseCommit: String? {
        for entry in effects.reversed() {
            if let copy = entry.effect.as(ReleaseReplayed.self)?.copy, entry.status != .undone { return copy }
            if let commit = entry.effect.as(CommitMade.self)?.commit, entry.status != .undone { return commit }
        }
        return nil
    }
}
