import Foundation
internal import Git

/// What a part job leaves on origin: a commit of its own under `refs/shiplane/parts/LANE/PART`
/// holding `part.json` (this value) and each artifact's bytes as a file named by its SHA-256 —
/// except an artifact the parts' draft release holds (`assets`): its bytes stay on the forge.
package struct PartRecord: Codable, Sendable, Equatable {
    /// The record's format.
    package var format = 1
    /// The lane, as the command line names it.
    package var lane: String
    /// The part's name, os and arch, as the lane declares it.
    package var part: String
    package var os: String?
    package var arch: String?
    /// The commit the part was built from (HEAD when its job started).
    package var base: String
    /// The SHA-256 of the lane's arguments (`RunRecord.argumentsDigest`): the same release.
    package var argumentsDigest: String
    /// The id of the part job's run that recorded it.
    package var run: String
    /// What the part built, with digests and paths relative to the work tree.
    package var artifacts: [Artifact]
    /// The artifacts the parts' draft release holds, by asset (nil in records made before, or
    /// without a draft: every artifact's bytes are in the record's tree).
    package var assets: [PartAsset]? = nil

    /// Where the draft holds `artifact`, if it does.
    func asset(of artifact: Artifact) -> PartAsset? {
        assets?.first { $0.path == artifact.path && $0.sha256 == artifact.sha256 }
    }
}

/// What the fan-in job leaves on origin once it published (`refs/shiplane/published/LANE`): the
/// parts' commit and the release's, so a part job or a fan-in retried after that does nothing.
package struct PublishedRelease: Codable, Sendable, Equatable {
    /// The commit the parts were built from.
    package var base: String
    /// HEAD when the fan-in job finished (the release commit, when the lane made one).
    package var head: String
    /// The fan-in run's id.
    package var run: String

    /// True when a job at `commit` belongs to this published release.
    func covers(_ commit: String?) -> Bool {
        guard let commit, !commit.isEmpty else { return false }
        return commit == base || commit == head
    }
}

/// The part records on origin: listed, read, written by compare-and-swap, retired.
package enum OriginParts {
    /// Where part records live, here and on origin. Not under `refs/shiplane/run`: that is a ref
    /// of its own (the single-job run record), and git cannot hold a ref inside another.
    package static let prefix = "refs/shiplane/parts/"
    /// The remote the parts meet on.
    static let remote = "origin"

    /// The ref of `part` of `lane`.
    package static func reference(lane: String, part: String) -> String { prefix + lane + "/" + part }

    /// Where a fetched record lands here.
    static func fetched(lane: String, part: String) -> String { "refs/shiplane/fetched-parts/" + lane + "/" + part }

    /// The repository, origin's URL and the credentials to reach it.
    /// - Throws: when the work tree has no `origin`.
    static func connection(workTree: String, environment: LaneEnvironment) throws -> (Repository, PushCredentials) {
        let repository = try RepositoryAccess.open(at: workTree)
        guard let url = try repository.remoteURL(named: remote) else {
            throw ShiplaneError(
                "this repository has no remote named origin: a release's parts meet there (\(prefix)…, refs/shiplane/drafts/…)",
                suggestion: "add it with `git remote add origin URL`; every job of the release must clone the same origin")
        }
        return (repository, Push.credentials(for: url, environment: environment))
    }

    /// Where the fan-in job leaves word of the last release it published (`PublishedRelease`):
    /// a retry of a part or of the fan-in after that finds it and does nothing again.
    package static func publishedReference(lane: String) -> String { "refs/shiplane/published/" + lane }

    /// What origin holds of `lane`'s fanned-out release.
    struct Listing: Sendable {
        /// The part records, by part name.
        var parts: [String: ObjectID]
        /// The word of the last release published, if any.
        var published: ObjectID?
    }

    /// Origin's part records of `lane`, and its word of the last release published.
    /// - Throws: when origin cannot be reached.
    static func list(lane: String, workTree: String, environment: LaneEnvironment) async throws -> Listing {
        try await gitOffThePool {
            let (repository, credentials) = try connection(workTree: workTree, environment: environment)
            let refs = try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false)
            let mine = prefix + lane + "/"
            var found: [String: ObjectID] = [:]
            for (name, value) in refs where name.hasPrefix(mine) { found[String(name.dropFirst(mine.count))] = value }
            return Listing(parts: found, published: refs[publishedReference(lane: lane)])
        }
    }

    /// Reads origin's word of the last release published at `value`; nil when it moved since or cannot be read.
    static func readPublished(lane: String, value: ObjectID, workTree: String, environment: LaneEnvironment) async throws -> PublishedRelease? {
        try await gitOffThePool {
            let (repository, credentials) = try connection(workTree: workTree, environment: environment)
            let local = "refs/shiplane/fetched-published/" + lane
            defer { try? repository.deleteReference(local) }
            guard try repository.fetchIfPresent(remote: remote, source: publishedReference(lane: lane), destination: local, credentials: credentials),
                  try repository.resolveCommit(local) == value,
                  let json = try repository.readFileReference(local, name: "published.json") else { return nil }
            return try? RunStore.decoder.decode(PublishedRelease.self, from: json)
        }
    }

    /// Fetches origin's record of `part` at `value` and reads it, with the bytes of every artifact
    /// the parts' draft does not hold; nil when origin no longer holds it there (retired or
    /// replaced since it was listed).
    /// - Throws: when origin cannot be reached or the record cannot be read.
    static func read(lane: String, part: String, value: ObjectID, workTree: String, environment: LaneEnvironment) async throws -> (record: PartRecord, files: [String: Data])? {
        try await gitOffThePool {
            let (repository, credentials) = try connection(workTree: workTree, environment: environment)
            let local = fetched(lane: lane, part: part)
            guard try repository.fetchIfPresent(remote: remote, source: reference(lane: lane, part: part), destination: local, credentials: credentials),
                  try repository.resolveCommit(local) == value else { return nil }
            guard let json = try repository.readFileReference(local, name: "part.json"),
                  let record = try? RunStore.decoder.decode(PartRecord.self, from: json) else {
                throw ShiplaneError(
                    "origin's record of part `\(part)` (\(reference(lane: lane, part: part))) cannot be read",
                    suggestion: "run the part's job again: it records the part anew")
            }
            var files: [String: Data] = [:]
            for artifact in record.artifacts where files[artifact.sha256] == nil && record.asset(of: artifact) == nil {
                guard let data = try repository.readFileReference(local, name: artifact.sha256) else {
                    throw ShiplaneError(
                        "origin's record of part `\(part)` lacks the bytes of \(artifact.path)",
                        suggestion: "run the part's job again: it records the part anew")
                }
                files[artifact.sha256] = data
            }
            return (record, files)
        }
    }

    /// What became of a record sent with `record(…)`.
    enum Written: Equatable {
        /// Origin took it.
        case recorded
        /// Another runner recorded the part first: origin keeps theirs.
        case takenByAnother
    }

    /// Writes `record` with the artifacts' bytes and pushes it to origin, only if origin's ref
    /// still holds `expected` (nil: no record): compare-and-swap, so two runners never both record
    /// one part. Git's receive-pack updates a ref only from the value the push names.
    /// - Throws: when origin cannot be reached, or a file cannot be read.
    static func record(_ record: PartRecord, files: [String: Data], expected: ObjectID?, workTree: String, environment: LaneEnvironment) async throws -> Written {
        let ref = reference(lane: record.lane, part: record.part)
        let json = try RunStore.encoder.encode(record)
        let blobs = files.keys.sorted().compactMap { key in files[key].map { (name: key, content: $0) } }
        return try await swapIn(ref, files: [("part.json", json)] + blobs, message: "shiplane: part \(record.part) of \(record.lane)",
                                expected: expected, naming: "the record of part `\(record.part)` (\(ref))", workTree: workTree, environment: environment)
    }

    /// Writes `files` as the tree of `ref` here and pushes it to origin's `ref` only while that
    /// still holds `expected` (nil: no such ref): the one compare-and-swap by which runners agree
    /// on origin (a part's record, the parts' draft). The local ref is removed afterwards.
    /// - Throws: when origin cannot be reached, or refuses `ref` (`naming` says what it is) for
    ///   another reason than a value taken first.
    static func swapIn(_ ref: String, files: [(name: String, content: Data)], message: String, expected: ObjectID?, naming: String,
                       workTree: String, environment: LaneEnvironment) async throws -> Written {
        try await gitOffThePool {
            let (repository, credentials) = try connection(workTree: workTree, environment: environment)
            try repository.writeFilesReference(ref, files: files, message: message)
            defer { try? repository.deleteReference(ref) }
            switch try repository.compareAndSwap(remote: remote, [RefSwap(source: ref, destination: ref, expected: expected)], credentials: credentials) {
            case .swapped:
                return .recorded
            case .moved:
                return .takenByAnother
            case .refused(let outcome):
                let now = try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false)[ref]
                if now != nil && now != expected { return .takenByAnother }
                throw ShiplaneError(
                    "origin refused \(naming): " + outcome.refused.map(\.reason).joined(separator: ", "),
                    suggestion: "let the job's token push to refs/shiplane/* (a protected-ref rule or a hook refused it), then run the part's job again")
            }
        }
    }

    /// Leaves `published` on origin and deletes origin's records of `parts` of `lane` and its word
    /// of the parts' draft release (`draft`, the value the run read) that still hold the values
    /// given (by compare-and-swap), in one push: no kill leaves the draft's ref naming a published
    /// release. Returns a warning for each left, never throws: the release is done.
    static func retire(lane: String, parts: [String: ObjectID], draft: ObjectID?, published: PublishedRelease,
                       workTree: String, environment: LaneEnvironment) async -> [String] {
        do {
            return try await gitOffThePool {
                let (repository, credentials) = try connection(workTree: workTree, environment: environment)
                let refs = try repository.remoteReferences(remote: remote, credentials: credentials, peeled: false)
                let deletions = parts.keys.sorted().filter { refs[reference(lane: lane, part: $0)] == parts[$0] }
                var warnings = parts.keys.sorted().filter { !deletions.contains($0) && refs[reference(lane: lane, part: $0)] != nil }
                    .map { "origin's record of part `\($0)` changed since this run read it (another pipeline recorded it again): left as it is" }
                for part in parts.keys { try? repository.deleteReference(fetched(lane: lane, part: part)) }
                let marker = publishedReference(lane: lane)
                try repository.writeFilesReference(marker, files: [("published.json", try RunStore.encoder.encode(published))], message: "shiplane: \(lane) published")
                defer { try? repository.deleteReference(marker) }
                var swaps = [RefSwap(source: marker, destination: marker, checked: false)]
                    + deletions.map { RefSwap.delete(reference(lane: lane, part: $0), expected: parts[$0]) }
                let draftRef = draftReference(lane: lane)
                if let draft, let now = refs[draftRef] {
                    if now == draft {
                        swaps.append(.delete(draftRef, expected: draft))
                    } else {
                        warnings.append("origin's \(draftRef) changed since this run read it (another pipeline's draft): left as it is")
                    }
                }
                switch try repository.compareAndSwap(remote: remote, swaps, credentials: credentials) {
                case .swapped:
                    break
                case .refused(let outcome):
                    warnings += outcome.refused.map { "origin kept \($0.ref) (\($0.reason)): it changed while this run retired it" }
                case .moved:
                    warnings.append("origin's part records changed while this run retired them: left as they are")
                }
                return warnings
            }
        } catch {
            return ["could not retire the part records on origin (\(prefix)\(lane)/…): \(describe(error)); delete them with `git push origin --delete \(prefix)\(lane)/PART`"
                + (draft == nil ? "" : " and \(draftReference(lane: lane))")]
        }
    }
}
